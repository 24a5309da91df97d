// Host state-vector simulator: fused blocks as complex GEMMs through tcemu (simulate.hpp).
#include "simulate.hpp"

#include "app_common/timing.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "qubit_layout.hpp"
#include "tcemu/complex_gemm.hpp"
#include "tcemu/error.hpp"

namespace qsim {

namespace {
using tcemu::app::Clock;
using tcemu::app::seconds_since;
}  // namespace

double state_scale(int n) { return std::ldexp(1.0, std::min(12, n / 2)); }

void record(SimStats& stats, const tcemu::GemmReport& r) {
  stats.gemm.add(r);
}

template <class T>
std::vector<std::complex<T>> block_matrix(const Matrix& m) {
  std::vector<std::complex<T>> u(m.size());
  double big = 0;
  for (const auto& z : m) big = std::max(big, std::abs(z));
  const double tiny = sizeof(T) == sizeof(double) ? 0.0 : std::ldexp(big, -40);
  auto clean = [tiny](double x) { return std::fabs(x) < tiny ? T(0) : static_cast<T>(x); };
  for (std::size_t i = 0; i < m.size(); ++i) u[i] = std::complex<T>(clean(m[i].real()), clean(m[i].imag()));
  return u;
}

template <class T>
SimResult<T> simulate(const std::vector<Block>& blocks, int n, const SimOptions& options) {
  return resolve_device(options.device) == Device::cuda ? simulate_cuda<T>(blocks, n, options)
                                                         : simulate_host<T>(blocks, n, options);
}

template <class T>
void apply_blocks_host(std::vector<std::complex<T>>& a, int n, const std::vector<Block>& blocks,
                       const SimOptions& options, SimStats& st) {
  using C = std::complex<T>;
  const std::int64_t size = std::int64_t(1) << n;
  if (static_cast<std::int64_t>(a.size()) != size)
    throw tcemu::InvalidArgument("apply_blocks_host: the state has " + std::to_string(a.size()) +
                                 " amplitudes, not 2^" + std::to_string(n));
  std::vector<C> b(static_cast<std::size_t>(size));
  Layout layout = Layout::identity(n);
  auto permute_to = [&](const Layout& target) {
    const auto t0 = Clock::now();
    permute_state(a.data(), b.data(), permutation_tables(layout, target));
    a.swap(b);
    layout = target;
    st.seconds_permute += seconds_since(t0);
    ++st.permutations;
  };
  std::vector<C> u;
  for (std::size_t bi = 0; bi < blocks.size(); ++bi) {
    const Block& blk = blocks[bi];
    const int s = static_cast<int>(blk.qubits.size());
    const int c = static_cast<int>(blk.controls.size());
    if (s < 1 || s + c > n) throw tcemu::InvalidArgument("block " + std::to_string(bi) + " does not fit the circuit");
    const BlockPlan plan = blk.controls.empty() ? plan_dense(layout, blk.qubits)
                                                : plan_controlled(layout, blk.qubits, blk.controls);
    if (plan.permute) permute_to(plan.layout);
    u = block_matrix<T>(reorder_matrix(blk.matrix, blk.qubits, plan.order));
    const std::int64_t d = std::int64_t(1) << s;
    const auto U = tcemu::row_major<const C>(u.data(), d, d);
    const auto t0 = Clock::now();
    tcemu::GemmReport rep;
    if (c > 0) {
      const std::int64_t rows = size >> s, count = rows >> c, first = rows - count;
      const auto M = tcemu::row_major<const C>(a.data() + first * d, count, d);
      const auto out = tcemu::row_major<C>(b.data() + first * d, count, d);
      rep = tcemu::complex_gemm_host<T>(tcemu::Op::N, tcemu::Op::T, C(1), M, U, C(0), out, options.gemm);
      std::memcpy(static_cast<void*>(a.data() + first * d), static_cast<const void*>(b.data() + first * d),
                  static_cast<std::size_t>(count * d) * sizeof(C));
    } else if (plan.placement == Placement::low) {
      const auto M = tcemu::row_major<const C>(a.data(), size >> s, d);
      rep = tcemu::complex_gemm_host<T>(tcemu::Op::N, tcemu::Op::T, C(1), M, U, C(0),
                                        tcemu::row_major<C>(b.data(), size >> s, d), options.gemm);
      a.swap(b);
    } else {
      const auto M = tcemu::row_major<const C>(a.data(), d, size >> s);
      rep = tcemu::complex_gemm_host<T>(tcemu::Op::N, tcemu::Op::N, C(1), U, M, C(0),
                                        tcemu::row_major<C>(b.data(), d, size >> s), options.gemm);
      a.swap(b);
    }
    st.seconds_gemm += seconds_since(t0);
    record(st, rep);
    ++st.blocks;
    if (options.progress) options.progress(bi + 1, blocks.size());
  }
  if (!layout.is_identity()) permute_to(Layout::identity(n));
}

template <class T>
SimResult<T> simulate_host(const std::vector<Block>& blocks, int n, const SimOptions& options) {
  using C = std::complex<T>;
  const auto t_start = Clock::now();
  SimResult<T> res;
  SimStats& st = res.stats;
  std::vector<C> a(std::size_t(1) << n);
  a[0] = C(static_cast<T>(state_scale(n)));
  apply_blocks_host<T>(a, n, blocks, options, st);
  const T inv = static_cast<T>(1.0 / state_scale(n));
  for (auto& z : a) z *= inv;
  res.state = std::move(a);
  st.seconds = seconds_since(t_start);
  return res;
}

template std::vector<std::complex<float>> block_matrix<float>(const Matrix&);
template std::vector<std::complex<double>> block_matrix<double>(const Matrix&);
template SimResult<float> simulate<float>(const std::vector<Block>&, int, const SimOptions&);
template SimResult<double> simulate<double>(const std::vector<Block>&, int, const SimOptions&);
template void apply_blocks_host<float>(std::vector<std::complex<float>>&, int, const std::vector<Block>&,
                                       const SimOptions&, SimStats&);
template void apply_blocks_host<double>(std::vector<std::complex<double>>&, int, const std::vector<Block>&,
                                        const SimOptions&, SimStats&);
template SimResult<float> simulate_host<float>(const std::vector<Block>&, int, const SimOptions&);
template SimResult<double> simulate_host<double>(const std::vector<Block>&, int, const SimOptions&);

}  // namespace qsim
