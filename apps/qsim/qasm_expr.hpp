#pragma once
/// \file qasm_expr.hpp
/// OpenQASM 2.0 parameter expressions: real and integer literals, pi, the parameters of the gate
/// being defined, + - * / ^ (power, right-associative, binds tighter than unary minus), unary minus,
/// parentheses and the functions sin cos tan exp ln sqrt.
///
/// An expression is compiled to a flat postfix program, not a tree: evaluating it and destroying it
/// never recurse, so a sum of 200,000 terms or a chain of 100,000 unary minuses costs time linear in
/// its length and no stack. Only nesting recurses in the parser (parentheses, function calls, the
/// exponent of ^), and that is limited to kMaxExprNesting levels.
#include <cstdint>
#include <string>
#include <vector>

#include "qasm_lexer.hpp"

namespace qsim::qasm {

/// Deepest nesting of parentheses, function calls and exponents in one expression ("((((x))))" is 4
/// levels, "2^2^2" is 2). Deeper expressions fail with "<file>:<line>: expression nested deeper than
/// 256 levels"; the limit keeps the recursive-descent parser far from the end of the stack, also in
/// sanitizer builds with their larger frames.
constexpr int kMaxExprNesting = 256;

/// A compiled expression: postfix instructions evaluated on a value stack with the values of the
/// enclosing gate's parameters.
struct Expr {
  enum class Op : std::uint8_t { number, param, neg, add, sub, mul, div, pow, sin, cos, tan, exp, ln, sqrt };
  struct Instr {
    Op op = Op::number;
    double value = 0;  ///< Op::number: the literal; Op::param: the parameter index
  };
  std::vector<Instr> code;  ///< postfix order; leaves exactly one value
};

/// Parses one expression at the cursor. `params` are the names in scope (the gate's parameters;
/// empty at top level). Throws tcemu::InvalidArgument "<file>:<line>: <reason>" on unknown
/// identifiers, unknown functions, bad syntax, and nesting deeper than kMaxExprNesting.
Expr parse_expr(Cursor& cur, const std::vector<std::string>& params);

/// Value of `e` with parameter values `values` (values.size() must cover every Op::param index;
/// std::out_of_range otherwise). Iterative: uses no stack beyond a value vector.
double evaluate(const Expr& e, const std::vector<double>& values);

}  // namespace qsim::qasm
