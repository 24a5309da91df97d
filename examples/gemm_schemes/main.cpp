// Multiplies two random float matrices with native fp32 and three emulation schemes through
// tcemu::gemm on host Kokkos Views, and prints each result's relative Frobenius error against an
// FP64 product. Usage: gemm_schemes [n] (default 256; m = n = k).
#include <Kokkos_Core.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "tcemu/gemm.hpp"

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  const int n = argc > 1 ? std::atoi(argv[1]) : 256;
  if (n < 1) {
    std::fprintf(stderr, "gemm_schemes: error: n must be >= 1\n");
    return 2;
  }
  Kokkos::View<float**, Kokkos::LayoutRight, Kokkos::HostSpace> A("A", n, n), B("B", n, n), C("C", n, n);
  std::mt19937 gen(42);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) A(i, j) = u(gen), B(i, j) = u(gen);
  // The FP64 reference of the same (float) inputs.
  std::vector<double> ref(static_cast<std::size_t>(n) * n, 0.0);
  for (int i = 0; i < n; ++i)
    for (int p = 0; p < n; ++p)
      for (int j = 0; j < n; ++j) ref[i * n + j] += double(A(i, p)) * double(B(p, j));
  double ref_norm = 0;
  for (double r : ref) ref_norm += r * r;

  std::printf("scheme    used      rel_frobenius_error\n");
  for (const char* name : {"fp32", "fp16x2", "bf16x3", "tf32x2"}) {
    tcemu::GemmOptions options;
    options.scheme = tcemu::parse_scheme(name);
    const tcemu::GemmReport report = tcemu::gemm(tcemu::Op::N, tcemu::Op::N, 1.0f, A, B, 0.0f, C, options);
    double err = 0;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) err += std::pow(double(C(i, j)) - ref[i * n + j], 2);
    std::printf("%-9s %-9s %.3e\n", name, report.used.name.c_str(), std::sqrt(err / ref_norm));
  }
  return 0;
}
