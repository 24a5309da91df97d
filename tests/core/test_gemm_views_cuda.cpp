// tcemu::gemm on Kokkos Views in CUDA memory (tcemu/gemm.hpp; docs/kokkos.md): the default-instance
// entry and the execution-space entry on a Kokkos::Cuda instance of its own stream with a
// caller-owned tcemu::Resources; real (float, double) and complex (Kokkos::complex<float|double>)
// Views in LayoutLeft / LayoutRight / LayoutStride (padded, row- and column-major), every scheme of the
// catalogue, transposes, alpha/beta, against the host backend on host Views holding the same data;
// CudaUVMSpace and CudaHostPinnedSpace Views; stream ordering; the memory-space errors.
// Compiles to nothing unless Kokkos has the CUDA backend and tcemu the CUDA backend (a GPU build
// against a CUDA-enabled Kokkos 4, scripts/build_kokkos.sh); skips cleanly when no GPU is present.
#include <Kokkos_Core.hpp>

#if defined(KOKKOS_ENABLE_CUDA) && defined(TCEMU_HAVE_CUDA)
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "tcemu/cuda/gemm_cuda.hpp"
#include "tcemu/gemm.hpp"
#include "tcemu/resources.hpp"
#include "view_test_util.hpp"

namespace tcemu::test {
namespace {

using namespace views;
using HostExec = Kokkos::DefaultHostExecutionSpace;

#define TCEMU_REQUIRE_GPU_VIEWS()                                              \
  do {                                                                         \
    if (!::tcemu::cuda::device_available()) GTEST_SKIP() << "no CUDA device"; \
  } while (0)

/// The same r x c matrix as a host View and a View in memory space M (CudaSpace, CudaUVMSpace or
/// CudaHostPinnedSpace) with identical layouts (and strides), so that the whole allocation (span)
/// copies as one block.
template <class V, class L, class M = Kokkos::CudaSpace>
struct ViewPair {
  Kokkos::View<V**, L, Kokkos::HostSpace> h;
  Kokkos::View<V**, L, M> d;
  ViewPair(const char* name, std::int64_t r, std::int64_t c, int variant)
      : h(std::string(name) + "_h", make_layout<L>(r, c, variant)),
        d(std::string(name) + "_d", make_layout<L>(r, c, variant)) {}
  using HostSpan = Kokkos::View<V*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using DevSpan = Kokkos::View<V*, M, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  void upload() const {
    Kokkos::deep_copy(DevSpan(d.data(), d.span()), HostSpan(h.data(), h.span()));
    Kokkos::fence();
  }
  /// The device contents, laid out as the host View.
  std::vector<V> download() const {
    std::vector<V> out(h.span());
    Kokkos::fence();
    Kokkos::deep_copy(HostSpan(out.data(), out.size()), DevSpan(d.data(), d.span()));
    return out;
  }
};

/// Tolerance of ||C_device - C_host||_F / ||R||_F. Real, and complex by 4M (the host's method): the
/// same parts and exact part products on both backends, different FP32 accumulation orders (Tensor
/// Cores vs CBLAS): 1e-5 at these k; FP64 paths to FP64 rounding (Ozaki: the same integers in the same
/// order; complex adds one differently rounded combine). The complex real embedding (one real GEMM
/// of length 2k, line profiles over real and imaginary parts) differs from 4M at the scheme's own
/// accuracy: views::tolerance.
double tolerance(const Scheme& used, bool fp64_data, bool complex, bool embedding) {
  if (embedding) return views::tolerance(used, fp64_data ? 53 : 24);
  const bool ozaki = used.name.rfind("int8-ozaki", 0) == 0;
  if (used.name == "fp64") return 1e-14;
  if (ozaki && used.target == Target::fp64 && fp64_data) return complex ? 1e-14 : 1e-15;
  if (ozaki && !complex) return 1e-7;  // FP64 result rounded to float on both sides
  return 1e-5;
}

/// How check_views calls the View entry on the device Views.
struct How {
  bool instance = false;          ///< the execution-space entry on `exec` (else the default-instance entry)
  Kokkos::Cuda* exec = nullptr;   ///< the instance (instance == true)
  Resources* resources = nullptr; ///< passed to the execution-space entry when set
  bool const_operands = false;    ///< A and B as const Views
  ComplexMethod complex = ComplexMethod::four_m;  ///< complex Views: 4M (the host's) or automatic
};

/// A Kokkos::Cuda instance on a stream of its own (not the default instance's).
struct OwnStream {
  cudaStream_t stream = nullptr;
  Kokkos::Cuda exec;
  OwnStream() {
    if (cudaStreamCreate(&stream) != cudaSuccess) throw DeviceError("cudaStreamCreate failed");
    exec = Kokkos::Cuda(stream);
  }
  ~OwnStream() {
    exec.fence();
    exec = Kokkos::Cuda();
    cudaStreamDestroy(stream);
  }
};

template <class V, class LA, class LB, class LC, class M = Kokkos::CudaSpace>
void check_views(const Scheme& scheme, Op opA, Op opB, std::int64_t m, std::int64_t n, std::int64_t k, int variant,
                 const char* dist, std::uint64_t seed, V alpha, V beta, const How& how = {}) {
  using T = CoreT<V>;
  constexpr bool cplx = views::is_complex<V>::value;
  const bool embedding = cplx && how.complex != ComplexMethod::four_m;
  SCOPED_TRACE(scheme.name + " " + layout_name<LA>() + "/" + layout_name<LB>() + "/" + layout_name<LC>() +
               (cplx ? (embedding ? " complex (automatic)" : " complex (4M)") : " real") + " in " +
               ::tcemu::detail::view_space_name<M>() + (how.instance ? " on an instance" : " default instance") +
               " m=" + std::to_string(m) + " n=" + std::to_string(n) + " k=" + std::to_string(k) +
               (opA == Op::T ? " A^T" : "") + (opB == Op::T ? " B^T" : "") + " variant " + std::to_string(variant) +
               " " + dist);
  const bool ta = opA == Op::T, tb = opB == Op::T;
  ViewPair<V, LA, M> A("A", ta ? k : m, ta ? m : k, variant);
  ViewPair<V, LB, M> B("B", tb ? n : k, tb ? k : n, 1 - variant);
  ViewPair<V, LC, M> C("C", m, n, variant);
  fill(A.h, dist, seed);
  fill(B.h, dist, seed + 1);
  fill(C.h, "uniform", seed + 2);
  if (to_z(beta) == std::complex<double>(0.0)) poison(C.h);  // C must not be read; every entry written
  A.upload();
  B.upload();
  C.upload();
  const auto ch = ::tcemu::detail::to_matrix_view(C.h);
  const std::vector<T> c0(ch.data, ch.data + C.h.span());

  GemmOptions opt;
  opt.scheme = scheme;
  static const CostModel model = CostModel::h200_anchors();
  opt.cost_model = &model;  // auto decides identically on both backends
  opt.execution.complex = how.complex;

  GemmReport rd;
  const Kokkos::View<const V**, LA, M> cA = A.d;
  const Kokkos::View<const V**, LB, M> cB = B.d;
  if (how.instance && how.resources) {
    rd = how.const_operands ? gemm(*how.exec, opA, opB, alpha, cA, cB, beta, C.d, opt, *how.resources)
                            : gemm(*how.exec, opA, opB, alpha, A.d, B.d, beta, C.d, opt, *how.resources);
  } else if (how.instance) {
    rd = how.const_operands ? gemm(*how.exec, opA, opB, alpha, cA, cB, beta, C.d, opt)
                            : gemm(*how.exec, opA, opB, alpha, A.d, B.d, beta, C.d, opt);
  } else {
    rd = how.const_operands ? gemm(opA, opB, alpha, cA, cB, beta, C.d, opt) : gemm(opA, opB, alpha, A.d, B.d, beta, C.d, opt);
  }
  const std::vector<V> cd_v = C.download();
  const T* cd = reinterpret_cast<const T*>(cd_v.data());
  const GemmReport rh = gemm(HostExec(), opA, opB, alpha, A.h, B.h, beta, C.h, opt);  // the host backend
  EXPECT_EQ(rh.kernels.rfind("host (", 0), 0u) << rh.kernels;  // CBLAS, or int8-crt's reference loops
  EXPECT_NE(rd.kernels.rfind("host (", 0), 0u) << "Views in " << ::tcemu::detail::view_space_name<M>() << " ran on the host";
  EXPECT_FALSE(rd.kernels.empty());
  if (!embedding) {
    EXPECT_EQ(rd.used.name, rh.used.name) << rd.note << " | " << rh.note;
    EXPECT_EQ(rd.fell_back, rh.fell_back);
  }

  // R = alpha * op(A) op(B) + beta * C0 in FP64, the scale of the comparison.
  const auto R = reference<T>(opA, opB, ::tcemu::detail::to_core_scalar(alpha),
                              ::tcemu::detail::to_matrix_view(A.h).as_const(),
                              ::tcemu::detail::to_matrix_view(B.h).as_const(), ::tcemu::detail::to_core_scalar(beta),
                              c0, ch.row_stride, ch.col_stride);
  double d2 = 0, e2 = 0, h2 = 0, r2 = 0;
  std::int64_t nonfinite = 0;
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      const std::int64_t e = i * ch.row_stride + j * ch.col_stride;
      const std::complex<double> x = to_z(cd[e]), r = R[i * n + j];
      nonfinite += !std::isfinite(x.real()) || !std::isfinite(x.imag());
      d2 += std::norm(x - to_z(ch.data[e]));
      e2 += std::norm(x - r);
      h2 += std::norm(to_z(ch.data[e]) - r);
      r2 += std::norm(r);
    }
  EXPECT_EQ(nonfinite, 0);
  const bool fp64_data = std::is_same_v<RealT<V>, double>;
  EXPECT_LE(std::sqrt(d2 / r2), tolerance(rd.used, fp64_data, cplx, embedding)) << "device Views vs host Views";
  // Against the FP64 reference: within the scheme's accuracy (views::tolerance), or at most 8 times
  // the host's own error where that is larger (long k, wide exponent ranges).
  const double host_err = std::sqrt(h2 / r2);
  EXPECT_LE(std::sqrt(e2 / r2), std::max(views::tolerance(rd.used, data_bits<V>()), 8 * host_err))
      << "device Views vs the FP64 reference (host: " << host_err << ")";
  // Padding between the rows / columns of a strided C is never written.
  EXPECT_EQ(padding_changed(cd, c0, m, n, ch.row_stride, ch.col_stride), 0);
}

// Shapes that are not multiples of 8.
constexpr std::int64_t kM = 37, kN = 29, kK = 53;
constexpr std::int64_t kZm = 23, kZn = 17, kZk = 41;

using LL = Kokkos::LayoutLeft;
using LR = Kokkos::LayoutRight;
using LS = Kokkos::LayoutStride;

TEST(CudaGemmViews, EveryFp32SchemeOnFloatViewsInEveryLayout) {
  TCEMU_REQUIRE_GPU_VIEWS();
  std::uint64_t seed = 7000;
  for (const Scheme& s : catalogue(Target::fp32)) {
    check_views<float, LL, LL, LL>(s, Op::N, Op::N, kM, kN, kK, 0, "uniform", seed++, 1.f, 0.f);
    check_views<float, LR, LR, LR>(s, Op::N, Op::T, kM, kN, kK, 0, "phi=1", seed++, 1.f, 0.f);
    check_views<float, LS, LS, LS>(s, Op::T, Op::N, kM, kN, kK, 0, "phi=0.1", seed++, 1.f, 0.f);
    check_views<float, LS, LS, LS>(s, Op::T, Op::T, kM, kN, kK, 1, "uniform", seed++, 1.f, 0.f);
  }
}

TEST(CudaGemmViews, EveryFp64SchemeOnDoubleViewsInEveryLayout) {
  TCEMU_REQUIRE_GPU_VIEWS();
  std::uint64_t seed = 7500;
  for (const Scheme& s : catalogue(Target::fp64)) {
    check_views<double, LL, LL, LL>(s, Op::N, Op::N, kM, kN, kK, 0, "phi=1", seed++, 1.0, 0.0);
    check_views<double, LR, LR, LR>(s, Op::T, Op::N, kM, kN, kK, 0, "uniform", seed++, 1.0, 0.0);
    check_views<double, LS, LS, LS>(s, Op::N, Op::T, kM, kN, kK, 1, "phi=0.1", seed++, 1.0, 0.0);
  }
  // FP32-target schemes on FP64 data (rounded to float first, on both backends).
  for (const char* name : {"fp16x2", "tf32x2", "bf16x3"})
    check_views<double, LS, LS, LS>(parse_scheme(name), Op::N, Op::N, kM, kN, kK, 0, "uniform", seed++, 1.0, 0.0);
}

// Mixed layouts in one call, const operand Views, alpha and beta (C read), larger shapes.
TEST(CudaGemmViews, MixedLayoutsConstOperandsAlphaBeta) {
  TCEMU_REQUIRE_GPU_VIEWS();
  std::uint64_t seed = 7900;
  How c;
  c.const_operands = true;
  for (const char* name : {"fp32", "fp16x2", "tf32x2", "bf16x3", "bf16x9", "int8-ozaki:5", "auto"}) {
    const Scheme s = parse_scheme(name);
    check_views<float, LR, LL, LS>(s, Op::N, Op::N, kM, kN, kK, 0, "uniform", seed++, 0.75f, -0.5f, c);
    check_views<float, LS, LR, LL>(s, Op::T, Op::T, 301, 257, 515, 1, "phi=1", seed++, 1.f, 0.f);
  }
  for (const char* name : {"fp64", "int8-ozaki", "int8-ozaki:9"})
    check_views<double, LL, LS, LR>(parse_scheme(name, Target::fp64), Op::N, Op::T, kM, kN, kK, 1, "phi=1", seed++,
                                    -1.25, 2.0, c);
}

// The execution-space entry on a Kokkos::Cuda instance of its own stream, with one Resources
// object reused by every call: real Views, every scheme, three layouts.
TEST(CudaGemmViews, InstanceEntryEverySchemeRealViewsWithResources) {
  TCEMU_REQUIRE_GPU_VIEWS();
  OwnStream own;
  Resources res;
  How h;
  h.instance = true;
  h.exec = &own.exec;
  h.resources = &res;
  std::uint64_t seed = 8000;
  for (const Scheme& s : catalogue(Target::fp32)) {
    check_views<float, LL, LL, LL>(s, Op::N, Op::T, kM, kN, kK, 0, "uniform", seed++, 1.f, 0.f, h);
    check_views<float, LR, LR, LR>(s, Op::T, Op::N, kM, kN, kK, 0, "phi=0.1", seed++, 0.5f, 2.f, h);
    check_views<float, LS, LS, LS>(s, Op::N, Op::N, kM, kN, kK, 1, "uniform", seed++, 1.f, 0.f, h);
  }
  for (const Scheme& s : catalogue(Target::fp64)) {
    check_views<double, LL, LL, LL>(s, Op::T, Op::T, kM, kN, kK, 0, "phi=1", seed++, 1.0, 0.0, h);
    check_views<double, LR, LR, LR>(s, Op::N, Op::N, kM, kN, kK, 0, "uniform", seed++, 1.0, -1.0, h);
    check_views<double, LS, LS, LS>(s, Op::T, Op::N, kM, kN, kK, 0, "phi=0.1", seed++, 1.0, 0.0, h);
  }
  EXPECT_GT(res.device_bytes_reserved(), 0u);  // the calls used the caller's workspace
  res.release();
  EXPECT_EQ(res.device_bytes_reserved(), 0u);
  check_views<float, LR, LL, LS>(parse_scheme("fp16x2"), Op::N, Op::N, kM, kN, kK, 0, "uniform", seed++, 1.f, 0.f, h);
  EXPECT_GT(res.device_bytes_reserved(), 0u);
}

// Complex Views (Kokkos::complex<float|double>) through the execution-space entry: every scheme,
// three layouts, by 4M (the host's method, compared tightly) and by the automatic method (the real
// embedding where it applies: LayoutRight C and row-major op(A), real alpha and beta).
TEST(CudaGemmViews, InstanceEntryEverySchemeComplexViews) {
  TCEMU_REQUIRE_GPU_VIEWS();
  using Zf = Kokkos::complex<float>;
  using Zd = Kokkos::complex<double>;
  OwnStream own;
  Resources res;
  How h;
  h.instance = true;
  h.exec = &own.exec;
  h.resources = &res;
  How embed = h;
  embed.complex = ComplexMethod::automatic;
  std::uint64_t seed = 8500;
  for (const Scheme& s : catalogue(Target::fp32)) {
    check_views<Zf, LL, LL, LL>(s, Op::N, Op::N, kZm, kZn, kZk, 0, "uniform", seed++, Zf(1), Zf(0), h);
    check_views<Zf, LR, LR, LR>(s, Op::T, Op::N, kZm, kZn, kZk, 0, "phi=0.1", seed++, Zf(0.5f, -1.25f), Zf(0), h);
    check_views<Zf, LS, LS, LS>(s, Op::N, Op::T, kZm, kZn, kZk, 0, "uniform", seed++, Zf(1), Zf(-0.75f, 0.5f), h);
    check_views<Zf, LS, LS, LS>(s, Op::T, Op::T, kZm, kZn, kZk, 1, "phi=0.1", seed++, Zf(1), Zf(0), h);
    check_views<Zf, LR, LL, LR>(s, Op::N, Op::N, kZm, kZn, kZk, 0, "uniform", seed++, Zf(1), Zf(0), embed);
  }
  for (const Scheme& s : catalogue(Target::fp64)) {
    check_views<Zd, LL, LL, LL>(s, Op::N, Op::T, kZm, kZn, kZk, 0, "uniform", seed++, Zd(1), Zd(0), h);
    check_views<Zd, LR, LR, LR>(s, Op::N, Op::N, kZm, kZn, kZk, 0, "phi=0.1", seed++, Zd(-1.0, 0.5), Zd(2.0, 0.0), h);
    check_views<Zd, LS, LS, LS>(s, Op::T, Op::N, kZm, kZn, kZk, 1, "uniform", seed++, Zd(1), Zd(0), h);
    check_views<Zd, LR, LS, LR>(s, Op::N, Op::T, kZm, kZn, kZk, 0, "uniform", seed++, Zd(1), Zd(0), embed);
  }
  // The default-instance entry on complex CudaSpace Views.
  check_views<Zf, LS, LR, LL>(parse_scheme("fp16x2"), Op::T, Op::N, kZm, kZn, kZk, 1, "uniform", seed++, Zf(1, 1),
                              Zf(0), How{});
}

// CudaUVMSpace and CudaHostPinnedSpace Views on the GPU: the default-instance entry runs UVM Views on
// the GPU; both spaces work on a Kokkos::Cuda instance (read and written in place by the kernels).
TEST(CudaGemmViews, UvmAndPinnedViewsRunOnTheGpu) {
  TCEMU_REQUIRE_GPU_VIEWS();
  using Zf = Kokkos::complex<float>;
  using Uvm = Kokkos::CudaUVMSpace;
  using Pinned = Kokkos::CudaHostPinnedSpace;
  OwnStream own;
  Resources res;
  How h;
  h.instance = true;
  h.exec = &own.exec;
  h.resources = &res;
  std::uint64_t seed = 9000;
  for (const char* name : {"fp32", "fp16x2", "bf16x9", "tf32x2-aligned", "int8-ozaki", "int8-mixpert", "auto"}) {
    const Scheme s = parse_scheme(name);
    check_views<float, LR, LL, LS, Uvm>(s, Op::N, Op::T, kM, kN, kK, 0, "uniform", seed++, 1.f, 0.f);
    check_views<float, LS, LR, LL, Uvm>(s, Op::T, Op::N, kM, kN, kK, 1, "uniform", seed++, 1.f, 0.5f, h);
    check_views<float, LL, LS, LR, Pinned>(s, Op::N, Op::N, kM, kN, kK, 0, "phi=0.1", seed++, 1.f, 0.f, h);
    check_views<Zf, LR, LR, LR, Uvm>(s, Op::N, Op::N, kZm, kZn, kZk, 0, "uniform", seed++, Zf(1), Zf(0), h);
    check_views<Zf, LS, LL, LS, Pinned>(s, Op::T, Op::T, kZm, kZn, kZk, 1, "uniform", seed++, Zf(1), Zf(0), h);
  }
  check_views<double, LL, LL, LL, Uvm>(parse_scheme("int8-ozaki", Target::fp64), Op::N, Op::N, kM, kN, kK, 0,
                                       "phi=1", seed++, 1.0, 0.0, h);
}

/// Fills a View of the length of `v`'s span with a deterministic pattern in [-1, 1] after a slow
/// spin per element, so that work queued after it on another stream would overtake it.
struct SlowFill {
  Kokkos::View<float*, Kokkos::CudaSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> v;
  int spin;
  KOKKOS_INLINE_FUNCTION static float pattern(int e) {
    return float((static_cast<unsigned>(e) * 2654435761u) % 2001u) / 1000.f - 1.f;
  }
  KOKKOS_INLINE_FUNCTION void operator()(const int e) const {
    float x = 0.5f;
    for (int i = 0; i < spin; ++i) x = x * 0.9999f + 1e-4f * float(i & 7);
    v(e) = pattern(e) + (x > 1e30f ? 1.f : 0.f);
  }
};

// Work queued on the instance before the call runs first (the call uses the instance's stream), in
// synchronous and asynchronous (Resources::synchronous = false, then space.fence()) calls.
TEST(CudaGemmViews, InstanceStreamOrderAndAsynchronousCalls) {
  TCEMU_REQUIRE_GPU_VIEWS();
  OwnStream own;
  Resources res;
  const std::int64_t m = 256, n = 192, k = 320;
  for (bool synchronous : {true, false}) {
    for (const char* name : {"fp32", "fp16x2", "int8-ozaki"}) {
      SCOPED_TRACE(std::string(name) + (synchronous ? " synchronous" : " asynchronous"));
      res.synchronous = synchronous;
      Kokkos::View<float**, LR, Kokkos::CudaSpace> A("A", m, k), B("B", k, n), C("C", m, n);
      Kokkos::View<float**, LR, Kokkos::HostSpace> hA("hA", m, k), hB("hB", k, n), hC("hC", m, n);
      fill(hB, "uniform", 11);
      Kokkos::deep_copy(B, hB);
      for (std::int64_t e = 0; e < m * k; ++e) hA.data()[e] = SlowFill::pattern(int(e));
      Kokkos::fence();
      // A is written on the instance by a slow kernel, and the GEMM is queued right behind it.
      Kokkos::parallel_for("slow_fill", Kokkos::RangePolicy<Kokkos::Cuda>(own.exec, 0, int(m * k)),
                           SlowFill{decltype(SlowFill::v)(A.data(), std::size_t(m * k)), 200000});
      GemmOptions opt;
      opt.scheme = parse_scheme(name);
      const GemmReport r = gemm(own.exec, Op::N, Op::N, 1.f, A, B, 0.f, C, opt, res);
      if (!synchronous) {
        EXPECT_EQ(r.seconds_products, 0.0);  // not measured in asynchronous calls
        own.exec.fence();
      }
      auto dC = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), C);
      const GemmReport rh = gemm(HostExec(), Op::N, Op::N, 1.f, hA, hB, 0.f, hC, opt);
      EXPECT_EQ(r.used.name, rh.used.name);
      double d2 = 0, r2 = 0;
      for (std::int64_t i = 0; i < m; ++i)
        for (std::int64_t j = 0; j < n; ++j) {
          const double d = double(dC(i, j)) - double(hC(i, j));
          d2 += d * d;
          r2 += double(hC(i, j)) * double(hC(i, j));
        }
      EXPECT_LE(std::sqrt(d2 / r2), 1e-5);
    }
  }
}

template <class Fn>
std::string message_of(Fn fn) {
  try {
    fn();
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return "(no InvalidArgument)";
}

TEST(CudaGemmViews, MemorySpaceErrorsNameTheOperandAndTheSpace) {
  TCEMU_REQUIRE_GPU_VIEWS();
  using Zf = Kokkos::complex<float>;
  Kokkos::View<float**, LL, Kokkos::CudaSpace> dA("dA", 8, 5), dB("dB", 5, 4), dC("dC", 8, 4);
  Kokkos::View<float**, LL, Kokkos::HostSpace> hB("hB", 5, 4);
  Kokkos::View<Zf**, LR, Kokkos::CudaHostPinnedSpace> pA("pA", 8, 5), pB("pB", 5, 4), pC("pC", 8, 4);
  Kokkos::View<Zf**, LR, Kokkos::CudaSpace> zB("zB", 5, 4);
  // Host Views on a Kokkos::Cuda instance.
  std::string msg = message_of([&] { gemm(Kokkos::Cuda(), Op::N, Op::N, 1.f, dA, hB, 0.f, dC); });
  EXPECT_NE(msg.find("B is in memory space Kokkos::HostSpace"), std::string::npos) << msg;
  // CUDA Views on a host instance.
  msg = message_of([&] { gemm(HostExec(), Op::N, Op::N, 1.f, dA, dB, 0.f, dC); });
  EXPECT_NE(msg.find("A is in memory space Kokkos::CudaSpace"), std::string::npos) << msg;
  // Pinned Views with no instance: where to run is the caller's choice.
  msg = message_of([&] { gemm(Op::N, Op::N, Zf(1), pA, pB, Zf(0), pC); });
  EXPECT_NE(msg.find("A is in memory space Kokkos::CudaHostPinnedSpace"), std::string::npos) << msg;
  // ... unless a CudaSpace View beside them says the GPU: then they are read in place.
  Kokkos::deep_copy(pA, Zf(1));
  Kokkos::deep_copy(zB, Zf(2));
  Kokkos::fence();
  GemmOptions exact;
  exact.scheme = parse_scheme("fp16x2");  // 1 x 2 products are exact
  const GemmReport r = gemm(Op::N, Op::N, Zf(1), pA, zB, Zf(0), pC, exact);
  EXPECT_NE(r.kernels, "host (CBLAS)");
  EXPECT_EQ(pC(7, 3).real(), 10.f);  // 5 products of 1 x 2
  // A shape mismatch on device Views.
  Kokkos::View<float**, LL, Kokkos::CudaSpace> B6("B6", 6, 4);
  GemmOptions opt;
  opt.scheme = parse_scheme("fp16x2");
  EXPECT_THROW(gemm(Op::N, Op::N, 1.f, dA, B6, 0.f, dC, opt), InvalidArgument);
  EXPECT_THROW(gemm(Kokkos::Cuda(), Op::N, Op::N, 1.f, dA, B6, 0.f, dC, opt), InvalidArgument);
}

// Pinned and UVM Views on a host instance run the host backend (the caller chose the host).
TEST(CudaGemmViews, PinnedAndUvmViewsOnAHostInstanceRunOnTheHost) {
  TCEMU_REQUIRE_GPU_VIEWS();
  Kokkos::View<double**, LR, Kokkos::CudaHostPinnedSpace> A("A", 12, 9);
  Kokkos::View<double**, LL, Kokkos::CudaUVMSpace> B("B", 9, 7), C("C", 12, 7);
  Kokkos::deep_copy(A, 0.5);
  Kokkos::deep_copy(B, 4.0);
  Kokkos::fence();
  GemmOptions opt;
  opt.scheme = parse_scheme("int8-ozaki", Target::fp64);
  const GemmReport r = gemm(HostExec(), Op::N, Op::N, 1.0, A, B, 0.0, C, opt);
  EXPECT_EQ(r.kernels, "host (CBLAS)");
  for (int i = 0; i < 12; ++i)
    for (int j = 0; j < 7; ++j) EXPECT_EQ(C(i, j), 18.0) << i << "," << j;
}

}  // namespace
}  // namespace tcemu::test
#endif
