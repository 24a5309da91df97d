// Host backend entry: shapes, range profile and scheme resolution (the plan), then the executor:
// the path's split, products and combine stages in that order, timings.
#include <Kokkos_Core.hpp>
#include <chrono>
#include <memory>

#include "host/paths.hpp"
#include "tcemu/gemm.hpp"
#include "tcemu/range_profile.hpp"

namespace tcemu {
namespace {

/// Runs a path's stages in the host order, split -> products -> combine, recording each in `ep`.
void run_stages(host::Stages& st, ExecutionPlan& ep) {
  st.split();
  ep.stages.push_back(Stage::split);
  st.products();
  ep.stages.push_back(Stage::products);
  st.combine();
  ep.stages.push_back(Stage::combine);
}

}  // namespace

template <class T>
GemmReport gemm_host(Op opA, Op opB, T alpha, MatrixView<const T> A, MatrixView<const T> B, T beta,
                     MatrixView<T> C, const GemmOptions& options) {
  const MatrixView<const T> a = A.apply(opA);
  const MatrixView<const T> b = B.apply(opB);
  check_gemm_shapes(a.rows, a.cols, b.rows, b.cols, C.rows, C.cols);
  const std::int64_t m = a.rows, n = b.cols, k = a.cols;
  GemmReport report;
  report.requested = report.used = options.scheme;
  if (m == 0 || n == 0) return report;
  report.kernels = "host (CBLAS)";

  using clock = std::chrono::steady_clock;
  if (options.scheme.family() == ImplFamily::tile_exponent && k > 0) {
    // The tile rule needs the packed tiles, so the pack decides between computing and falling back.
    host::Timings t;
    std::string why;
    host::gemm_mixpert(options.scheme, alpha, a, b, beta, C, t, [&](const host::MixpertChecks& ch) {
      why = detail::mixpert_violation(ch.a, ch.b, m, n, k);
      return why.empty() || options.range_policy == RangePolicy::ignore;
    });
    if (!why.empty() && options.range_policy != RangePolicy::ignore)
      return detail::mixpert_fallback(options, why, [&](const GemmOptions& o) {
        return gemm_host<T>(Op::N, Op::N, alpha, a, b, beta, C, o);
      });
    ExecutionPlan& ep = report.plan.execution;
    ep.scheme = options.scheme.name;
    ep.implementation = Implementation::mixpert;
    ep.implementation_reason = "the scheme's own path (pack, then the INT8 products with the combine)";
    ep.stages = {Stage::split, Stage::plan, Stage::products};
    report.seconds_split = t.split;
    report.seconds_products = t.products;
    return report;
  }
  const auto t0 = clock::now();
  // Native schemes need no profile (IEEE arithmetic takes any input); skipping it keeps the
  // baselines the apps compare against free of tcemu overhead.
  const bool native = options.scheme.is_native();
  const RangeProfile pa = native ? RangeProfile{} : profile_host(a, Side::A);
  const RangeProfile pb = native ? RangeProfile{} : profile_host(b, Side::B);
  const Scheme s = resolve_scheme(options, pa, pb, m, n, k, CostModel::host(), report);
  host::Timings t;
  t.split = std::chrono::duration<double>(clock::now() - t0).count();

  if (k == 0) {  // BLAS semantics: C = beta * C, and C is not read when beta == 0
    Kokkos::parallel_for(
        "tcemu::scale_c", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, m),
        [=](std::int64_t i) {
          for (std::int64_t j = 0; j < n; ++j) C(i, j) = beta == T(0) ? T(0) : beta * C(i, j);
        });
    return report;
  }
  // The executor: the arithmetic path of the scheme's implementation family as explicit stages
  // (native FP32 runs as one FP32 part; Ozaki interleaves its stages per block, host/paths.hpp).
  ExecutionPlan& ep = report.plan.execution;
  ep.scheme = s.name;
  ep.orientation_reason = "C (the host backend never swaps)";
  ep.overlap = Overlap::none;  // the host runs its stages one after the other
  ep.stages = {Stage::plan};
  ep.chunking.k_chunk_length = k;  // the host accumulates every product over the whole of k
  if (s.family() == ImplFamily::int_slices) {
    ep.slices = s.parts;
    ep.implementation = Implementation::int_slices;
    host::gemm_ozaki(s.parts, alpha, a, b, beta, C, t);
    ep.stages.insert(ep.stages.end(), {Stage::split, Stage::products, Stage::combine});
  } else if (s.family() == ImplFamily::crt) {
    report.kernels = "host (" + std::string(s.name) + " reference loops)";
    ep.implementation = Implementation::crt;
    ep.implementation_reason = "Ozaki scheme II reference loops";
    const std::string why = host::gemm_crt(s, alpha, a, b, beta, C, t,
                                           options.range_policy == RangePolicy::ignore, report.certificate);
    if (!why.empty() && options.scheme.is_automatic()) {
      // auto's int8-crt pick without a certified N: the plan's next pick runs, with a note.
      return detail::crt_next_pick(options, report, s.name, why, [&](const GemmOptions& o) {
        return gemm_host<T>(Op::N, Op::N, alpha, a, b, beta, C, o);
      });
    }
    if (!why.empty()) {  // no N in the table is certified: C untouched, run the fallback
      GemmOptions o = options;
      o.scheme = s;
      GemmReport r = detail::scheme_fallback(o, why, [&](const GemmOptions& f) {
        return gemm_host<T>(Op::N, Op::N, alpha, a, b, beta, C, f);
      });
      r.requested = options.scheme;
      return r;
    }
    ep.stages.insert(ep.stages.end(), {Stage::split, Stage::products, Stage::combine});
    if (options.scheme.is_automatic()) report.plan.certificate = certificate_summary(report.certificate, report.plan, m, n, k,
                                                  options.cost_model ? *options.cost_model : CostModel::host());
  } else {
    const bool fp64 = s.is_native() && s.part == PartType::fp64;
    ep.implementation = s.is_native() ? Implementation::native : Implementation::multipass;
    ep.implementation_reason = s.is_native() ? "CBLAS" : "CBLAS per part product";
    const std::unique_ptr<host::Stages> st =
        fp64 ? host::fp64_stages(alpha, a, b, beta, C, t) : host::parts_stages(s, alpha, a, b, beta, C, t);
    run_stages(*st, ep);
  }
  report.seconds_split = t.split;
  report.seconds_products = t.products;
  report.seconds_combine = t.combine;
  return report;
}

template GemmReport gemm_host<float>(Op, Op, float, MatrixView<const float>, MatrixView<const float>,
                                     float, MatrixView<float>, const GemmOptions&);
template GemmReport gemm_host<double>(Op, Op, double, MatrixView<const double>,
                                      MatrixView<const double>, double, MatrixView<double>,
                                      const GemmOptions&);

}  // namespace tcemu
