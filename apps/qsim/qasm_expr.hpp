#pragma once
/// \file qasm_expr.hpp
/// OpenQASM 2.0 parameter expressions: real and integer literals, pi, the parameters of the gate
/// being defined, + - * / ^ (power, right-associative, binds tighter than unary minus), unary minus,
/// parentheses and the functions sin cos tan exp ln sqrt.
#include <string>
#include <vector>

#include "qasm_lexer.hpp"

namespace qsim::qasm {

/// Expression tree; evaluated with the values of the enclosing gate's parameters.
struct Expr {
  enum class Op { number, param, neg, add, sub, mul, div, pow, func } op = Op::number;
  double value = 0;        ///< Op::number
  int param = -1;          ///< Op::param: index into the parameter list
  std::string func;        ///< Op::func: sin cos tan exp ln sqrt
  std::vector<Expr> args;  ///< operands (1 for neg/func, 2 for binary operators)
};

/// Parses one expression at the cursor. `params` are the names in scope (the gate's parameters;
/// empty at top level). Fails (file:line) on unknown identifiers, unknown functions or bad syntax.
Expr parse_expr(Cursor& cur, const std::vector<std::string>& params);

/// Value of `e` with parameter values `values` (values.size() must cover every Op::param index).
double evaluate(const Expr& e, const std::vector<double>& values);

}  // namespace qsim::qasm
