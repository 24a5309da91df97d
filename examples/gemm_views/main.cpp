// tcemu::gemm(space, opA, opB, alpha, A, B, beta, C, options, resources) on Kokkos Views: a real
// (float) and a complex (Kokkos::complex<float>) n x n x n product with a few schemes, each result's
// relative Frobenius error against an FP64 product printed per scheme.
// Where it runs is decided at compile time by what the installed tcemu and its Kokkos have: both
// with CUDA -> Kokkos::Cuda instance, Views in Kokkos::CudaSpace (the GEMM runs on the instance's
// stream); otherwise the default host execution space and Views in Kokkos::HostSpace.
// Usage: gemm_views [n] (default 256). Output: one line per product, "<kind>:<scheme> <used> <error>".
#include <Kokkos_Core.hpp>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "tcemu/gemm.hpp"
#include "tcemu/resources.hpp"

#if defined(KOKKOS_ENABLE_CUDA) && defined(TCEMU_HAVE_CUDA)
using Exec = Kokkos::Cuda;
using Memory = Kokkos::CudaSpace;
#else
using Exec = Kokkos::DefaultHostExecutionSpace;
using Memory = Kokkos::HostSpace;
#endif

/// Relative Frobenius distance of the n x n matrix `c` (host mirror) from alpha * a * b in FP64.
template <class HostView>
double rel_error(const HostView& a, const HostView& b, const HostView& c, int n) {
  double err = 0, ref = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      std::complex<double> s = 0;
      for (int p = 0; p < n; ++p)
        s += std::complex<double>(a(i, p)) * std::complex<double>(b(p, j));
      err += std::norm(std::complex<double>(c(i, j)) - s);
      ref += std::norm(s);
    }
  return std::sqrt(err / ref);
}

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  const int n = argc > 1 ? std::atoi(argv[1]) : 256;
  if (n < 1) {
    std::fprintf(stderr, "gemm_views: error: n must be >= 1\n");
    return 2;
  }
  using Z = Kokkos::complex<float>;
  // Operands in different layouts: tcemu reads any of LayoutLeft, LayoutRight, LayoutStride.
  Kokkos::View<float**, Kokkos::LayoutLeft, Memory> A("A", n, n), B("B", n, n), C("C", n, n);
  Kokkos::View<Z**, Kokkos::LayoutRight, Memory> ZA("ZA", n, n), ZB("ZB", n, n), ZC("ZC", n, n);
  auto hA = Kokkos::create_mirror_view(A), hB = Kokkos::create_mirror_view(B), hC = Kokkos::create_mirror_view(C);
  auto hZA = Kokkos::create_mirror_view(ZA), hZB = Kokkos::create_mirror_view(ZB), hZC = Kokkos::create_mirror_view(ZC);
  std::mt19937 gen(42);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      hA(i, j) = u(gen), hB(i, j) = u(gen);
      hZA(i, j) = Z(u(gen), u(gen)), hZB(i, j) = Z(u(gen), u(gen));
    }
  Kokkos::deep_copy(A, hA);
  Kokkos::deep_copy(B, hB);
  Kokkos::deep_copy(ZA, hZA);
  Kokkos::deep_copy(ZB, hZB);

  const Exec space;              // the execution space instance: for Kokkos::Cuda, its stream
  tcemu::Resources resources;    // the workspace every call below reuses
  std::printf("execution space %s, memory space %s\n", Exec::name(), Memory::name());
  std::printf("product     used      rel_frobenius_error\n");
  const char* schemes[] = {"fp32", "fp16x2", "bf16x3", "tf32x2"};
  for (const char* name : schemes) {
    tcemu::GemmOptions options;
    options.scheme = tcemu::parse_scheme(name);
    // Synchronous (the default): C holds the result when the call returns.
    const tcemu::GemmReport r = tcemu::gemm(space, tcemu::Op::N, tcemu::Op::N, 1.0f, A, B, 0.0f, C, options, resources);
    Kokkos::deep_copy(hC, C);
    std::printf("real:%-7s %-9s %.3e\n", name, r.used.name.c_str(), rel_error(hA, hB, hC, n));
  }
  // Asynchronous calls: each returns once its work is queued on the instance; fence before reading.
  resources.synchronous = false;
  for (const char* name : schemes) {
    tcemu::GemmOptions options;
    options.scheme = tcemu::parse_scheme(name);
    const tcemu::GemmReport r = tcemu::gemm(space, tcemu::Op::N, tcemu::Op::N, Z(1), ZA, ZB, Z(0), ZC, options, resources);
    space.fence();
    Kokkos::deep_copy(hZC, ZC);
    std::printf("complex:%-4s %-9s %.3e\n", name, r.used.name.c_str(), rel_error(hZA, hZB, hZC, n));
  }
  return 0;
}
