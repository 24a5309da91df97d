#pragma once
/// \file hybrid.hpp
/// APE hybrid execution (Ma et al., ICS'22, "adaptive precision"; shared/seeds/notes on APE): the rows
/// of op(A) and the columns of op(B) are cut into blocks, each block is labelled by whether its values
/// lie in the fast scheme's exponent range (range_violation() of its own range profile is empty), and
/// every block of C whose row block and column block are both in range is computed with the fast
/// scheme (by default the one whose descriptor has HybridRole::fast, APE's FP32-F); the rest of C
/// with a wide-range scheme (HybridRole::wide, APE's FP32-B, FP32's exponent range). Consecutive blocks with the same label are merged into runs, and each pair of runs
/// is one GEMM call of the backend on sub-views, so the result is one C with no copies. Compared with
/// the per-call range check (which sends the whole product to native arithmetic when any line is out
/// of range), only the out-of-range parts pay for the wider scheme.
///
/// The same orchestration serves both backends through a small adapter (HostBackend here,
/// tcemu::cuda::DeviceBackend in cuda/hybrid_cuda.hpp), so the host result is the reference of the GPU
/// one: both make the same labels and calls.
#include <cstdint>
#include <string>
#include <vector>

#include "tcemu/gemm.hpp"
#include "tcemu/matrix.hpp"
#include "tcemu/range_profile.hpp"

namespace tcemu {

/// Options of gemm_hybrid.
struct HybridOptions {
  /// Scheme of the in-range blocks; default: the descriptor with HybridRole::fast (APE FP32-F).
  Scheme fast = parse_scheme(schemes::hybrid_scheme_name(schemes::HybridRole::fast));
  /// Scheme of everything else (its own range check still applies); default: the descriptor with
  /// HybridRole::wide (APE FP32-B).
  Scheme wide = parse_scheme(schemes::hybrid_scheme_name(schemes::HybridRole::wide));
  std::int64_t block = 1024;             ///< rows of op(A) / columns of op(B) per label (>= 1)
  int max_runs = 8;  ///< more runs than this on either side: one call with `wide` (too many small GEMMs)
  GemmOptions base;  ///< range policy, cost model, CUDA kernels of the sub-calls (scheme is overwritten)
};

/// What gemm_hybrid did.
struct HybridReport {
  std::vector<bool> fast_a;       ///< per row block of op(A): in the fast scheme's range
  std::vector<bool> fast_b;       ///< per column block of op(B)
  int calls_fast = 0, calls_wide = 0;
  double fraction_fast = 0;       ///< share of C's entries computed with the fast scheme
  bool collapsed = false;         ///< true when max_runs was exceeded and one wide call ran
  std::vector<GemmReport> calls;  ///< one per sub-GEMM, in call order
};

/// Host adapter: profile_host and gemm_host.
template <class T>
struct HostBackend {
  RangeProfile profile(MatrixView<const T> x, Side side) const { return profile_host<T>(x, side); }
  GemmReport gemm(MatrixView<const T> a, MatrixView<const T> b, T alpha, T beta, MatrixView<T> c,
                  const GemmOptions& o) const {
    return gemm_host<T>(Op::N, Op::N, alpha, a, b, beta, c, o);
  }
};

namespace detail {
/// Runs of equal labels: [begin, end) block indices.
std::vector<std::pair<std::int64_t, std::int64_t>> label_runs(const std::vector<bool>& labels);
}  // namespace detail

/// C = alpha * op(A) op(B) + beta * C by APE hybrid execution (see the file comment) on `backend`
/// (HostBackend<T> or a device adapter with the same two members). Shapes as gemm_host. Throws
/// InvalidArgument on shape mismatch or block < 1, and whatever the backend throws.
template <class T, class Backend>
HybridReport gemm_hybrid(Op opA, Op opB, T alpha, MatrixView<const T> A, MatrixView<const T> B, T beta,
                         MatrixView<T> C, const HybridOptions& o, const Backend& backend) {
  const MatrixView<const T> a = A.apply(opA), b = B.apply(opB);
  check_gemm_shapes(a.rows, a.cols, b.rows, b.cols, C.rows, C.cols);
  if (o.block < 1) throw InvalidArgument("gemm_hybrid: block must be >= 1, got " + std::to_string(o.block));
  HybridReport rep;
  const std::int64_t m = a.rows, n = b.cols, bs = o.block;
  auto rows_of = [](MatrixView<const T> x, std::int64_t r0, std::int64_t r1) {
    return MatrixView<const T>{x.data + r0 * x.row_stride, r1 - r0, x.cols, x.row_stride, x.col_stride};
  };
  auto cols_of = [](auto x, std::int64_t c0, std::int64_t c1) {
    return decltype(x){x.data + c0 * x.col_stride, x.rows, c1 - c0, x.row_stride, x.col_stride};
  };
  // An operand in range as a whole is in range in every block (the rules are monotone: non-finite
  // count, max |x|, smallest line maximum), so it needs one profile, not one per block.
  const bool a_fast = range_violation(o.fast, backend.profile(a, Side::A)).empty();
  const bool b_fast = range_violation(o.fast, backend.profile(b, Side::B)).empty();
  for (std::int64_t r = 0; r < m; r += bs)
    rep.fast_a.push_back(a_fast ||
                         range_violation(o.fast, backend.profile(rows_of(a, r, std::min(m, r + bs)), Side::A)).empty());
  for (std::int64_t c = 0; c < n; c += bs)
    rep.fast_b.push_back(b_fast ||
                         range_violation(o.fast, backend.profile(cols_of(b, c, std::min(n, c + bs)), Side::B)).empty());
  const auto runs_a = detail::label_runs(rep.fast_a), runs_b = detail::label_runs(rep.fast_b);
  GemmOptions sub = o.base;
  if (static_cast<int>(runs_a.size()) > o.max_runs || static_cast<int>(runs_b.size()) > o.max_runs) {
    rep.collapsed = true;
    sub.scheme = o.wide;
    rep.calls.push_back(backend.gemm(a, b, alpha, beta, C, sub));
    ++rep.calls_wide;
    return rep;
  }
  std::int64_t fast_entries = 0;
  for (const auto& ra : runs_a)
    for (const auto& rb : runs_b) {
      const std::int64_t r0 = ra.first * bs, r1 = std::min(m, ra.second * bs);
      const std::int64_t c0 = rb.first * bs, c1 = std::min(n, rb.second * bs);
      const bool fast = rep.fast_a[ra.first] && rep.fast_b[rb.first];
      sub.scheme = fast ? o.fast : o.wide;
      MatrixView<T> cv{C.data + r0 * C.row_stride + c0 * C.col_stride, r1 - r0, c1 - c0, C.row_stride, C.col_stride};
      rep.calls.push_back(backend.gemm(rows_of(a, r0, r1), cols_of(b, c0, c1), alpha, beta, cv, sub));
      (fast ? rep.calls_fast : rep.calls_wide) += 1;
      if (fast) fast_entries += (r1 - r0) * (c1 - c0);
    }
  rep.fraction_fast = m * n > 0 ? double(fast_entries) / double(m * n) : 0.0;
  return rep;
}

}  // namespace tcemu
