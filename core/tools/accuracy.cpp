// tcemu-accuracy: relative Frobenius and componentwise error of every scheme against an FP64
// (FP32-target schemes) or double-double (FP64-target schemes) reference, on the papers' inputs.
// Produces the tables of docs/accuracy.md.
#include <CLI/CLI.hpp>
#include <Kokkos_Core.hpp>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <vector>

#include "tcemu/gemm.hpp"
#include "tcemu/metrics.hpp"
#include "tcemu/random.hpp"

namespace {

struct Row {
  std::string scheme, used, dist;
  double frob = 0, comp = 0;
};

template <class T>
Row measure(const tcemu::Scheme& scheme, const tcemu::Distribution& dist, std::int64_t n,
            std::uint64_t seed) {
  using namespace tcemu;
  std::vector<T> A(n * n), B(n * n), C(n * n);
  fill_random(row_major(A.data(), n, n), dist, seed);
  fill_random(row_major(B.data(), n, n), dist, seed + 1);
  GemmOptions opt;
  opt.scheme = scheme;
  const auto rep = gemm_host<T>(Op::N, Op::N, T(1), row_major<const T>(A.data(), n, n),
                                row_major<const T>(B.data(), n, n), T(0), row_major(C.data(), n, n), opt);
  std::vector<double> R;
  if constexpr (std::is_same_v<T, double>) {
    R = reference_gemm_dd(Op::N, Op::N, row_major<const double>(A.data(), n, n),
                          row_major<const double>(B.data(), n, n));
  } else {
    R = reference_gemm_fp64<T>(Op::N, Op::N, row_major<const T>(A.data(), n, n),
                               row_major<const T>(B.data(), n, n));
  }
  const auto absAB = abs_product_fp64<T>(Op::N, Op::N, row_major<const T>(A.data(), n, n),
                                         row_major<const T>(B.data(), n, n));
  Row r;
  r.scheme = scheme.name;
  r.used = rep.used.name + (rep.fell_back ? " (fallback)" : "");
  r.dist = dist.name();
  r.frob = relative_frobenius_error<T>(row_major<const T>(C.data(), n, n), R);
  r.comp = componentwise_error<T>(row_major<const T>(C.data(), n, n), R, absAB);
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "tcemu-accuracy: error of each scheme's GEMM C = A*B (n x n x n) on the host backend.\n"
      "FP32 target: A, B float; reference = FP64 DGEMM of the same inputs.\n"
      "FP64 target: A, B double; reference = double-double GEMM (about 106 bits).\n"
      "Metrics: relative Frobenius error ||C-R||_F/||R||_F and componentwise error\n"
      "max_ij |C-R|_ij / (|A||B|)_ij. Inputs: uniform(-1,1) and uniform(-0.5,0.5)*exp(phi*N(0,1))."};
  std::int64_t n = 512;
  std::string schemes = "all", target_name = "fp32";
  std::vector<std::string> dists = {"uniform", "phi=1", "phi=4"};
  std::uint64_t seed = 42;
  bool markdown = false;
  app.add_option("--n", n, "matrix size m = n = k")->check(CLI::Range(1, 8192));
  app.add_option("--scheme", schemes, "comma-separated schemes or 'all' (tcemu catalogue names)");
  app.add_option("--target", target_name, "fp32 (float inputs) or fp64 (double inputs)")
      ->check(CLI::IsMember({"fp32", "fp64"}));
  app.add_option("--dist", dists, "input distributions: uniform, uniform(a,b), phi=<x>");
  app.add_option("--seed", seed, "random seed (A uses seed, B seed+1)");
  app.add_flag("--markdown", markdown, "print a Markdown table");
  CLI11_PARSE(app, argc, argv);
  Kokkos::ScopeGuard kokkos(argc, argv);
  try {
    const auto target = tcemu::parse_target(target_name);
    const auto list = tcemu::parse_scheme_list(schemes, target);
    std::vector<tcemu::Distribution> ds;
    for (const auto& d : dists) ds.push_back(tcemu::Distribution::parse(d));
    if (markdown) {
      std::printf("| scheme | used |");
      for (const auto& d : ds) std::printf(" %s frob | %s comp |", d.name().c_str(), d.name().c_str());
      std::printf("\n|---|---|");
      for (std::size_t i = 0; i < ds.size(); ++i) std::printf("---|---|");
      std::printf("\n");
    } else {
      std::printf("%-16s %-12s %-16s %-12s %-12s\n", "scheme", "dist", "used", "rel_frob", "componentwise");
    }
    for (const auto& s : list) {
      std::vector<Row> rows;
      for (const auto& d : ds) {
        rows.push_back(target == tcemu::Target::fp64 ? measure<double>(s, d, n, seed)
                                                     : measure<float>(s, d, n, seed));
        if (!markdown)
          std::printf("%-16s %-12s %-16s %-12.3e %-12.3e\n", s.name.c_str(), rows.back().dist.c_str(),
                      rows.back().used.c_str(), rows.back().frob, rows.back().comp);
        std::fflush(stdout);
      }
      if (markdown) {
        std::string used = rows[0].used;
        for (const auto& r : rows)
          if (r.used != used) used += " / " + r.used;
        std::printf("| %s | %s |", s.name.c_str(), used.c_str());
        for (const auto& r : rows) std::printf(" %.2e | %.2e |", r.frob, r.comp);
        std::printf("\n");
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tcemu-accuracy: error: %s\n", e.what());
    return 2;
  }
  return 0;
}
