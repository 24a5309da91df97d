#pragma once
// Helpers of the qsim tests: an independent gate-by-gate FP64 simulator, paths of the qsim executable
// and of the shared QASMBench circuits, and running the executable.
#include <sys/wait.h>

#include <complex>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "app_runner.hpp"

#include "qsim/circuit.hpp"

namespace qsim_test {

using cplx = std::complex<double>;

/// Direct FP64 simulation, one gate at a time, written independently of qsim's fusion, layouts and
/// GEMMs: for every basis index with the gate's control bits set and target bits clear, gather the
/// 2^t amplitudes, multiply by the gate matrix, scatter. Canonical order (qubit q = bit q).
inline std::vector<cplx> direct_simulation(const qsim::Circuit& c) {
  const std::size_t size = std::size_t(1) << c.num_qubits;
  std::vector<cplx> psi(size);
  psi[0] = 1.0;
  for (const auto& g : c.gates) {
    const std::size_t t = g.targets.size(), d = std::size_t(1) << t;
    std::size_t tmask = 0, cmask = 0;
    for (int q : g.targets) tmask |= std::size_t(1) << q;
    for (int q : g.controls) cmask |= std::size_t(1) << q;
    std::vector<std::size_t> off(d, 0);
    for (std::size_t r = 0; r < d; ++r)
      for (std::size_t i = 0; i < t; ++i)
        if ((r >> i) & 1u) off[r] |= std::size_t(1) << g.targets[i];
    std::vector<cplx> in(d);
    for (std::size_t base = 0; base < size; ++base) {
      if ((base & tmask) || (base & cmask) != cmask) continue;
      for (std::size_t r = 0; r < d; ++r) in[r] = psi[base | off[r]];
      for (std::size_t r = 0; r < d; ++r) {
        cplx acc = 0;
        for (std::size_t k = 0; k < d; ++k) acc += g.matrix[r * d + k] * in[k];
        psi[base | off[r]] = acc;
      }
    }
  }
  return psi;
}

/// max |a - b| over two states of one precision (the difference taken in T).
template <class T>
double max_diff(const std::vector<std::complex<T>>& a, const std::vector<std::complex<T>>& b) {
  double e = 0;
  for (std::size_t i = 0; i < a.size(); ++i) e = std::max(e, double(std::abs(a[i] - b[i])));
  return e;
}

/// max |a - b| over states of two precisions (the difference taken in double).
template <class A, class B>
double max_diff(const std::vector<std::complex<A>>& a, const std::vector<std::complex<B>>& b) {
  double e = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    e = std::max(e, std::abs(std::complex<double>(a[i]) - std::complex<double>(b[i])));
  return e;
}

inline std::string qsim_executable() { return app_test::app_executable("qsim"); }

/// shared/circuits/qasmbench next to the source tree: $TCEMU_SOURCE_DIR/../shared, else the source
/// tree the tests were built from (TCEMU_TEST_SOURCE_DIR/../shared), else /work/shared.
inline std::filesystem::path qasmbench_dir() {
  std::vector<std::filesystem::path> roots;
  if (const char* s = std::getenv("TCEMU_SOURCE_DIR")) roots.emplace_back(s);
#ifdef TCEMU_TEST_SOURCE_DIR
  roots.emplace_back(TCEMU_TEST_SOURCE_DIR);
#endif
  for (const auto& r : roots) {
    const auto p = r / ".." / "shared" / "circuits" / "qasmbench";
    if (std::filesystem::exists(p)) return p;
  }
  return "/work/shared/circuits/qasmbench";
}

using app_test::Ran;
using app_test::slurp;

/// Runs qsim with `args` (shell-quoted by the caller), capturing stdout/stderr in `scratch`.
inline Ran run_qsim(const std::string& args, const std::filesystem::path& scratch) {
  return app_test::run_executable(qsim_executable(), args, scratch);
}

}  // namespace qsim_test
