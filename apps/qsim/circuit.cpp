// Circuit invariants and bitstrings (circuit.hpp).
#include "circuit.hpp"

#include <cmath>
#include <set>

#include "app_common/text.hpp"
#include "tcemu/error.hpp"

namespace qsim {

std::vector<std::int64_t> Circuit::gate_histogram() const {
  std::vector<std::int64_t> h;
  for (const auto& g : gates) {
    const std::size_t k = g.targets.size() + g.controls.size();
    if (h.size() <= k) h.resize(k + 1);
    ++h[k];
  }
  return h;
}

void validate(const Circuit& c, int max_qubits, double unitary_tol) {
  const std::string who = "circuit '" + c.name + "'";
  if (c.num_qubits < 1)
    throw tcemu::InvalidArgument(who + " has " + std::to_string(c.num_qubits) + " qubits; need at least 1");
  if (c.num_qubits > max_qubits)
    throw tcemu::InvalidArgument(who + " has " + std::to_string(c.num_qubits) + " qubits; qsim simulates at most " +
                                 std::to_string(max_qubits));
  if (c.gates.size() > kMaxGates)
    throw tcemu::InvalidArgument(who + " has " + std::to_string(c.gates.size()) + " gates; qsim accepts at most " +
                                 std::to_string(kMaxGates));
  if (c.measurements.size() > kMaxMeasurements)
    throw tcemu::InvalidArgument(who + " has " + std::to_string(c.measurements.size()) +
                                 " measurements; qsim accepts at most " + std::to_string(kMaxMeasurements));
  if (c.num_clbits < 0 || c.num_clbits > kMaxClassicalBits)
    throw tcemu::InvalidArgument(who + " has " + std::to_string(c.num_clbits) + " classical bits; qsim allows 0.." +
                                 std::to_string(kMaxClassicalBits));
  for (std::size_t i = 0; i < c.gates.size(); ++i) {
    const Gate& g = c.gates[i];
    const std::string gw = who + ": gate " + std::to_string(i) + " (" + g.name + ")";
    if (g.targets.empty() || static_cast<int>(g.targets.size()) > kMaxBlockQubits)
      throw tcemu::InvalidArgument(gw + " has " + std::to_string(g.targets.size()) + " targets; need 1.." +
                                   std::to_string(kMaxBlockQubits));
    std::set<int> seen;
    for (const auto* list : {&g.targets, &g.controls})
      for (int q : *list) {
        if (q < 0 || q >= c.num_qubits)
          throw tcemu::InvalidArgument(gw + " acts on qubit " + std::to_string(q) + ", outside 0.." +
                                       std::to_string(c.num_qubits - 1));
        if (!seen.insert(q).second)
          throw tcemu::InvalidArgument(gw + " names qubit " + std::to_string(q) + " twice");
      }
    const std::size_t d = std::size_t(1) << g.targets.size();
    if (g.matrix.size() != d * d)
      throw tcemu::InvalidArgument(gw + " has a matrix of " + std::to_string(g.matrix.size()) + " entries; " +
                                   std::to_string(g.targets.size()) + " targets need " + std::to_string(d * d));
    for (const auto& z : g.matrix)
      if (!std::isfinite(z.real()) || !std::isfinite(z.imag()))
        throw tcemu::InvalidArgument(gw + " has a non-finite matrix entry");
    const double err = unitarity_error(g.matrix);
    if (!(err <= unitary_tol))
      throw tcemu::InvalidArgument(gw + " is not unitary: max |U^dagger U - I| = " + tcemu::app::format_number(err) +
                                   " > " + tcemu::app::format_number(unitary_tol));
  }
  for (const auto& [q, b] : c.measurements) {
    if (q < 0 || q >= c.num_qubits || b < 0 || b >= c.num_clbits)
      throw tcemu::InvalidArgument(who + ": measurement of qubit " + std::to_string(q) + " into bit " +
                                   std::to_string(b) + " is out of range (" + std::to_string(c.num_qubits) +
                                   " qubits, " + std::to_string(c.num_clbits) + " classical bits)");
  }
}

std::uint64_t parse_bitstring(const std::string& bits, int n) {
  if (static_cast<int>(bits.size()) != n)
    throw tcemu::InvalidArgument("bitstring '" + bits + "' has " + std::to_string(bits.size()) +
                                 " characters; the circuit has " + std::to_string(n) + " qubits");
  std::uint64_t k = 0;
  for (char ch : bits) {
    if (ch != '0' && ch != '1')
      throw tcemu::InvalidArgument("bitstring '" + bits + "' may only contain 0 and 1");
    k = (k << 1) | std::uint64_t(ch == '1');
  }
  return k;
}

std::string to_bitstring(std::uint64_t index, int n) {
  std::string s(static_cast<std::size_t>(n), '0');
  for (int q = 0; q < n; ++q)
    if ((index >> q) & 1u) s[static_cast<std::size_t>(n - 1 - q)] = '1';
  return s;
}

}  // namespace qsim
