// Parser (recursive descent, nesting-limited) and evaluator (postfix, iterative) of OpenQASM 2.0
// parameter expressions (qasm_expr.hpp).
#include "qasm_expr.hpp"

#include <algorithm>
#include <cmath>

namespace qsim::qasm {

namespace {

struct Function {
  const char* name;
  Expr::Op op;
};
constexpr Function kFunctions[] = {{"sin", Expr::Op::sin}, {"cos", Expr::Op::cos}, {"tan", Expr::Op::tan},
                                   {"exp", Expr::Op::exp}, {"ln", Expr::Op::ln},   {"sqrt", Expr::Op::sqrt}};

/// Compiles one expression into postfix code. Sums, products and runs of unary signs are loops;
/// only parentheses, function arguments and exponents recurse, each one level of `nesting_`.
class ExprParser {
 public:
  ExprParser(Cursor& cur, const std::vector<std::string>& params) : cur_(cur), params_(params) {}

  Expr run() {
    sum();
    return std::move(expr_);
  }

 private:
  Cursor& cur_;
  const std::vector<std::string>& params_;
  Expr expr_;
  int nesting_ = 0;

  void emit(Expr::Op op, double value = 0) { expr_.code.push_back({op, value}); }

  /// One level deeper; fails past kMaxExprNesting before the recursion can exhaust the stack.
  void enter() {
    if (++nesting_ > kMaxExprNesting)
      cur_.fail("expression nested deeper than " + std::to_string(kMaxExprNesting) +
                " levels (parentheses, function calls and exponents)");
  }
  void leave() { --nesting_; }

  // sum := product (('+' | '-') product)*
  void sum() {
    product();
    for (;;) {
      if (cur_.accept("+")) {
        product();
        emit(Expr::Op::add);
      } else if (cur_.accept("-")) {
        product();
        emit(Expr::Op::sub);
      } else {
        return;
      }
    }
  }

  // product := unary (('*' | '/') unary)*
  void product() {
    unary();
    for (;;) {
      if (cur_.accept("*")) {
        unary();
        emit(Expr::Op::mul);
      } else if (cur_.accept("/")) {
        unary();
        emit(Expr::Op::div);
      } else {
        return;
      }
    }
  }

  // unary := ('-' | '+')* power. The signs are counted in a loop, not recursed on: -(-x) == x
  // exactly, so an even count emits nothing and an odd one a single negation.
  void unary() {
    bool negate = false;
    for (;;) {
      if (cur_.accept("-")) negate = !negate;
      else if (!cur_.accept("+")) break;
    }
    power();
    if (negate) emit(Expr::Op::neg);
  }

  // power := primary ('^' unary)?   (right-associative; -2^2 = -4 because unary binds looser)
  void power() {
    primary();
    if (cur_.accept("^")) {
      enter();
      unary();
      leave();
      emit(Expr::Op::pow);
    }
  }

  // primary := number | pi | param | func '(' sum ')' | '(' sum ')'
  void primary() {
    const Token& t = cur_.peek();
    if (t.kind == Token::Kind::integer || t.kind == Token::Kind::real) {
      emit(Expr::Op::number, cur_.next().number);
      return;
    }
    if (cur_.accept("(")) {
      enter();
      sum();
      cur_.expect(")", "to close the parenthesis");
      leave();
      return;
    }
    if (t.kind == Token::Kind::identifier) {
      const int line = t.line;
      const std::string name = cur_.next().text;
      if (name == "pi") {
        emit(Expr::Op::number, M_PI);
        return;
      }
      const auto p = std::find(params_.begin(), params_.end(), name);
      if (p != params_.end()) {
        emit(Expr::Op::param, static_cast<double>(p - params_.begin()));
        return;
      }
      for (const Function& f : kFunctions)
        if (name == f.name) {
          cur_.expect("(", "after function " + name);
          enter();
          sum();
          cur_.expect(")", "to close " + name + "(");
          leave();
          emit(f.op);
          return;
        }
      std::string in_scope;
      for (const auto& n : params_) in_scope += (in_scope.empty() ? "" : ", ") + n;
      cur_.fail_at(line, "unknown identifier '" + name + "' in an expression (parameters in scope: " +
                             (in_scope.empty() ? std::string("none") : in_scope) + ")");
    }
    cur_.fail("expected an expression, found " + describe(t));
  }
};

}  // namespace

Expr parse_expr(Cursor& cur, const std::vector<std::string>& params) { return ExprParser(cur, params).run(); }

double evaluate(const Expr& e, const std::vector<double>& values) {
  std::vector<double> stack;
  stack.reserve(16);
  for (const Expr::Instr& in : e.code) {
    switch (in.op) {
      case Expr::Op::number: stack.push_back(in.value); continue;
      case Expr::Op::param: stack.push_back(values.at(static_cast<std::size_t>(in.value))); continue;
      default: break;
    }
    double& x = stack.back();  // the parser guarantees the operands are there
    switch (in.op) {
      case Expr::Op::neg: x = -x; continue;
      case Expr::Op::sin: x = std::sin(x); continue;
      case Expr::Op::cos: x = std::cos(x); continue;
      case Expr::Op::tan: x = std::tan(x); continue;
      case Expr::Op::exp: x = std::exp(x); continue;
      case Expr::Op::ln: x = std::log(x); continue;
      case Expr::Op::sqrt: x = std::sqrt(x); continue;
      default: break;
    }
    const double b = stack.back();
    stack.pop_back();
    double& a = stack.back();
    switch (in.op) {
      case Expr::Op::add: a = a + b; break;
      case Expr::Op::sub: a = a - b; break;
      case Expr::Op::mul: a = a * b; break;
      case Expr::Op::div: a = a / b; break;
      case Expr::Op::pow: a = std::pow(a, b); break;
      default: break;
    }
  }
  return stack.empty() ? 0.0 : stack.back();
}

}  // namespace qsim::qasm
