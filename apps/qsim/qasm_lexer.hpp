#pragma once
/// \file qasm_lexer.hpp
/// Tokens of OpenQASM 2.0 source, each with the file and line it came from (for error messages).
#include <cstdint>
#include <string>
#include <string_view>
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
/// Throws tcemu::InvalidArgument "<file>:<line>: unexpected character 'x'" (a byte that is not
/// printable ASCII is written as "byte 0x1b"), or "unterminated string".
std::vector<Token> tokenize(const std::string& source, const std::string& file);

/// "identifier 'foo'", "number 3.5", "';'", "end of file": how a token is named in messages.
std::string describe(const Token& t);

/// Read position in OpenQASM source, with the helpers every parser step needs. Tokens are lexed one
/// at a time as the parser advances (a 32 MiB file of '(' would take ~2 GB as a token list). Errors
/// are tcemu::InvalidArgument "<file>:<line>: <reason>" for the line of the current token; lexical
/// errors (tokenize) are raised when the parser reaches them.
class Cursor {
 public:
  /// `source` must outlive the cursor.
  Cursor(std::string_view source, std::string file);
  /// The current token (the reference changes meaning after next()).
  const Token& peek() const { return current_; }
  /// Consumes the current token and returns it; the reference stays valid until the next call.
  /// At the end it keeps returning the Kind::end token.
  const Token& next();
  bool at_end() const { return current_.kind == Token::Kind::end; }
  /// True (and consumes it) when the current token is the symbol `sym`.
  bool accept(const char* sym);
  /// Consumes the symbol `sym` or fails with "expected 'sym' <context>, found <token>".
  void expect(const char* sym, const std::string& context);
  /// Consumes an identifier or fails "expected <what>, found <token>".
  std::string identifier(const std::string& what);
  /// Consumes a non-negative integer literal and returns its exact value; fails "expected <what> (an
  /// integer), found <token>" for anything else and "<what> <digits> is too large" above INT64_MAX.
  std::int64_t integer(const std::string& what);
  [[noreturn]] void fail(const std::string& reason) const { fail_at(peek().line, reason); }
  [[noreturn]] void fail_at(int line, const std::string& reason) const;
  const std::string& file() const { return file_; }

 private:
  /// The token starting at or after pos_ (Kind::end at the end of the source).
  Token lex();

  std::string_view source_;
  std::string file_;
  std::size_t pos_ = 0;
  int line_ = 1;
  Token current_, previous_;
};

}  // namespace qsim::qasm
