// HDF5 circuit files (circuit_h5.hpp).
#include "circuit_h5.hpp"

#include <optional>

#include "tcemu/error.hpp"
#include "app_common/io/files.hpp"
#include "app_common/io/hdf5.hpp"

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
  tcemu::app::io::Writer w(path);
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

namespace {

/// Checks a dataset's shape before it is read, so that a small file claiming a huge (compressed or
/// chunked) dataset fails here instead of allocating: "<path>: dataset <name>: shape [a, b]; <why>
/// needs [c, d]".
void require_shape(const tcemu::app::io::Reader& r, const std::string& name, const std::vector<std::int64_t>& want,
                   const std::string& why) {
  const auto shape = r.info(name).shape;
  if (shape == want) return;
  auto text = [](const std::vector<std::int64_t>& v) {
    std::string t = "[";
    for (std::size_t i = 0; i < v.size(); ++i) t += (i ? ", " : "") + std::to_string(v[i]);
    return t + "]";
  };
  throw tcemu::IoError(r.path() + ": dataset " + name + ": shape " + text(shape) + "; " + why + " needs " + text(want));
}

}  // namespace

Circuit load_circuit(const std::string& path, int max_qubits) {
  tcemu::app::io::require_regular_file(path);
  tcemu::app::io::Reader r(path);
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
  // Every size from the file is checked in 64 bits against its limit before anything is sized by it.
  if (*ng < 0 || static_cast<std::uint64_t>(*ng) > kMaxGates)
    fail("/circuit: attribute num_gates = " + std::to_string(*ng) + " is outside 0.." + std::to_string(kMaxGates));
  Circuit c;
  c.name = r.string_attribute("/circuit", "name").value_or(path);
  if (c.name.empty()) c.name = path;
  if (*nq < 1 || *nq > max_qubits)
    fail("/circuit: attribute num_qubits = " + std::to_string(*nq) + " is outside 1.." + std::to_string(max_qubits) +
         " (qsim simulates at most " + std::to_string(max_qubits) + " qubits)");
  c.num_qubits = static_cast<int>(*nq);
  const std::int64_t nc = r.int_attribute("/circuit", "num_clbits").value_or(0);
  if (nc < 0 || nc > kMaxClassicalBits)
    fail("/circuit: attribute num_clbits = " + std::to_string(nc) + " is outside 0.." + std::to_string(kMaxClassicalBits));
  c.num_clbits = static_cast<int>(nc);
  if (*ng == 0 && r.has_dataset("/circuit/gate_arity")) {
    // An empty circuit with gate rows would silently drop them: the count and the data must agree.
    const auto rows = r.info("/circuit/gate_arity").shape;
    if (!rows.empty() && rows[0] != 0)
      fail("/circuit: attribute num_gates = 0 but dataset /circuit/gate_arity has " + std::to_string(rows[0]) + " rows");
  }
  if (*ng > 0) {
    require_shape(r, "/circuit/gate_arity", {*ng, 2}, "num_gates = " + std::to_string(*ng));
    const auto arity = r.read<std::int32_t>("/circuit/gate_arity", 2);
    std::int64_t need_q = 0, need_m = 0;
    for (std::int64_t i = 0; i < *ng; ++i) {
      const int t = arity.data[static_cast<std::size_t>(2 * i)], k = arity.data[static_cast<std::size_t>(2 * i + 1)];
      if (t < 1 || t > kMaxBlockQubits || k < 0 || k > kMaxQubits)
        fail("dataset /circuit/gate_arity: gate " + std::to_string(i) + " has " + std::to_string(t) + " targets and " +
             std::to_string(k) + " controls; need 1.." + std::to_string(kMaxBlockQubits) + " targets and 0.." +
             std::to_string(kMaxQubits) + " controls");
      if (t + k > c.num_qubits)
        fail("dataset /circuit/gate_arity: gate " + std::to_string(i) + " has " + std::to_string(t) + " targets and " +
             std::to_string(k) + " controls, more than the circuit's " + std::to_string(c.num_qubits) + " qubits");
      need_q += t + k;  // at most 4e6 x 39: no overflow
      need_m += std::int64_t(1) << (2 * t);  // at most 4e6 x 2^18
    }
    require_shape(r, "/circuit/qubits", {need_q}, "gate_arity");
    const auto qubits = r.read<std::int32_t>("/circuit/qubits", 1);
    require_shape(r, "/circuit/matrices", {need_m, 2}, "gate_arity");
    const auto mats = r.read<double>("/circuit/matrices", 2);
    tcemu::app::io::require_finite(mats, path, "/circuit/matrices");
    std::size_t qi = 0, mi = 0;
    c.gates.reserve(static_cast<std::size_t>(*ng));
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
    const auto shape = r.info("/circuit/measurements").shape;
    if (shape.size() != 2 || shape[1] != 2 || shape[0] < 0 || static_cast<std::uint64_t>(shape[0]) > kMaxMeasurements)
      fail("dataset /circuit/measurements: need shape [k, 2] (qubit, classical bit) with k <= " +
           std::to_string(kMaxMeasurements));
    const auto m = r.read<std::int32_t>("/circuit/measurements", 2);
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
