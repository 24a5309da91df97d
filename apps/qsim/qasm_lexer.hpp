#pragma once
/// \file qasm_lexer.hpp
/// Tokens of OpenQASM 2.0 source, each with the file and line it came from (for error messages).
#include <string>
#include <vector>

namespace qsim::qasm {

/// One token. `text` holds identifiers, symbols ("->", "==", "(", ...) and the raw spelling of
/// numbers; `number` the value of integer and real literals; `text` the contents of a string literal.
struct Token {
  enum class Kind { identifier, integer, real, string, symbol, end } kind = Kind::end;
  std::string text;
  double number = 0;
  int line = 0;
};

/// Splits `source` into tokens; // comments and whitespace are skipped. The last token has Kind::end.
/// Throws tcemu::InvalidArgument "<file>:<line>: unexpected character 'x'" (or "unterminated string").
std::vector<Token> tokenize(const std::string& source, const std::string& file);

/// "identifier 'foo'", "number 3.5", "';'", "end of file": how a token is named in messages.
std::string describe(const Token& t);

/// Read position in a token list, with the helpers every parser step needs. Errors are
/// tcemu::InvalidArgument "<file>:<line>: <reason>" for the line of the current token.
class Cursor {
 public:
  Cursor(std::vector<Token> tokens, std::string file) : tokens_(std::move(tokens)), file_(std::move(file)) {}
  const Token& peek(int ahead = 0) const;
  const Token& next();
  bool at_end() const { return peek().kind == Token::Kind::end; }
  /// True (and consumes it) when the current token is the symbol `sym`.
  bool accept(const char* sym);
  /// Consumes the symbol `sym` or fails with "expected 'sym' <context>, found <token>".
  void expect(const char* sym, const std::string& context);
  /// Consumes an identifier or fails "expected <what>, found <token>".
  std::string identifier(const std::string& what);
  /// Consumes a non-negative integer literal or fails.
  long integer(const std::string& what);
  [[noreturn]] void fail(const std::string& reason) const { fail_at(peek().line, reason); }
  [[noreturn]] void fail_at(int line, const std::string& reason) const;
  const std::string& file() const { return file_; }

 private:
  std::vector<Token> tokens_;
  std::string file_;
  std::size_t pos_ = 0;
};

}  // namespace qsim::qasm
