// HDF5 circuit files (circuit_h5.hpp).
#include "circuit_h5.hpp"

#include <optional>

#include "tcemu/error.hpp"
#include "tcemu/io/hdf5.hpp"

namespace qsim {

void save_circuit(const Circuit& c, const std::string& path) {
  std::vector<std::int32_t> arity, qubits, meas;
  std::vector<double> mats;
  for (const auto& g : c.gates) {
    arity.push_back(static_cast<std::int32_t>(g.targets.size()));
    arity.push_back(static_cast<std::int32_t>(g.controls.size()));
    for (int q : g.targets) qubits.push_back(q);
    for (int q : g.controls) qubits.push_back(q);
    for (const auto& z : g.matrix) {
      mats.push_back(z.real());
      mats.push_back(z.imag());
    }
  }
  for (const auto& [q, b] : c.measurements) {
    meas.push_back(q);
    meas.push_back(b);
  }
  const auto g = static_cast<std::int64_t>(c.gates.size());
  tcemu::io::Writer w(path);
  w.write<std::int32_t>("/circuit/gate_arity", arity, {g, 2});
  w.write<std::int32_t>("/circuit/qubits", qubits, {static_cast<std::int64_t>(qubits.size())});
  w.write<double>("/circuit/matrices", mats, {static_cast<std::int64_t>(mats.size() / 2), 2});
  if (!meas.empty()) w.write<std::int32_t>("/circuit/measurements", meas, {static_cast<std::int64_t>(meas.size() / 2), 2});
  w.write_int_attribute("/circuit", "num_qubits", c.num_qubits);
  w.write_int_attribute("/circuit", "num_gates", g);
  w.write_int_attribute("/circuit", "num_clbits", c.num_clbits);
  w.write_string_attribute("/circuit", "format", "qsim-circuit-1");
  w.write_string_attribute("/circuit", "name", c.name);
  w.commit();
}

Circuit load_circuit(const std::string& path, int max_qubits) {
  tcemu::io::Reader r(path);
  auto fail = [&](const std::string& what) { throw tcemu::IoError(path + ": " + what); };
  std::optional<std::int64_t> nq;
  try {
    nq = r.int_attribute("/circuit", "num_qubits");
  } catch (const tcemu::IoError&) {
    fail("/circuit: group not found, so num_qubits not found (is this a qsim circuit file? see docs/qsim.md)");
  }
  if (!nq) fail("/circuit: attribute num_qubits not found (is this a qsim circuit file? see docs/qsim.md)");
  const auto ng = r.int_attribute("/circuit", "num_gates");
  if (!ng) fail("/circuit: attribute num_gates not found");
  if (*ng < 0) fail("/circuit: attribute num_gates is negative");
  Circuit c;
  c.name = r.string_attribute("/circuit", "name").value_or(path);
  if (c.name.empty()) c.name = path;
  c.num_qubits = static_cast<int>(*nq);
  if (*nq < 1 || *nq > max_qubits)
    throw tcemu::InvalidArgument(path + ": circuit '" + c.name + "' has " + std::to_string(*nq) +
                                 " qubits; qsim simulates 1.." + std::to_string(max_qubits));
  c.num_clbits = static_cast<int>(r.int_attribute("/circuit", "num_clbits").value_or(0));
  if (*ng > 0) {
    const auto arity = r.read<std::int32_t>("/circuit/gate_arity", 2);
    if (arity.rows() != *ng || arity.cols() != 2)
      fail("dataset /circuit/gate_arity: shape [" + std::to_string(arity.rows()) + ", " + std::to_string(arity.cols()) +
           "]; num_gates = " + std::to_string(*ng) + " needs [" + std::to_string(*ng) + ", 2]");
    std::int64_t need_q = 0, need_m = 0;
    for (std::int64_t i = 0; i < *ng; ++i) {
      const int t = arity.data[static_cast<std::size_t>(2 * i)], k = arity.data[static_cast<std::size_t>(2 * i + 1)];
      if (t < 1 || t > kMaxBlockQubits || k < 0 || k > 30)
        fail("dataset /circuit/gate_arity: gate " + std::to_string(i) + " has " + std::to_string(t) + " targets and " +
             std::to_string(k) + " controls; need 1.." + std::to_string(kMaxBlockQubits) + " targets and 0..30 controls");
      need_q += t + k;
      need_m += std::int64_t(1) << (2 * t);
    }
    const auto qubits = r.read<std::int32_t>("/circuit/qubits", 1);
    if (qubits.rows() != need_q)
      fail("dataset /circuit/qubits: " + std::to_string(qubits.rows()) + " entries; gate_arity needs " + std::to_string(need_q));
    const auto mats = r.read<double>("/circuit/matrices", 2);
    if (mats.rows() != need_m || mats.cols() != 2)
      fail("dataset /circuit/matrices: shape [" + std::to_string(mats.rows()) + ", " + std::to_string(mats.cols()) +
           "]; gate_arity needs [" + std::to_string(need_m) + ", 2]");
    tcemu::io::require_finite(mats, path, "/circuit/matrices");
    std::size_t qi = 0, mi = 0;
    for (std::int64_t i = 0; i < *ng; ++i) {
      Gate g;
      g.name = "gate";
      const int t = arity.data[static_cast<std::size_t>(2 * i)], k = arity.data[static_cast<std::size_t>(2 * i + 1)];
      for (int j = 0; j < t; ++j) g.targets.push_back(qubits.data[qi++]);
      for (int j = 0; j < k; ++j) g.controls.push_back(qubits.data[qi++]);
      const std::size_t entries = std::size_t(1) << (2 * t);
      for (std::size_t e = 0; e < entries; ++e, ++mi) g.matrix.emplace_back(mats.data[2 * mi], mats.data[2 * mi + 1]);
      c.gates.push_back(std::move(g));
    }
  }
  if (r.has_dataset("/circuit/measurements")) {
    const auto m = r.read<std::int32_t>("/circuit/measurements", 2);
    if (m.cols() != 2) fail("dataset /circuit/measurements: need shape [k, 2] (qubit, classical bit)");
    for (std::int64_t i = 0; i < m.rows(); ++i)
      c.measurements.emplace_back(m.data[static_cast<std::size_t>(2 * i)], m.data[static_cast<std::size_t>(2 * i + 1)]);
  }
  try {
    validate(c, max_qubits);
  } catch (const tcemu::InvalidArgument& e) {
    throw tcemu::InvalidArgument(path + ": " + e.what());
  }
  return c;
}

}  // namespace qsim
