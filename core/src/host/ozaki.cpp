// Ozaki scheme on INT8 slices, host reference (ozIMMU; shared/seeds/notes/004_OzakiIMMU.md).
//
// Each row i of op(A) gets a power-of-two scale 2^eA[i] above its largest |x| and is cut into s
// fixed-point slices of 7 bits (split::ozaki_slices); columns of op(B) likewise. Then
//   C_ij ~= 2^(eA_i + eB_j) * sum_{g=2}^{s+1} 2^(-7g) * sum_{p+q=g} (A(p) B(q))_ij,
// keeping the s(s+1)/2 slice products with p + q <= s + 1. Slice values are integers <= 127, so their
// DGEMM products are exact integers (sums stay far below 2^53), exactly what INT8 Tensor Cores with
// INT32 accumulation produce for k <= 2^17; the host needs no k chunking. The FP64 sum over g runs
// from the least significant group up. Work is blocked over rows and columns so that the FP64 copies
// of the slices stay within a fixed memory budget.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

#include "host/blas.hpp"
#include "host/paths.hpp"
#include "tcemu/error.hpp"
#include "tcemu/split.hpp"
#include "tcemu/schemes/ozaki.hpp"

namespace tcemu::host {
namespace {
using clock = std::chrono::steady_clock;
double since(clock::time_point t0) { return std::chrono::duration<double>(clock::now() - t0).count(); }
constexpr std::int64_t kBudgetBytes = std::int64_t{256} << 20;  // per operand block of slices
}  // namespace

template <class T>
void gemm_ozaki(int slices, T alpha, MatrixView<const T> a, MatrixView<const T> b, T beta,
                MatrixView<T> C, Timings& t) {
  const std::int64_t m = a.rows, n = b.cols, k = a.cols;
  const int s = slices;
  const int bits = 7;
  if (s < 1 || s > schemes::kOzakiMaxSlices)
    throw InvalidArgument(std::string(schemes::Int8Ozaki::desc.name) + ": slice count " + std::to_string(s) + " is outside 1.." +
                          std::to_string(schemes::kOzakiMaxSlices));
  const schemes::OzakiTriangle& tri = schemes::kOzakiTriangles.t[s];
  auto t0 = clock::now();
  // Line exponents.
  std::vector<int> ea(m), eb(n);
  int* eap = ea.data();
  int* ebp = eb.data();
  Kokkos::parallel_for(
      "tcemu::ozaki_exp_a", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, m),
      [=](std::int64_t i) {
        double mx = 0;
        for (std::int64_t l = 0; l < k; ++l) mx = std::max(mx, std::fabs(static_cast<double>(a(i, l))));
        eap[i] = split::ozaki_line_exponent(mx);
      });
  Kokkos::parallel_for(
      "tcemu::ozaki_exp_b", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, n),
      [=](std::int64_t j) {
        double mx = 0;
        for (std::int64_t l = 0; l < k; ++l) mx = std::max(mx, std::fabs(static_cast<double>(b(l, j))));
        ebp[j] = split::ozaki_line_exponent(mx);
      });
  t.split += since(t0);

  const std::int64_t per_line = std::int64_t{8} * s * k;
  const std::int64_t mb = std::clamp<std::int64_t>(kBudgetBytes / per_line, 64, std::max<std::int64_t>(m, 1));
  const std::int64_t nb = std::clamp<std::int64_t>(kBudgetBytes / per_line, 64, std::max<std::int64_t>(n, 1));
  std::vector<double> as(static_cast<std::size_t>(s) * std::min(mb, m) * k);
  std::vector<double> bs(static_cast<std::size_t>(s) * k * std::min(nb, n));
  std::vector<double> acc(std::min(mb, m) * std::min(nb, n)), sum(acc.size());

  for (std::int64_t i0 = 0; i0 < m; i0 += mb) {
    const std::int64_t mr = std::min(mb, m - i0);
    t0 = clock::now();
    double* asp = as.data();
    Kokkos::parallel_for(
        "tcemu::ozaki_slice_a", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, mr),
        [=](std::int64_t i) {
          for (std::int64_t l = 0; l < k; ++l)  // slice p of row i at asp[p*mr*k + i*k + l]
            split::ozaki_slices(static_cast<double>(a(i0 + i, l)), eap[i0 + i], bits, s,
                                asp + i * k + l, mr * k);
        });
    t.split += since(t0);
    for (std::int64_t j0 = 0; j0 < n; j0 += nb) {
      const std::int64_t nr = std::min(nb, n - j0);
      t0 = clock::now();
      double* bsp = bs.data();
      Kokkos::parallel_for(
          "tcemu::ozaki_slice_b", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, k),
          [=](std::int64_t l) {
            for (std::int64_t j = 0; j < nr; ++j)  // slice q of column j at bsp[q*k*nr + l*nr + j]
              split::ozaki_slices(static_cast<double>(b(l, j0 + j)), ebp[j0 + j], bits, s,
                                  bsp + l * nr + j, k * nr);
          });
      t.split += since(t0);

      std::fill(sum.begin(), sum.begin() + mr * nr, 0.0);
      // The product triangle (schemes/ozaki.hpp), least significant group first; each group's
      // products accumulate exactly in acc, then go into the FP64 sum with weight 2^(-7g).
      for (int i = 0; i < tri.size;) {
        const int g = tri.products[i].g;
        t0 = clock::now();
        for (int j = 0; j < tri.count(g); ++j, ++i) {
          const schemes::OzakiProduct& pq = tri.products[i];
          dgemm_rm(mr, nr, k, as.data() + (pq.p - 1) * mr * k, bs.data() + (pq.q - 1) * k * nr,
                   j == 0 ? 0.0 : 1.0, acc.data());
        }
        t.products += since(t0);
        t0 = clock::now();
        const double w = std::ldexp(1.0, -bits * g);
        for (std::int64_t e = 0; e < mr * nr; ++e) sum[e] += acc[e] * w;
        t.combine += since(t0);
      }
      t0 = clock::now();
      const double* sp = sum.data();
      Kokkos::parallel_for(
          "tcemu::ozaki_combine", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, mr),
          [=](std::int64_t i) {
            for (std::int64_t j = 0; j < nr; ++j) {
              const double v = std::ldexp(sp[i * nr + j], eap[i0 + i] + ebp[j0 + j]);
              T& c = C(i0 + i, j0 + j);
              c = static_cast<T>(static_cast<double>(alpha) * v +
                                 (beta == T(0) ? 0.0 : static_cast<double>(beta) * c));
            }
          });
      t.combine += since(t0);
    }
  }
}

template void gemm_ozaki<float>(int, float, MatrixView<const float>, MatrixView<const float>, float,
                                MatrixView<float>, Timings&);
template void gemm_ozaki<double>(int, double, MatrixView<const double>, MatrixView<const double>,
                                 double, MatrixView<double>, Timings&);

}  // namespace tcemu::host
