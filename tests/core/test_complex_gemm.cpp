// Host complex GEMM (4M over gemm_host): against a naive complex FP64 product, with transposes,
// strided views, complex alpha/beta and the FP32 and FP64 targets.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <vector>

#include "tcemu/complex_gemm.hpp"
#include "tcemu/random.hpp"

namespace tcemu {
namespace {

template <class T>
void fill_complex(std::vector<std::complex<T>>& v, std::uint64_t seed, const char* dist) {
  const auto n = static_cast<std::int64_t>(v.size());
  auto re = MatrixView<std::complex<T>>{v.data(), n, 1, 1, 1};
  fill_random(real_view(re), Distribution::parse(dist), seed);
  fill_random(imag_view(re), Distribution::parse(dist), seed + 7);
}

template <class T>
double run_case(const char* scheme, Target target, Op opA, Op opB, const char* dist) {
  const std::int64_t m = 23, n = 17, k = 41;
  using Z = std::complex<T>;
  // A stored k x m row-major when transposed; B stored with padded leading dimension.
  std::vector<Z> A(m * k), B((k + 2) * n), C(m * n), C0;
  fill_complex(A, 1, dist);
  fill_complex(B, 2, dist);
  fill_complex(C, 3, "uniform");
  C0 = C;
  const MatrixView<const Z> a = opA == Op::N ? MatrixView<const Z>{A.data(), m, k, k, 1}
                                             : MatrixView<const Z>{A.data(), k, m, m, 1};
  const MatrixView<const Z> b = opB == Op::N ? MatrixView<const Z>{B.data(), k, n, 1, k + 2}
                                             : MatrixView<const Z>{B.data(), n, k, k + 2, 1};
  const Z alpha(0.5, -1.25), beta(-0.75, 0.5);
  GemmOptions opt;
  opt.scheme = parse_scheme(scheme, target);
  const GemmReport rep = complex_gemm_host<T>(opA, opB, alpha, a, b, beta, row_major(C.data(), m, n), opt);
  EXPECT_FALSE(rep.fell_back) << rep.note;
  const auto oa = a.apply(opA), ob = b.apply(opB);
  double d2 = 0, r2 = 0;
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      std::complex<double> s = 0;
      for (std::int64_t l = 0; l < k; ++l)
        s += std::complex<double>(oa(i, l)) * std::complex<double>(ob(l, j));
      const std::complex<double> r = std::complex<double>(alpha) * s +
                                     std::complex<double>(beta) * std::complex<double>(C0[i * n + j]);
      d2 += std::norm(std::complex<double>(C[i * n + j]) - r);
      r2 += std::norm(r);
    }
  return std::sqrt(d2 / r2);
}

TEST(ComplexGemmHost, Fp32SchemesMatchFp64Reference) {
  for (const char* s : {"fp32", "fp16x2", "bf16x3", "tf32x2", "int8-ozaki"})
    for (Op oa : {Op::N, Op::T})
      for (Op ob : {Op::N, Op::T}) EXPECT_LE(run_case<float>(s, Target::fp32, oa, ob, "uniform"), 2e-6) << s;
}

TEST(ComplexGemmHost, Fp64TargetOzakiMatchesFp64) {
  for (const char* d : {"phi=0.1", "phi=1"}) {
    EXPECT_LE(run_case<double>("fp64", Target::fp64, Op::N, Op::T, d), 1e-14);
    EXPECT_LE(run_case<double>("int8-ozaki", Target::fp64, Op::T, Op::N, d), 1e-14);
  }
}

}  // namespace
}  // namespace tcemu
