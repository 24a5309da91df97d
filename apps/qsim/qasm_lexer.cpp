// OpenQASM 2.0 tokenizer (qasm_lexer.hpp).
#include "qasm_lexer.hpp"

#include <cctype>
#include <algorithm>
#include <cstdlib>

#include "tcemu/error.hpp"

namespace qsim::qasm {

std::vector<Token> tokenize(const std::string& s, const std::string& file) {
  std::vector<Token> out;
  int line = 1;
  std::size_t i = 0;
  auto fail = [&](const std::string& why) {
    throw tcemu::InvalidArgument(file + ":" + std::to_string(line) + ": " + why);
  };
  while (i < s.size()) {
    const char c = s[i];
    if (c == '\n') {
      ++line;
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
    t.line = line;
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      const std::size_t b = i;
      while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_')) ++i;
      t.kind = Token::Kind::identifier;
      t.text = s.substr(b, i - b);
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
      t.text = s.substr(b, i - b);
      t.number = std::strtod(t.text.c_str(), nullptr);
    } else if (c == '"') {
      const std::size_t b = ++i;
      while (i < s.size() && s[i] != '"' && s[i] != '\n') ++i;
      if (i >= s.size() || s[i] != '"') fail("unterminated string");
      t.kind = Token::Kind::string;
      t.text = s.substr(b, i - b);
      ++i;
    } else {
      t.kind = Token::Kind::symbol;
      if ((c == '-' && i + 1 < s.size() && s[i + 1] == '>') || (c == '=' && i + 1 < s.size() && s[i + 1] == '=')) {
        t.text = s.substr(i, 2);
        i += 2;
      } else if (std::string("()[]{},;+-*/^").find(c) != std::string::npos) {
        t.text = std::string(1, c);
        ++i;
      } else {
        fail(std::string("unexpected character '") + c + "'");
      }
    }
    out.push_back(std::move(t));
  }
  Token end;
  end.line = line;
  out.push_back(end);
  return out;
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

const Token& Cursor::peek(int ahead) const {
  const std::size_t i = std::min(pos_ + static_cast<std::size_t>(ahead), tokens_.size() - 1);
  return tokens_[i];
}

const Token& Cursor::next() {
  const Token& t = tokens_[pos_];
  if (pos_ + 1 < tokens_.size()) ++pos_;
  return t;
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

long Cursor::integer(const std::string& what) {
  if (peek().kind != Token::Kind::integer) fail("expected " + what + " (an integer), found " + describe(peek()));
  return static_cast<long>(next().number);
}

void Cursor::fail_at(int line, const std::string& reason) const {
  throw tcemu::InvalidArgument(file_ + ":" + std::to_string(line) + ": " + reason);
}

}  // namespace qsim::qasm
