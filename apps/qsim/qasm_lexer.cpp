// OpenQASM 2.0 tokenizer (qasm_lexer.hpp).
#include "qasm_lexer.hpp"

#include <cctype>
#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "tcemu/error.hpp"

namespace qsim::qasm {

std::vector<Token> tokenize(const std::string& source, const std::string& file) {
  Cursor cur(source, file);
  std::vector<Token> out;
  while (!cur.at_end()) out.push_back(cur.next());
  out.push_back(cur.peek());
  return out;
}

Cursor::Cursor(std::string_view source, std::string file) : source_(source), file_(std::move(file)) { current_ = lex(); }

Token Cursor::lex() {
  const std::string_view s = source_;
  std::size_t& i = pos_;
  auto fail = [&](const std::string& why) { fail_at(line_, why); };
  while (i < s.size()) {
    const char c = s[i];
    if (c == '\n') {
      ++line_;
      ++i;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
      while (i < s.size() && s[i] != '\n') ++i;
      continue;
    }
    Token t;
    t.line = line_;
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      const std::size_t b = i;
      while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_')) ++i;
      t.kind = Token::Kind::identifier;
      t.text = std::string(s.substr(b, i - b));
    } else if (std::isdigit(static_cast<unsigned char>(c)) ||
               (c == '.' && i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
      const std::size_t b = i;
      bool real = false;
      while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
      if (i < s.size() && s[i] == '.') {
        real = true;
        ++i;
        while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
      }
      if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        std::size_t j = i + 1;
        if (j < s.size() && (s[j] == '+' || s[j] == '-')) ++j;
        if (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) {
          real = true;
          i = j;
          while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
        }
      }
      t.kind = real ? Token::Kind::real : Token::Kind::integer;
      t.text = std::string(s.substr(b, i - b));
      t.number = std::strtod(t.text.c_str(), nullptr);
    } else if (c == '"') {
      const std::size_t b = ++i;
      while (i < s.size() && s[i] != '"' && s[i] != '\n') ++i;
      if (i >= s.size() || s[i] != '"') fail("unterminated string");
      t.kind = Token::Kind::string;
      t.text = std::string(s.substr(b, i - b));
      ++i;
    } else {
      t.kind = Token::Kind::symbol;
      if ((c == '-' && i + 1 < s.size() && s[i + 1] == '>') || (c == '=' && i + 1 < s.size() && s[i + 1] == '=')) {
        t.text = std::string(s.substr(i, 2));
        i += 2;
      } else if (std::string_view("()[]{},;+-*/^").find(c) != std::string_view::npos) {
        t.text = std::string(1, c);
        ++i;
      } else {
        const auto byte = static_cast<unsigned char>(c);
        if (byte >= 0x20 && byte < 0x7f) fail(std::string("unexpected character '") + c + "'");
        char hex[8];
        std::snprintf(hex, sizeof hex, "0x%02x", byte);
        fail(std::string("unexpected byte ") + hex + " (not OpenQASM text)");
      }
    }
    return t;
  }
  Token end;
  end.line = line_;
  return end;
}

std::string describe(const Token& t) {
  switch (t.kind) {
    case Token::Kind::identifier: return "identifier '" + t.text + "'";
    case Token::Kind::integer:
    case Token::Kind::real: return "number " + t.text;
    case Token::Kind::string: return "string \"" + t.text + "\"";
    case Token::Kind::symbol: return "'" + t.text + "'";
    case Token::Kind::end: return "end of file";
  }
  return "?";
}

const Token& Cursor::next() {
  if (at_end()) return current_;
  previous_ = std::move(current_);
  current_ = lex();
  return previous_;
}

bool Cursor::accept(const char* sym) {
  if (peek().kind == Token::Kind::symbol && peek().text == sym) {
    next();
    return true;
  }
  return false;
}

void Cursor::expect(const char* sym, const std::string& context) {
  if (!accept(sym)) fail(std::string("expected '") + sym + "' " + context + ", found " + describe(peek()));
}

std::string Cursor::identifier(const std::string& what) {
  if (peek().kind != Token::Kind::identifier) fail("expected " + what + ", found " + describe(peek()));
  return next().text;
}

std::int64_t Cursor::integer(const std::string& what) {
  if (peek().kind != Token::Kind::integer) fail("expected " + what + " (an integer), found " + describe(peek()));
  // From the digits, not from Token::number: a double loses integers above 2^53 and converting one
  // above INT64_MAX back to an integer is undefined.
  const std::string digits = peek().text;
  std::int64_t value = 0;
  for (char ch : digits) {
    const int d = ch - '0';
    if (value > (INT64_MAX - d) / 10) fail(what + " " + digits + " is too large");
    value = value * 10 + d;
  }
  next();
  return value;
}

void Cursor::fail_at(int line, const std::string& reason) const {
  throw tcemu::InvalidArgument(file_ + ":" + std::to_string(line) + ": " + reason);
}

}  // namespace qsim::qasm
