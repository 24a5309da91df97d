// Circuit generators: brickwork, Sycamore-like, QFT, GHZ, random (circuit_generators.hpp).
#include "circuit_generators.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <map>
#include <set>

#include "tcemu/error.hpp"

namespace qsim {

namespace {

Gate make_gate(const std::string& name, std::vector<int> targets, Matrix m, std::vector<int> controls = {}) {
  Gate g;
  g.name = name;
  g.targets = std::move(targets);
  g.controls = std::move(controls);
  g.matrix = std::move(m);
  return g;
}

Circuit empty(const std::string& name, int n) {
  Circuit c;
  c.name = name;
  c.num_qubits = n;
  return c;
}

/// key=value pairs of a spec, with typed lookups that name the spec in errors.
class Spec {
 public:
  explicit Spec(const std::string& spec) : spec_(spec) {
    const auto colon = spec.find(':');
    name_ = spec.substr(0, colon);
    if (colon == std::string::npos) return;
    std::string rest = spec.substr(colon + 1);
    std::size_t pos = 0;
    while (pos <= rest.size()) {
      const std::size_t comma = std::min(rest.find(',', pos), rest.size());
      const std::string item = rest.substr(pos, comma - pos);
      pos = comma + 1;
      if (item.empty()) continue;
      const auto eq = item.find('=');
      if (eq == std::string::npos) fail("'" + item + "' is not key=value");
      // A repeated key is a mistake (which one was meant?), not "the last one wins".
      if (!values_.emplace(item.substr(0, eq), item.substr(eq + 1)).second)
        fail("key '" + item.substr(0, eq) + "' is given twice");
    }
  }
  const std::string& name() const { return name_; }
  void allow(const std::vector<std::string>& keys) const {
    for (const auto& [k, v] : values_)
      if (std::find(keys.begin(), keys.end(), k) == keys.end()) {
        std::string list;
        for (const auto& x : keys) list += (list.empty() ? "" : ", ") + x;
        fail("unknown key '" + k + "' (valid for " + name_ + ": " + list + ")");
      }
  }
  std::int64_t integer(const std::string& key, std::int64_t lo, std::int64_t hi, const std::int64_t* fallback = nullptr) const {
    const auto it = values_.find(key);
    if (it == values_.end()) {
      if (fallback) return *fallback;
      fail("missing key '" + key + "'");
    }
    char* end = nullptr;
    errno = 0;
    const long long v = std::strtoll(it->second.c_str(), &end, 10);
    if (it->second.empty() || *end != '\0') fail(key + "=" + it->second + " is not an integer");
    if (errno == ERANGE || v < lo || v > hi)  // ERANGE: strtoll saturated, the text is out of any range
      fail(key + "=" + it->second + " is outside " + std::to_string(lo) + ".." + std::to_string(hi));
    return v;
  }
  std::int64_t integer_or(const std::string& key, std::int64_t lo, std::int64_t hi, std::int64_t fallback) const {
    return integer(key, lo, hi, &fallback);
  }
  bool has(const std::string& key) const { return values_.count(key) > 0; }
  std::string text_or(const std::string& key, const std::string& fallback) const {
    const auto it = values_.find(key);
    return it == values_.end() ? fallback : it->second;
  }
  [[noreturn]] void fail(const std::string& why) const {
    throw tcemu::InvalidArgument("--generate " + spec_ + ": " + why);
  }

 private:
  std::string spec_, name_;
  std::map<std::string, std::string> values_;
};

}  // namespace

Circuit brickwork(int n, int depth, std::uint64_t seed, int d) {
  Circuit c = empty("brickwork:n=" + std::to_string(n) + ",depth=" + std::to_string(depth) + ",seed=" +
                        std::to_string(seed) + ",d=" + std::to_string(d),
                    n);
  Rng rng(seed);
  for (int l = 0; l < depth; ++l)
    for (int q = (l % 2) ? d / 2 : 0; q + d <= n; q += d) {
      std::vector<int> t(static_cast<std::size_t>(d));
      for (int i = 0; i < d; ++i) t[static_cast<std::size_t>(i)] = q + i;
      c.gates.push_back(make_gate("haar" + std::to_string(d), t, haar_unitary(d, rng)));
    }
  return c;
}

Circuit sycamore(int n, int depth, std::uint64_t seed, bool grid) {
  Circuit c = empty("sycamore:n=" + std::to_string(n) + ",depth=" + std::to_string(depth) + ",seed=" +
                        std::to_string(seed) + ",layout=" + (grid ? "grid" : "line"),
                    n);
  Rng rng(seed);
  const Matrix singles[3] = {sycamore_sqrt_x(), sycamore_sqrt_y(), sycamore_sqrt_w()};
  const char* names[3] = {"sqrt_x", "sqrt_y", "sqrt_w"};
  const Matrix coupler = fsim(M_PI / 2, M_PI / 6);
  std::vector<int> last(static_cast<std::size_t>(n), -1);
  auto single_layer = [&] {
    for (int q = 0; q < n; ++q) {
      int k = static_cast<int>(rng.below(3));
      if (last[static_cast<std::size_t>(q)] >= 0 && k == last[static_cast<std::size_t>(q)])
        k = (k + 1 + static_cast<int>(rng.below(2))) % 3;  // one of the two others, uniformly
      last[static_cast<std::size_t>(q)] = k;
      c.gates.push_back(make_gate(names[k], {q}, singles[k]));
    }
  };
  const int cols = grid ? static_cast<int>(std::ceil(std::sqrt(static_cast<double>(n)))) : n;
  const char pattern[8] = {'A', 'B', 'C', 'D', 'C', 'D', 'A', 'B'};
  for (int l = 0; l < depth; ++l) {
    single_layer();
    const char p = pattern[l % 8];
    for (int q = 0; q < n; ++q) {
      int partner = -1;
      if (grid) {
        const int r = q / cols, col = q % cols;
        if ((p == 'A' && col % 2 == 0) || (p == 'B' && col % 2 == 1)) partner = col + 1 < cols ? q + 1 : -1;
        if ((p == 'C' && r % 2 == 0) || (p == 'D' && r % 2 == 1)) partner = q + cols;
      } else {
        const bool even = p == 'A' || p == 'C';
        if (q % 2 == (even ? 0 : 1)) partner = q + 1;
      }
      if (partner >= 0 && partner < n) c.gates.push_back(make_gate("fsim", {q, partner}, coupler));
    }
  }
  single_layer();
  return c;
}

Circuit qft(int n, std::uint64_t input) {
  Circuit c = empty("qft:n=" + std::to_string(n) + ",input=" + std::to_string(input), n);
  for (int q = 0; q < n; ++q)
    if ((input >> q) & 1u) c.gates.push_back(make_gate("x", {q}, pauli_x()));
  // Qubit n-1 is the most significant bit of J.
  for (int i = n - 1; i >= 0; --i) {
    c.gates.push_back(make_gate("h", {i}, hadamard()));
    for (int k = i - 1; k >= 0; --k) c.gates.push_back(make_gate("cp", {i}, phase(M_PI / std::ldexp(1.0, i - k)), {k}));
  }
  for (int i = 0; i < n / 2; ++i) c.gates.push_back(make_gate("swap", {i, n - 1 - i}, swap()));
  return c;
}

Circuit ghz(int n) {
  Circuit c = empty("ghz:n=" + std::to_string(n), n);
  c.gates.push_back(make_gate("h", {0}, hadamard()));
  for (int q = 0; q + 1 < n; ++q) c.gates.push_back(make_gate("cx", {q + 1}, pauli_x(), {q}));
  return c;
}

Circuit random_circuit(int n, int gates, std::uint64_t seed, int max_targets, int max_controls) {
  Circuit c = empty("random:n=" + std::to_string(n) + ",gates=" + std::to_string(gates) + ",seed=" + std::to_string(seed) +
                        ",targets=" + std::to_string(max_targets) + ",controls=" + std::to_string(max_controls),
                    n);
  Rng rng(seed);
  for (int i = 0; i < gates; ++i) {
    const int t = 1 + static_cast<int>(rng.below(static_cast<std::uint64_t>(std::min(max_targets, n))));
    const int k = static_cast<int>(rng.below(static_cast<std::uint64_t>(std::min(max_controls, n - t) + 1)));
    std::vector<int> qs;
    while (static_cast<int>(qs.size()) < t + k) {
      const int q = static_cast<int>(rng.below(static_cast<std::uint64_t>(n)));
      if (std::find(qs.begin(), qs.end(), q) == qs.end()) qs.push_back(q);
    }
    c.gates.push_back(make_gate("haar" + std::to_string(t), std::vector<int>(qs.begin(), qs.begin() + t),
                                haar_unitary(t, rng), std::vector<int>(qs.begin() + t, qs.end())));
  }
  return c;
}

Circuit generate(const std::string& text) {
  const Spec s(text);
  const auto n_of = [&] { return static_cast<int>(s.integer("n", 1, kMaxQubits)); };
  Circuit c;
  if (s.name() == "brickwork") {
    s.allow({"n", "depth", "seed", "d"});
    const int n = n_of();
    const int d = static_cast<int>(s.integer_or("d", 2, std::min(n, kMaxBlockQubits), 2));
    if (d > n) s.fail("d=" + std::to_string(d) + " exceeds n=" + std::to_string(n));
    c = brickwork(n, static_cast<int>(s.integer("depth", 0, 100000)), static_cast<std::uint64_t>(s.integer_or("seed", 0, INT64_MAX, 1)), d);
  } else if (s.name() == "sycamore") {
    s.allow({"n", "depth", "seed", "layout"});
    const std::string layout = s.text_or("layout", "line");
    if (layout != "line" && layout != "grid") s.fail("layout=" + layout + " is not line or grid");
    const int n = n_of();
    const auto depth = s.integer("depth", 0, 100000);
    // Each layer has n single-qubit gates and fewer than n couplers: bound the count before building.
    if ((depth + 1) * 2 * n > static_cast<std::int64_t>(kMaxGates))
      s.fail("depth=" + std::to_string(depth) + " at n=" + std::to_string(n) + " can give more than " +
             std::to_string(kMaxGates) + " gates, qsim's limit");
    c = sycamore(n, static_cast<int>(depth), static_cast<std::uint64_t>(s.integer_or("seed", 0, INT64_MAX, 1)), layout == "grid");
  } else if (s.name() == "qft") {
    s.allow({"n", "input"});
    const int n = n_of();
    c = qft(n, static_cast<std::uint64_t>(s.integer_or("input", 0, (std::int64_t(1) << n) - 1, 0)));
  } else if (s.name() == "ghz") {
    s.allow({"n"});
    c = ghz(n_of());
  } else if (s.name() == "random") {
    s.allow({"n", "gates", "seed", "targets", "controls"});
    const int n = n_of();
    const int targets = static_cast<int>(s.integer_or("targets", 1, std::min(n, kMaxBlockQubits), std::min(n, 3)));
    // An explicit controls (the most controls of a gate) must fit beside the targets in the n qubits;
    // the default 2 is clamped per gate, as random_circuit always did (seeds keep their circuits).
    const std::int64_t controls = s.integer_or("controls", 0, kMaxQubits, 2);
    if (s.has("controls") && targets + controls > n)
      s.fail("targets=" + std::to_string(targets) + " plus controls=" + std::to_string(controls) + " exceed n=" +
             std::to_string(n));
    c = random_circuit(n, static_cast<int>(s.integer("gates", 0, static_cast<std::int64_t>(kMaxGates))),
                       static_cast<std::uint64_t>(s.integer_or("seed", 0, INT64_MAX, 1)), targets, static_cast<int>(controls));
  } else {
    s.fail("unknown generator '" + s.name() + "' (valid: brickwork, sycamore, qft, ghz, random)");
  }
  c.name = text;
  return c;
}

}  // namespace qsim
