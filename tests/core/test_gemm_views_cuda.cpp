// tcemu::gemm on Kokkos Views in Kokkos::CudaSpace (the CUDA branch of tcemu/gemm.hpp): every scheme,
// LayoutLeft / LayoutRight / LayoutStride (padded, row- and column-major), transposes, alpha/beta,
// against the host backend on host Views holding the same data (docs/kokkos.md).
// Compiles to nothing unless Kokkos has the CUDA backend and tcemu the CUDA backend (a GPU build
// against a CUDA-enabled Kokkos 4, scripts/build_kokkos.sh); skips cleanly when no GPU is present.
#include <Kokkos_Core.hpp>

#if defined(KOKKOS_ENABLE_CUDA) && defined(TCEMU_HAVE_CUDA)
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "tcemu/cuda/gemm_cuda.hpp"
#include "tcemu/gemm.hpp"
#include "tcemu/metrics.hpp"
#include "tcemu/random.hpp"

namespace tcemu::test {
namespace {

#define TCEMU_REQUIRE_GPU_VIEWS()                                              \
  do {                                                                         \
    if (!::tcemu::cuda::device_available()) GTEST_SKIP() << "no CUDA device"; \
  } while (0)

/// The layout object of an r x c View. LayoutStride: variant 0 is row-major with 5 elements of
/// padding per row, variant 1 column-major with 3 per column (sub-views of wider matrices).
template <class L>
L make_layout(std::int64_t r, std::int64_t c, int variant) {
  if constexpr (std::is_same_v<L, Kokkos::LayoutStride>) {
    const auto R = static_cast<std::size_t>(r), C = static_cast<std::size_t>(c);
    return variant == 0 ? Kokkos::LayoutStride(R, C + 5, C, 1) : Kokkos::LayoutStride(R, 1, C, R + 3);
  } else {
    (void)variant;
    return L(static_cast<std::size_t>(r), static_cast<std::size_t>(c));
  }
}

template <class L>
std::string layout_name() {
  if constexpr (std::is_same_v<L, Kokkos::LayoutLeft>) return "LayoutLeft";
  if constexpr (std::is_same_v<L, Kokkos::LayoutRight>) return "LayoutRight";
  return "LayoutStride";
}

/// The same r x c matrix as a host View and a CudaSpace View with identical layouts (and strides), so
/// that the whole allocation (span) copies as one block.
template <class T, class L>
struct ViewPair {
  Kokkos::View<T**, L, Kokkos::HostSpace> h;
  Kokkos::View<T**, L, Kokkos::CudaSpace> d;
  ViewPair(const char* name, std::int64_t r, std::int64_t c, int variant)
      : h(std::string(name) + "_h", make_layout<L>(r, c, variant)),
        d(std::string(name) + "_d", make_layout<L>(r, c, variant)) {}
  MatrixView<T> host() const {
    return {h.data(), std::int64_t(h.extent(0)), std::int64_t(h.extent(1)), std::int64_t(h.stride(0)),
            std::int64_t(h.stride(1))};
  }
  using HostSpan = Kokkos::View<T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using DevSpan = Kokkos::View<T*, Kokkos::CudaSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  void upload() const { Kokkos::deep_copy(DevSpan(d.data(), d.span()), HostSpan(h.data(), h.span())); }
  /// The device contents, laid out as the host View.
  std::vector<T> download() const {
    std::vector<T> out(h.span());
    Kokkos::fence();
    Kokkos::deep_copy(HostSpan(out.data(), out.size()), DevSpan(d.data(), d.span()));
    return out;
  }
};

/// Tolerance of ||device - host||_F / ||R||_F, as in test_cuda_gemm.cpp: the same parts and exact part
/// products on both backends, different FP32 accumulation orders (Tensor Cores vs CBLAS): 1e-5 at
/// these k; FP64 paths to FP64 rounding (Ozaki: the same integers in the same order).
double tolerance(const Scheme& used, bool fp64_data) {
  const bool ozaki = used.name.rfind("int8-ozaki", 0) == 0;
  if (used.name == "fp64") return 1e-14;
  if (ozaki && used.target == Target::fp64 && fp64_data) return 1e-15;
  if (ozaki) return 1e-7;  // FP64 result rounded to float on both sides
  return 1e-5;
}

template <class T, class LA, class LB, class LC>
void check_views(const Scheme& scheme, Op opA, Op opB, std::int64_t m, std::int64_t n, std::int64_t k,
                 int variant, const char* dist, std::uint64_t seed, T alpha, T beta, bool const_operands = false) {
  SCOPED_TRACE(scheme.name + " " + layout_name<LA>() + "/" + layout_name<LB>() + "/" + layout_name<LC>() + " m=" + std::to_string(m) + " n=" + std::to_string(n) +
               " k=" + std::to_string(k) + (opA == Op::T ? " A^T" : "") + (opB == Op::T ? " B^T" : "") +
               " variant " + std::to_string(variant) + " " + dist);
  const bool ta = opA == Op::T, tb = opB == Op::T;
  ViewPair<T, LA> A("A", ta ? k : m, ta ? m : k, variant);
  ViewPair<T, LB> B("B", tb ? n : k, tb ? k : n, 1 - variant);
  ViewPair<T, LC> C("C", m, n, variant);
  fill_random(A.host(), Distribution::parse(dist), seed);
  fill_random(B.host(), Distribution::parse(dist), seed + 1);
  fill_random(C.host(), Distribution::parse("uniform"), seed + 2);
  if (beta == T(0)) {  // poison: C must not be read, and every entry must be written
    for (std::size_t e = 0; e < C.h.span(); ++e) C.h.data()[e] = std::numeric_limits<T>::quiet_NaN();
  }
  A.upload();
  B.upload();
  C.upload();
  std::vector<T> c0(C.h.data(), C.h.data() + C.h.span());

  GemmOptions opt;
  opt.scheme = scheme;
  static const CostModel model = CostModel::h200_anchors();
  opt.cost_model = &model;  // auto decides identically on both backends

  GemmReport rd, rh;
  if (const_operands) {
    const Kokkos::View<const T**, LA, Kokkos::CudaSpace> dA = A.d;
    const Kokkos::View<const T**, LB, Kokkos::CudaSpace> dB = B.d;
    rd = gemm(opA, opB, alpha, dA, dB, beta, C.d, opt);
  } else {
    rd = gemm(opA, opB, alpha, A.d, B.d, beta, C.d, opt);
  }
  const std::vector<T> cd = C.download();
  rh = gemm(opA, opB, alpha, A.h, B.h, beta, C.h, opt);  // HostSpace Views: the host backend
  EXPECT_EQ(rd.used.name, rh.used.name) << rd.note << " | " << rh.note;
  EXPECT_EQ(rd.fell_back, rh.fell_back);
  EXPECT_FALSE(rd.kernels.empty());

  // R = alpha * op(A) op(B) + beta * C0 in FP64, the scale of the comparison.
  std::vector<double> R = reference_gemm_fp64<T>(opA, opB, A.host().as_const(), B.host().as_const());
  const MatrixView<T> ch = C.host();
  double d2 = 0, r2 = 0;
  std::int64_t nonfinite = 0;
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      const std::int64_t e = i * ch.row_stride + j * ch.col_stride;
      double& r = R[i * n + j];
      r = double(alpha) * r + (beta == T(0) ? 0.0 : double(beta) * double(c0[e]));
      nonfinite += !std::isfinite(double(cd[e]));
      const double d = double(cd[e]) - double(ch.data[e]);
      d2 += d * d;
      r2 += r * r;
    }
  EXPECT_EQ(nonfinite, 0);
  const double diff = std::sqrt(d2 / r2);
  EXPECT_LE(diff, tolerance(rd.used, std::is_same_v<T, double>)) << "CudaSpace Views vs host Views";
  // Padding between the rows / columns of a strided C is never written.
  for (std::size_t e = 0; e < C.h.span(); ++e) {
    const std::int64_t i = ch.row_stride == 1 ? std::int64_t(e) % ch.col_stride : std::int64_t(e) / ch.row_stride;
    const std::int64_t j = ch.row_stride == 1 ? std::int64_t(e) / ch.col_stride : std::int64_t(e) % ch.row_stride;
    if (i >= m || j >= n) {
      const bool same = std::isnan(double(c0[e])) ? std::isnan(double(cd[e])) : cd[e] == c0[e];
      EXPECT_TRUE(same) << "padding element " << e << " changed";
    }
  }
}

// Shapes that are not multiples of 8.
constexpr std::int64_t kM = 37, kN = 29, kK = 53;

TEST(CudaGemmViews, EveryFp32SchemeOnFloatViewsInEveryLayout) {
  TCEMU_REQUIRE_GPU_VIEWS();
  std::uint64_t seed = 7000;
  for (const Scheme& s : catalogue(Target::fp32)) {
    check_views<float, Kokkos::LayoutLeft, Kokkos::LayoutLeft, Kokkos::LayoutLeft>(s, Op::N, Op::N, kM, kN, kK, 0,
                                                                                   "uniform", seed++, 1.f, 0.f);
    check_views<float, Kokkos::LayoutRight, Kokkos::LayoutRight, Kokkos::LayoutRight>(s, Op::N, Op::T, kM, kN, kK, 0,
                                                                                      "phi=1", seed++, 1.f, 0.f);
    check_views<float, Kokkos::LayoutStride, Kokkos::LayoutStride, Kokkos::LayoutStride>(s, Op::T, Op::N, kM, kN, kK,
                                                                                         0, "phi=0.1", seed++, 1.f, 0.f);
    check_views<float, Kokkos::LayoutStride, Kokkos::LayoutStride, Kokkos::LayoutStride>(s, Op::T, Op::T, kM, kN, kK,
                                                                                         1, "uniform", seed++, 1.f, 0.f);
  }
}

TEST(CudaGemmViews, EveryFp64SchemeOnDoubleViewsInEveryLayout) {
  TCEMU_REQUIRE_GPU_VIEWS();
  std::uint64_t seed = 7500;
  for (const Scheme& s : catalogue(Target::fp64)) {
    check_views<double, Kokkos::LayoutLeft, Kokkos::LayoutLeft, Kokkos::LayoutLeft>(s, Op::N, Op::N, kM, kN, kK, 0,
                                                                                    "phi=1", seed++, 1.0, 0.0);
    check_views<double, Kokkos::LayoutRight, Kokkos::LayoutRight, Kokkos::LayoutRight>(s, Op::T, Op::N, kM, kN, kK, 0,
                                                                                       "uniform", seed++, 1.0, 0.0);
    check_views<double, Kokkos::LayoutStride, Kokkos::LayoutStride, Kokkos::LayoutStride>(
        s, Op::N, Op::T, kM, kN, kK, 1, "phi=0.1", seed++, 1.0, 0.0);
  }
  // FP32-target schemes on FP64 data (rounded to float first, on both backends).
  for (const char* name : {"fp16x2", "tf32x2", "bf16x3"})
    check_views<double, Kokkos::LayoutStride, Kokkos::LayoutStride, Kokkos::LayoutStride>(
        parse_scheme(name), Op::N, Op::N, kM, kN, kK, 0, "uniform", seed++, 1.0, 0.0);
}

// Mixed layouts in one call, const operand Views, alpha and beta (C read), larger shapes.
TEST(CudaGemmViews, MixedLayoutsConstOperandsAlphaBeta) {
  TCEMU_REQUIRE_GPU_VIEWS();
  std::uint64_t seed = 7900;
  for (const char* name : {"fp32", "fp16x2", "tf32x2", "bf16x3", "bf16x9", "int8-ozaki:5", "auto"}) {
    const Scheme s = parse_scheme(name);
    check_views<float, Kokkos::LayoutRight, Kokkos::LayoutLeft, Kokkos::LayoutStride>(s, Op::N, Op::N, kM, kN, kK, 0,
                                                                                      "uniform", seed++, 0.75f, -0.5f,
                                                                                      /*const_operands=*/true);
    check_views<float, Kokkos::LayoutStride, Kokkos::LayoutRight, Kokkos::LayoutLeft>(
        s, Op::T, Op::T, 301, 257, 515, 1, "phi=1", seed++, 1.f, 0.f);
  }
  for (const char* name : {"fp64", "int8-ozaki", "int8-ozaki:9"})
    check_views<double, Kokkos::LayoutLeft, Kokkos::LayoutStride, Kokkos::LayoutRight>(
        parse_scheme(name, Target::fp64), Op::N, Op::T, kM, kN, kK, 1, "phi=1", seed++, -1.25, 2.0, true);
}

TEST(CudaGemmViews, ShapeMismatchThrowsInvalidArgument) {
  TCEMU_REQUIRE_GPU_VIEWS();
  Kokkos::View<float**, Kokkos::LayoutLeft, Kokkos::CudaSpace> A("A", 8, 5), B("B", 6, 4), C("C", 8, 4);
  GemmOptions opt;
  opt.scheme = parse_scheme("fp16x2");
  EXPECT_THROW(gemm(Op::N, Op::N, 1.f, A, B, 0.f, C, opt), InvalidArgument);
}

}  // namespace
}  // namespace tcemu::test
#endif
