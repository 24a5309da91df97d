// Recursive-descent parser and evaluator of OpenQASM 2.0 parameter expressions (qasm_expr.hpp).
#include "qasm_expr.hpp"

#include <algorithm>
#include <cmath>

namespace qsim::qasm {

namespace {

const char* kFunctions[] = {"sin", "cos", "tan", "exp", "ln", "sqrt"};

Expr binary(Expr::Op op, Expr a, Expr b) {
  Expr e;
  e.op = op;
  e.args.push_back(std::move(a));
  e.args.push_back(std::move(b));
  return e;
}

Expr parse_sum(Cursor& cur, const std::vector<std::string>& params);

// primary := number | pi | param | func '(' sum ')' | '(' sum ')'
Expr parse_primary(Cursor& cur, const std::vector<std::string>& params) {
  const Token& t = cur.peek();
  Expr e;
  if (t.kind == Token::Kind::integer || t.kind == Token::Kind::real) {
    e.value = cur.next().number;
    return e;
  }
  if (cur.accept("(")) {
    e = parse_sum(cur, params);
    cur.expect(")", "to close the parenthesis");
    return e;
  }
  if (t.kind == Token::Kind::identifier) {
    const std::string name = cur.next().text;
    if (name == "pi") {
      e.value = M_PI;
      return e;
    }
    const auto p = std::find(params.begin(), params.end(), name);
    if (p != params.end()) {
      e.op = Expr::Op::param;
      e.param = static_cast<int>(p - params.begin());
      return e;
    }
    for (const char* f : kFunctions)
      if (name == f) {
        e.op = Expr::Op::func;
        e.func = name;
        cur.expect("(", "after function " + name);
        e.args.push_back(parse_sum(cur, params));
        cur.expect(")", "to close " + name + "(");
        return e;
      }
    cur.fail_at(t.line, "unknown identifier '" + name + "' in an expression (parameters in scope: " +
                            (params.empty() ? std::string("none") : [&] {
                              std::string s;
                              for (const auto& n : params) s += (s.empty() ? "" : ", ") + n;
                              return s;
                            }()) + ")");
  }
  cur.fail("expected an expression, found " + describe(t));
}

// power := primary ('^' unary)?   (right-associative; -2^2 = -4 because unary binds looser)
Expr parse_unary(Cursor& cur, const std::vector<std::string>& params);
Expr parse_power(Cursor& cur, const std::vector<std::string>& params) {
  Expr base = parse_primary(cur, params);
  if (cur.accept("^")) return binary(Expr::Op::pow, std::move(base), parse_unary(cur, params));
  return base;
}

// unary := '-' unary | '+' unary | power
Expr parse_unary(Cursor& cur, const std::vector<std::string>& params) {
  if (cur.accept("-")) {
    Expr e;
    e.op = Expr::Op::neg;
    e.args.push_back(parse_unary(cur, params));
    return e;
  }
  if (cur.accept("+")) return parse_unary(cur, params);
  return parse_power(cur, params);
}

Expr parse_product(Cursor& cur, const std::vector<std::string>& params) {
  Expr e = parse_unary(cur, params);
  for (;;) {
    if (cur.accept("*")) e = binary(Expr::Op::mul, std::move(e), parse_unary(cur, params));
    else if (cur.accept("/")) e = binary(Expr::Op::div, std::move(e), parse_unary(cur, params));
    else return e;
  }
}

Expr parse_sum(Cursor& cur, const std::vector<std::string>& params) {
  Expr e = parse_product(cur, params);
  for (;;) {
    if (cur.accept("+")) e = binary(Expr::Op::add, std::move(e), parse_product(cur, params));
    else if (cur.accept("-")) e = binary(Expr::Op::sub, std::move(e), parse_product(cur, params));
    else return e;
  }
}

}  // namespace

Expr parse_expr(Cursor& cur, const std::vector<std::string>& params) { return parse_sum(cur, params); }

double evaluate(const Expr& e, const std::vector<double>& v) {
  switch (e.op) {
    case Expr::Op::number: return e.value;
    case Expr::Op::param: return v.at(static_cast<std::size_t>(e.param));
    case Expr::Op::neg: return -evaluate(e.args[0], v);
    case Expr::Op::add: return evaluate(e.args[0], v) + evaluate(e.args[1], v);
    case Expr::Op::sub: return evaluate(e.args[0], v) - evaluate(e.args[1], v);
    case Expr::Op::mul: return evaluate(e.args[0], v) * evaluate(e.args[1], v);
    case Expr::Op::div: return evaluate(e.args[0], v) / evaluate(e.args[1], v);
    case Expr::Op::pow: return std::pow(evaluate(e.args[0], v), evaluate(e.args[1], v));
    case Expr::Op::func: {
      const double x = evaluate(e.args[0], v);
      if (e.func == "sin") return std::sin(x);
      if (e.func == "cos") return std::cos(x);
      if (e.func == "tan") return std::tan(x);
      if (e.func == "exp") return std::exp(x);
      if (e.func == "ln") return std::log(x);
      return std::sqrt(x);
    }
  }
  return 0;
}

}  // namespace qsim::qasm
