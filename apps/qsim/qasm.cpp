// OpenQASM 2.0 parser with macro expansion of gate definitions (qasm.hpp).
#include "qasm.hpp"

#include <sys/stat.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <utility>

#include "qasm_expr.hpp"
#include "qasm_lexer.hpp"
#include "qelib.hpp"
#include "tcemu/error.hpp"
#include "app_common/io/files.hpp"

namespace qsim {

namespace {

using qasm::Cursor;
using qasm::Expr;
using qasm::Token;

/// (device, inode) of a file, to recognise it under any spelling; (0, 0) when stat fails.
std::pair<dev_t, ino_t> file_identity(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return {0, 0};
  return {st.st_dev, st.st_ino};
}

/// A gate call inside a definition body: arguments are indices of the definition's qubit arguments.
struct BodyCall {
  std::string name;
  std::vector<Expr> params;
  std::vector<int> args;
  int line = 0;
};

struct Definition {
  std::string name;
  int num_params = 0;
  int num_qubits = 0;
  std::vector<BodyCall> body;
  bool library = false;  ///< defined by the embedded qelib1.inc
  bool opaque = false;
  std::string file;
  int line = 0;
};

struct Register {
  int offset = 0;
  int size = 0;
};

/// Where a top-level statement came from, for messages raised while expanding it.
struct Origin {
  const Cursor* cur;
  int line;
  [[noreturn]] void fail(const std::string& reason) const { cur->fail_at(line, reason); }
};

class Parser {
 public:
  Parser(const QasmOptions& o, std::vector<std::string>* includes_read) : opt_(o), includes_read_(includes_read) {}

  /// Parses `source` (already read; `source.size()` counts against QasmOptions::max_source_bytes).
  Circuit run(const std::string& source, const std::string& file) {
    circuit_.name = file;
    source_bytes_ = source.size();
    if (source_bytes_ > opt_.max_source_bytes)
      throw tcemu::InvalidArgument(file + ": is " + std::to_string(source_bytes_) + " bytes, more than the limit of " +
                                   std::to_string(opt_.max_source_bytes) + " bytes");
    include_stack_.push_back(file_identity(file));
    parse_file(source, file, false, 0);
    if (qubit_names_.empty())
      throw tcemu::InvalidArgument(file + ": declares no qreg; a circuit needs at least 1 qubit");
    circuit_.num_qubits = static_cast<int>(qubit_names_.size());
    return std::move(circuit_);
  }

 private:
  QasmOptions opt_;
  std::vector<std::string>* includes_read_;  ///< where to list the files included (may be null)
  Circuit circuit_;
  std::map<std::string, Definition> defs_;
  std::map<std::string, Register> qregs_, cregs_;
  std::vector<std::string> qubit_names_;
  std::vector<int> measured_at_;  ///< line of the first measurement of each qubit, 0 if none
  std::vector<bool> touched_;     ///< a gate acted on the qubit
  bool qelib_loaded_ = false;
  std::uint64_t source_bytes_ = 0;      ///< bytes of the file and its includes read so far
  std::uint64_t expansion_steps_ = 0;   ///< gate calls expanded plus expression instructions evaluated
  std::vector<std::pair<dev_t, ino_t>> include_stack_;  ///< files being parsed, outermost first

  void parse_file(const std::string& source, const std::string& file, bool library, int depth) {
    Cursor cur(source, file);
    while (!cur.at_end()) statement(cur, library, depth);
  }

  void statement(Cursor& cur, bool library, int depth) {
    const Token& t = cur.peek();
    const int line = t.line;
    if (t.kind != Token::Kind::identifier) cur.fail("expected a statement, found " + qasm::describe(t));
    const std::string kw = t.text;
    if (kw == "OPENQASM") {
      cur.next();
      const Token& v = cur.next();
      if ((v.kind != Token::Kind::real && v.kind != Token::Kind::integer) || std::floor(v.number) != 2)
        cur.fail_at(line, "OPENQASM version " + v.text + " is not supported (qsim reads OpenQASM 2.x)");
      cur.expect(";", "after the OPENQASM version");
    } else if (kw == "include") {
      cur.next();
      if (cur.peek().kind != Token::Kind::string) cur.fail("expected a file name in quotes after include");
      const std::string name = cur.next().text;
      cur.expect(";", "after include \"" + name + "\"");
      include(cur, name, line, depth);
    } else if (kw == "qreg" || kw == "creg") {
      cur.next();
      declare_register(cur, kw == "qreg", line);
    } else if (kw == "gate" || kw == "opaque") {
      cur.next();
      define_gate(cur, kw == "opaque", library, line);
    } else if (kw == "measure") {
      cur.next();
      measure(cur, line);
    } else if (kw == "reset") {
      cur.next();
      reset(cur, line);
    } else if (kw == "barrier") {
      cur.next();
      qubit_args(cur, "barrier");  // checked, then ignored
      cur.expect(";", "after barrier");
    } else if (kw == "if") {
      cur.fail_at(line, "classically controlled gate ('if') is not supported: qsim simulates unitary circuits "
                        "with final measurements only");
    } else {
      top_level_call(cur, line);
    }
  }

  void include(Cursor& cur, const std::string& name, int line, int depth) {
    if (name == "qelib1.inc") {
      if (qelib_loaded_) return;
      qelib_loaded_ = true;
      parse_file(qasm::qelib1_source(), "qelib1.inc", true, depth + 1);
      return;
    }
    if (depth >= kMaxIncludeDepth)
      cur.fail_at(line, "include \"" + name + "\": includes nested deeper than " + std::to_string(kMaxIncludeDepth) +
                            " levels");
    const std::string path = (std::filesystem::path(cur.file()).parent_path() / name).string();
    const std::string what = "include \"" + name + "\": ";
    std::string text;
    std::pair<dev_t, ino_t> id;
    try {
      // Only regular files (a FIFO would block, /dev/zero never ends), and never more than what is
      // left of the source budget.
      tcemu::app::io::require_regular_file(path);
      id = file_identity(path);
      const std::uint64_t left = opt_.max_source_bytes - source_bytes_, size = std::filesystem::file_size(path);
      if (size > left)
        cur.fail_at(line, what + path + " is " + std::to_string(size) + " bytes; with the " + std::to_string(source_bytes_) +
                              " bytes read before it, that is more than the limit of " +
                              std::to_string(opt_.max_source_bytes) + " bytes for a circuit and its includes");
      text = tcemu::app::io::read_text_file(path, left);
    } catch (const tcemu::IoError& e) {
      cur.fail_at(line, what + e.what());
    } catch (const std::filesystem::filesystem_error& e) {
      cur.fail_at(line, what + path + ": " + e.code().message());
    }
    for (const auto& open : include_stack_)
      if (open == id) cur.fail_at(line, what + path + " is already being read (an include cycle)");
    source_bytes_ += text.size();
    if (includes_read_) includes_read_->push_back(path);
    include_stack_.push_back(id);
    parse_file(text, path, false, depth + 1);
    include_stack_.pop_back();
  }

  void declare_register(Cursor& cur, bool quantum, int line) {
    const std::string name = cur.identifier("a register name");
    cur.expect("[", "after register name " + name);
    const std::int64_t size = cur.integer("the size of " + name);
    cur.expect("]", "after the size of " + name);
    cur.expect(";", "after the declaration of " + name);
    if (qregs_.count(name) || cregs_.count(name)) cur.fail_at(line, "register '" + name + "' is declared twice");
    if (size < 1) cur.fail_at(line, "register '" + name + "' has size " + std::to_string(size) + "; need >= 1");
    // Checked in 64 bits before anything is sized by `size` (the sum cannot overflow: the size is
    // compared with the limit first).
    const std::int64_t have = quantum ? static_cast<std::int64_t>(qubit_names_.size()) : circuit_.num_clbits;
    const std::int64_t limit = quantum ? opt_.max_qubits : opt_.max_clbits;
    const std::uint64_t total = static_cast<std::uint64_t>(have) + static_cast<std::uint64_t>(size);  // no wrap
    if (total > static_cast<std::uint64_t>(limit))
      cur.fail_at(line, std::string(quantum ? "qreg " : "creg ") + name + "[" + std::to_string(size) +
                            "] brings the circuit to " + std::to_string(total) +
                            (quantum ? " qubits; qsim simulates at most " : " classical bits; qsim allows at most ") +
                            std::to_string(limit));
    if (quantum) {
      qregs_[name] = {static_cast<int>(have), static_cast<int>(size)};
      for (std::int64_t i = 0; i < size; ++i) qubit_names_.push_back(name + "[" + std::to_string(i) + "]");
      measured_at_.resize(qubit_names_.size(), 0);
      touched_.resize(qubit_names_.size(), false);
    } else {
      cregs_[name] = {circuit_.num_clbits, static_cast<int>(size)};
      circuit_.num_clbits += static_cast<int>(size);
    }
  }

  // gate name(p0, p1) a, b { body }   |   opaque name(p0) a, b;
  void define_gate(Cursor& cur, bool opaque, bool library, int line) {
    Definition d;
    d.name = cur.identifier("a gate name");
    d.library = library;
    d.opaque = opaque;
    d.file = cur.file();
    d.line = line;
    if (d.name == "U" || d.name == "CX" || defs_.count(d.name))
      cur.fail_at(line, "gate '" + d.name + "' is already defined" +
                            (defs_.count(d.name) ? " (at " + defs_[d.name].file + ":" +
                                                       std::to_string(defs_[d.name].line) + ")"
                                                 : " (built into OpenQASM)"));
    std::vector<std::string> params, qargs;
    if (cur.accept("(")) {
      if (!cur.accept(")")) {
        do {
          params.push_back(cur.identifier("a parameter name"));
          too_many(cur, params.size(), kMaxGateParameters, "parameters");
        } while (cur.accept(","));
        cur.expect(")", "after the parameters of " + d.name);
      }
    }
    do {
      qargs.push_back(cur.identifier("a qubit argument of " + d.name));
      too_many(cur, qargs.size(), kMaxGateQubitArguments, "qubit arguments");
    } while (cur.accept(","));
    for (std::size_t i = 0; i < qargs.size(); ++i)
      for (std::size_t j = 0; j < i; ++j)
        if (qargs[i] == qargs[j]) cur.fail_at(line, "gate '" + d.name + "' names qubit argument " + qargs[i] + " twice");
    d.num_params = static_cast<int>(params.size());
    d.num_qubits = static_cast<int>(qargs.size());
    if (opaque) {
      cur.expect(";", "after opaque " + d.name);
      defs_[d.name] = std::move(d);
      return;
    }
    cur.expect("{", "to open the body of gate " + d.name);
    while (!cur.accept("}")) {
      if (cur.at_end()) cur.fail("gate '" + d.name + "' (line " + std::to_string(line) + ") has no closing '}'");
      const Token& t = cur.peek();
      if (t.kind != Token::Kind::identifier) cur.fail("expected a gate call in the body of " + d.name + ", found " + qasm::describe(t));
      BodyCall c;
      c.line = t.line;
      c.name = cur.next().text;
      if (c.name == "barrier") {
        body_args(cur, qargs, d.name);
        cur.expect(";", "after barrier");
        continue;
      }
      if (c.name == "measure" || c.name == "reset" || c.name == "if")
        cur.fail_at(c.line, "'" + c.name + "' is not allowed inside gate '" + d.name + "'");
      const auto [np, nq] = arity(cur, c.name, c.line);
      if (cur.accept("(")) {
        if (!cur.accept(")")) {
          do {
            c.params.push_back(qasm::parse_expr(cur, params));
            too_many(cur, c.params.size(), kMaxGateParameters, "parameters");
          } while (cur.accept(","));
          cur.expect(")", "after the parameters of " + c.name);
        }
      }
      c.args = body_args(cur, qargs, d.name);
      cur.expect(";", "after the call of " + c.name);
      check_arity(cur, c.name, c.line, np, nq, static_cast<int>(c.params.size()), static_cast<int>(c.args.size()));
      for (std::size_t i = 0; i < c.args.size(); ++i)
        for (std::size_t j = 0; j < i; ++j)
          if (c.args[i] == c.args[j])
            cur.fail_at(c.line, "gate '" + c.name + "' is given qubit " + qargs[static_cast<std::size_t>(c.args[i])] + " twice");
      d.body.push_back(std::move(c));
    }
    defs_[d.name] = std::move(d);
  }

  std::vector<int> body_args(Cursor& cur, const std::vector<std::string>& qargs, const std::string& gate) {
    std::vector<int> out;
    do {
      const int line = cur.peek().line;
      const std::string a = cur.identifier("a qubit argument");
      if (cur.peek().kind == Token::Kind::symbol && cur.peek().text == "[")
        cur.fail("qubit arguments inside gate '" + gate + "' cannot be indexed (" + a + "[...])");
      std::size_t i = 0;
      while (i < qargs.size() && qargs[i] != a) ++i;
      if (i == qargs.size()) cur.fail_at(line, "'" + a + "' is not a qubit argument of gate '" + gate + "'");
      out.push_back(static_cast<int>(i));
      too_many(cur, out.size(), kMaxGateQubitArguments, "qubit arguments");
    } while (cur.accept(","));
    return out;
  }

  /// (parameters, qubits) of a callable gate; fails for unknown names.
  std::pair<int, int> arity(const Cursor& cur, const std::string& name, int line) const {
    if (name == "U") return {3, 1};
    if (name == "CX") return {0, 2};
    const auto it = defs_.find(name);
    if (it == defs_.end()) {
      std::string hint;
      if (!qelib_loaded_ && qasm::find_builtin(name)) hint = " (it is in qelib1.inc: add include \"qelib1.inc\";)";
      else if (!qelib_loaded_) hint = " (no include \"qelib1.inc\" seen)";
      cur.fail_at(line, "unknown gate '" + name + "'" + hint);
    }
    return {it->second.num_params, it->second.num_qubits};
  }

  void check_arity(const Cursor& cur, const std::string& name, int line, int np, int nq, int gp, int gq) const {
    if (gp != np)
      cur.fail_at(line, "gate '" + name + "' takes " + std::to_string(np) + " parameter(s), given " + std::to_string(gp));
    if (gq != nq)
      cur.fail_at(line, "gate '" + name + "' acts on " + std::to_string(nq) + " qubit(s), given " + std::to_string(gq));
  }

  /// A top-level register argument: `reg` (all its bits) or `reg[i]`.
  struct Arg {
    std::vector<int> bits;
    bool whole = false;
    std::string text;
  };

  Arg register_arg(Cursor& cur, bool quantum) {
    const int line = cur.peek().line;
    Arg a;
    a.text = cur.identifier(quantum ? "a qubit (reg or reg[i])" : "a classical bit (reg or reg[i])");
    const auto& regs = quantum ? qregs_ : cregs_;
    const auto it = regs.find(a.text);
    if (it == regs.end()) {
      const bool other = (quantum ? cregs_ : qregs_).count(a.text) > 0;
      cur.fail_at(line, std::string(other ? (quantum ? "'" + a.text + "' is a classical register; a qubit is needed"
                                                     : "'" + a.text + "' is a quantum register; a classical bit is needed")
                                          : "unknown " + std::string(quantum ? "qreg" : "creg") + " '" + a.text + "'"));
    }
    const Register r = it->second;
    if (cur.accept("[")) {
      const std::int64_t i = cur.integer("an index");
      cur.expect("]", "after the index");
      if (i < 0 || i >= r.size)
        cur.fail_at(line, "index " + std::to_string(i) + " is out of range for " + a.text + "[" + std::to_string(r.size) + "]");
      a.bits.push_back(r.offset + static_cast<int>(i));
      a.text += "[" + std::to_string(i) + "]";
    } else {
      a.whole = true;
      for (int i = 0; i < r.size; ++i) a.bits.push_back(r.offset + i);
    }
    return a;
  }

  std::vector<Arg> qubit_args(Cursor& cur, const std::string&) {
    std::vector<Arg> args;
    do {
      args.push_back(register_arg(cur, true));
      too_many(cur, args.size(), kMaxGateQubitArguments, "qubit arguments");
    } while (cur.accept(","));
    return args;
  }

  /// Broadcast size of a call: 1 without whole registers, else their common size.
  static int broadcast(const Cursor& cur, int line, const std::vector<Arg>& args, const std::string& what) {
    int n = 1;
    for (const auto& a : args)
      if (a.whole) {
        const int s = static_cast<int>(a.bits.size());
        if (n != 1 && s != n && s != 1)
          cur.fail_at(line, what + ": registers of different sizes (" + std::to_string(n) + " and " +
                                std::to_string(s) + ") cannot be broadcast together");
        n = std::max(n, s);
      }
    return n;
  }

  void top_level_call(Cursor& cur, int line) {
    const std::string name = cur.next().text;
    const auto [np, nq] = arity(cur, name, line);
    std::vector<double> values;
    if (cur.accept("(")) {
      if (!cur.accept(")")) {
        do {
          values.push_back(qasm::evaluate(qasm::parse_expr(cur, {}), {}));
          too_many(cur, values.size(), kMaxGateParameters, "parameters");
        } while (cur.accept(","));
        cur.expect(")", "after the parameters of " + name);
      }
    }
    if (cur.peek().kind != Token::Kind::identifier)
      cur.fail("expected the qubits of '" + name + "', found " + qasm::describe(cur.peek()));
    const auto args = qubit_args(cur, name);
    cur.expect(";", "after the call of " + name);
    check_arity(cur, name, line, np, nq, static_cast<int>(values.size()), static_cast<int>(args.size()));
    for (std::size_t i = 0; i < values.size(); ++i)
      if (!std::isfinite(values[i]))
        cur.fail_at(line, "parameter " + std::to_string(i + 1) + " of '" + name + "' is not finite");
    const int n = broadcast(cur, line, args, "gate '" + name + "'");
    const Origin origin{&cur, line};
    for (int k = 0; k < n; ++k) {
      std::vector<int> qubits;
      for (const auto& a : args) qubits.push_back(a.bits[a.whole && a.bits.size() > 1 ? k : 0]);
      for (std::size_t i = 0; i < qubits.size(); ++i)
        for (std::size_t j = 0; j < i; ++j)
          if (qubits[i] == qubits[j])
            origin.fail("gate '" + name + "' is given qubit " + qubit_names_[static_cast<std::size_t>(qubits[i])] + " twice");
      expand(origin, name, values, qubits, 0);
    }
  }

  /// Fails once a list grows past `limit`: argument lists are checked pairwise (repeated qubits,
  /// parameter lookup), so an unbounded list would take quadratic time.
  static void too_many(const Cursor& cur, std::size_t count, std::size_t limit, const char* what) {
    if (count > limit) cur.fail("more than " + std::to_string(limit) + " " + what + " in one statement");
  }

  /// Counts `steps` of expansion work; fails once the total passes QasmOptions::max_expansion_steps,
  /// so that definitions calling each other twice per level (or gates with empty bodies, which add
  /// no gates) cannot take exponential time.
  void spend(const Origin& origin, std::uint64_t steps) {
    expansion_steps_ += steps;
    if (expansion_steps_ > opt_.max_expansion_steps)
      origin.fail("expanding the gate definitions takes more than " + std::to_string(opt_.max_expansion_steps) +
                  " steps (gate calls plus expression operations); qsim stops there");
  }

  void expand(const Origin& origin, const std::string& name, const std::vector<double>& values,
              const std::vector<int>& qubits, int depth) {
    if (depth > 64) origin.fail("gate '" + name + "': definitions nested deeper than 64 levels");
    spend(origin, 1);
    if (name == "U" || name == "CX") {
      emit(origin, name, *qasm::find_builtin(name), values, qubits);
      return;
    }
    const Definition& d = defs_.at(name);
    if (d.opaque)
      origin.fail("gate '" + name + "' is declared opaque (" + d.file + ":" + std::to_string(d.line) +
                  ") and has no definition, so qsim cannot simulate it");
    if (d.library && opt_.builtin_matrices) {
      if (const qasm::Builtin* b = qasm::find_builtin(name)) {
        emit(origin, name, *b, values, qubits);
        return;
      }
    }
    for (const auto& c : d.body) {
      std::vector<double> v;
      for (const auto& e : c.params) {
        spend(origin, e.code.size());
        v.push_back(qasm::evaluate(e, values));
        if (!std::isfinite(v.back()))
          origin.fail("a parameter of '" + c.name + "' (" + d.file + ":" + std::to_string(c.line) + ", inside '" +
                      name + "') is not finite");
      }
      std::vector<int> q;
      for (int a : c.args) q.push_back(qubits[static_cast<std::size_t>(a)]);
      expand(origin, c.name, v, q, depth + 1);
    }
  }

  void emit(const Origin& origin, const std::string& name, const qasm::Builtin& b, const std::vector<double>& values,
            const std::vector<int>& qubits) {
    for (int q : qubits) {
      const int m = measured_at_[static_cast<std::size_t>(q)];
      if (m)
        origin.fail("gate '" + name + "' acts on " + qubit_names_[static_cast<std::size_t>(q)] + " after it was measured (line " +
                    std::to_string(m) + "): mid-circuit measurement is not supported (qsim samples final measurements only)");
    }
    // Checked before the gate is built: a few hundred bytes of definitions can expand to billions.
    if (circuit_.gates.size() >= opt_.max_gates)
      origin.fail("the circuit has more than " + std::to_string(opt_.max_gates) +
                  " gates after expanding the gate definitions; qsim accepts at most " + std::to_string(opt_.max_gates));
    Gate g;
    g.name = name;
    g.controls.assign(qubits.begin(), qubits.begin() + b.controls);
    g.targets.assign(qubits.begin() + b.controls, qubits.end());
    g.matrix = b.matrix(values);
    for (int q : qubits) touched_[static_cast<std::size_t>(q)] = true;
    circuit_.gates.push_back(std::move(g));
  }

  void measure(Cursor& cur, int line) {
    const Arg q = register_arg(cur, true);
    cur.expect("->", "in measure (measure q -> c)");
    const Arg c = register_arg(cur, false);
    cur.expect(";", "after measure");
    if (q.bits.size() != c.bits.size())
      cur.fail_at(line, "measure " + q.text + " -> " + c.text + ": " + std::to_string(q.bits.size()) + " qubit(s) into " +
                            std::to_string(c.bits.size()) + " bit(s)");
    if (circuit_.measurements.size() + q.bits.size() > kMaxMeasurements)
      cur.fail_at(line, "more than " + std::to_string(kMaxMeasurements) + " measurements; qsim accepts at most " +
                            std::to_string(kMaxMeasurements));
    for (std::size_t i = 0; i < q.bits.size(); ++i) {
      int& at = measured_at_[static_cast<std::size_t>(q.bits[i])];
      if (!at) at = line;
      circuit_.measurements.emplace_back(q.bits[i], c.bits[i]);
    }
  }

  void reset(Cursor& cur, int line) {
    const Arg q = register_arg(cur, true);
    cur.expect(";", "after reset");
    for (int b : q.bits) {
      const auto i = static_cast<std::size_t>(b);
      if (touched_[i] || measured_at_[i])
        cur.fail_at(line, "reset of " + qubit_names_[i] + " after " + (measured_at_[i] ? "its measurement" : "gates acted on it") +
                              ": mid-circuit reset is not supported (a reset before any gate is a no-op and accepted)");
    }
  }
};

}  // namespace

Circuit parse_qasm(const std::string& source, const std::string& file, const QasmOptions& options,
                   std::vector<std::string>* includes_read) {
  return Parser(options, includes_read).run(source, file);
}

Circuit load_qasm(const std::string& path, const QasmOptions& options, std::vector<std::string>* includes_read) {
  return parse_qasm(tcemu::app::io::read_text_file(path, options.max_source_bytes), path, options, includes_read);
}

}  // namespace qsim
