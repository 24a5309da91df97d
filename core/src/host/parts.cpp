// FP32 part schemes on the host: Kokkos split loops + one CBLAS SGEMM per part product. The products
// of FP16/BF16/TF32 parts are exact in FP32, so this reproduces the schemes' arithmetic except the
// Tensor Cores' round-toward-zero accumulation (docs/architecture.md, "Host backend").
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

#include "host/blas.hpp"
#include "host/paths.hpp"
#include "host/workspace.hpp"
#include "tcemu/split.hpp"

namespace tcemu::host {
namespace {

using clock = std::chrono::steady_clock;
double since(clock::time_point t0) { return std::chrono::duration<double>(clock::now() - t0).count(); }

/// Splits x (rows x cols, any strides) into `parts` contiguous row-major FP32 arrays, held in scratch
/// slots first_slot .. first_slot + parts - 1.
template <class T>
std::vector<float*> split_operand(SchemeKind kind, int parts, MatrixView<const T> x, int first_slot) {
  std::vector<float*> out;
  for (int p = 0; p < parts; ++p) out.push_back(scratch<float>(first_slot + p, x.rows * x.cols));
  float* p0 = out[0];
  float* p1 = parts > 1 ? out[1] : nullptr;
  float* p2 = parts > 2 ? out[2] : nullptr;
  const std::int64_t cols = x.cols;
  Kokkos::parallel_for(
      "tcemu::split_host", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, x.rows),
      [=](std::int64_t i) {
        for (std::int64_t j = 0; j < cols; ++j) {
          // FP32-target schemes see FP64 data rounded to FP32 first.
          const split::Parts s = split::split_element(kind, static_cast<float>(x(i, j)));
          p0[i * cols + j] = s.p[0];
          if (p1) p1[i * cols + j] = s.p[1];
          if (p2) p2[i * cols + j] = s.p[2];
        }
      });
  return out;
}

/// Largest finite |x| of each line of x: rows (by_rows) or columns, as split::ozaki_line_exponent
/// needs them, and the operand's maximum (the profile's max_abs).
template <class T>
std::vector<double> line_maxima(MatrixView<const T> x, bool by_rows, double& max_abs) {
  const std::int64_t lines = by_rows ? x.rows : x.cols, len = by_rows ? x.cols : x.rows;
  std::vector<double> mx(static_cast<std::size_t>(lines), 0.0);
  for (std::int64_t l = 0; l < lines; ++l)
    for (std::int64_t j = 0; j < len; ++j) {
      const double v = std::fabs(static_cast<double>(by_rows ? x(l, j) : x(j, l)));
      if (std::isfinite(v) && v > mx[l]) mx[l] = v;
    }
  max_abs = 0;
  for (double v : mx) max_abs = std::max(max_abs, v);
  return mx;
}

/// Line-aligned split (fp16x2-, tf32x2-, bf16x3-aligned) of x into `parts` row-major FP32 arrays
/// (slots first_slot ..): lines are rows (A) or columns (B); returns the operand's scale exponent sigma
/// (split::aligned_scale_exp; 0 for TF32 / BF16 parts).
template <class T>
int split_aligned_operand(SchemeKind kind, int parts, MatrixView<const T> x, bool by_rows, int first_slot,
                          std::vector<float*>& out) {
  double max_abs = 0;
  const std::vector<double> mx = line_maxima(x, by_rows, max_abs);
  const int sigma = split::aligned_scale_exp(kind, max_abs);
  out.clear();
  for (int p = 0; p < parts; ++p) out.push_back(scratch<float>(first_slot + p, x.rows * x.cols));
  float* p0 = out[0];
  float* p1 = out[1];
  float* p2 = parts > 2 ? out[2] : nullptr;
  const double* m = mx.data();
  const std::int64_t cols = x.cols;
  Kokkos::parallel_for(
      "tcemu::split_aligned_host", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, x.rows),
      [=](std::int64_t i) {
        for (std::int64_t j = 0; j < cols; ++j) {
          const int e = split::ozaki_line_exponent(m[by_rows ? i : j]);
          const split::Parts s = split::split_aligned(kind, static_cast<float>(x(i, j)), sigma, e);
          p0[i * cols + j] = s.p[0];
          p1[i * cols + j] = s.p[1];
          if (p2) p2[i * cols + j] = s.p[2];
        }
      });
  return sigma;
}

}  // namespace

template <class T>
void gemm_parts(const Scheme& s, T alpha, MatrixView<const T> a, MatrixView<const T> b, T beta,
                MatrixView<T> C, Timings& t) {
  const std::int64_t m = a.rows, n = b.cols, k = a.cols;
  auto t0 = clock::now();
  std::vector<float*> ap, bp;
  int unscale_exp = 0;  // fp16x2-aligned: the parts hold A * 2^sigma_A and B * 2^sigma_B
  if (s.needs_profile_before_split()) {
    unscale_exp = -split_aligned_operand(s.kind, s.parts, a, true, 0, ap) -
                  split_aligned_operand(s.kind, s.parts, b, false, 3, bp);
  } else {
    ap = split_operand(s.kind, s.parts, a, 0);
    bp = split_operand(s.kind, s.parts, b, 3);
  }
  t.split += since(t0);

  t0 = clock::now();
  std::vector<float*> acc;
  for (std::size_t g = 0; g < s.groups.size(); ++g) acc.push_back(scratch<float>(6 + int(g), m * n));
  for (std::size_t g = 0; g < s.groups.size(); ++g) {
    bool first = true;
    for (const PartProduct& p : s.groups[g].products) {
      sgemm_rm(m, n, k, ap[p.a], bp[p.b], first ? 0.0f : 1.0f, acc[g]);
      first = false;
    }
  }
  t.products += since(t0);

  t0 = clock::now();
  std::vector<const float*> accp;
  std::vector<T> scale;
  for (std::size_t g = 0; g < s.groups.size(); ++g) {
    accp.push_back(acc[g]);
    scale.push_back(static_cast<T>(std::ldexp(1.0, s.groups[g].scale_exp + unscale_exp)));
  }
  const int groups = static_cast<int>(accp.size());
  const float* const* accs = accp.data();
  const T* scales = scale.data();
  Kokkos::parallel_for(
      "tcemu::combine_host", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, m),
      [=](std::int64_t i) {
        for (std::int64_t j = 0; j < n; ++j) {
          T v = 0;
          for (int g = groups - 1; g >= 0; --g) v += static_cast<T>(accs[g][i * n + j]) * scales[g];
          C(i, j) = alpha * v + (beta == T(0) ? T(0) : beta * C(i, j));
        }
      });
  t.combine += since(t0);
}

template <class T>
void gemm_fp64(T alpha, MatrixView<const T> a, MatrixView<const T> b, T beta, MatrixView<T> C,
               Timings& t) {
  const std::int64_t m = a.rows, n = b.cols, k = a.cols;
  auto t0 = clock::now();
  double* adp = scratch<double>(0, m * k);
  double* bdp = scratch<double>(1, k * n);
  double* r = scratch<double>(2, m * n);
  Kokkos::parallel_for(
      "tcemu::copy_fp64", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, m),
      [=](std::int64_t i) {
        for (std::int64_t j = 0; j < k; ++j) adp[i * k + j] = static_cast<double>(a(i, j));
      });
  Kokkos::parallel_for(
      "tcemu::copy_fp64", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, k),
      [=](std::int64_t i) {
        for (std::int64_t j = 0; j < n; ++j) bdp[i * n + j] = static_cast<double>(b(i, j));
      });
  t.split += since(t0);
  t0 = clock::now();
  dgemm_rm(m, n, k, adp, bdp, 0.0, r);
  t.products += since(t0);
  t0 = clock::now();
  const double* rp = r;
  Kokkos::parallel_for(
      "tcemu::combine_fp64", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, m),
      [=](std::int64_t i) {
        for (std::int64_t j = 0; j < n; ++j)
          C(i, j) = static_cast<T>(static_cast<double>(alpha) * rp[i * n + j] +
                                   (beta == T(0) ? 0.0 : static_cast<double>(beta) * C(i, j)));
      });
  t.combine += since(t0);
}

#define TCEMU_INSTANTIATE(T)                                                                      \
  template void gemm_parts<T>(const Scheme&, T, MatrixView<const T>, MatrixView<const T>, T,       \
                              MatrixView<T>, Timings&);                                           \
  template void gemm_fp64<T>(T, MatrixView<const T>, MatrixView<const T>, T, MatrixView<T>, Timings&);
TCEMU_INSTANTIATE(float)
TCEMU_INSTANTIATE(double)
#undef TCEMU_INSTANTIATE

}  // namespace tcemu::host
