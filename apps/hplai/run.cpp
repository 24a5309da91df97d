#include "app_common/auto_cost_model.hpp"
#include "app_common/environment.hpp"
#include "app_common/sweep.hpp"
#include "app_common/timing.hpp"
#include "run.hpp"

#include <chrono>
#include <cstdio>
#include <algorithm>
#include <functional>
#include <type_traits>

#include "app_common/app_main.hpp"
#include "auto_choice.hpp"
#include "lu.hpp"
#include "session.hpp"
#include "tcemu/error.hpp"

namespace hplai {
namespace {

using clock = std::chrono::steady_clock;
double since(clock::time_point t0) { return std::chrono::duration<double>(clock::now() - t0).count(); }

using HostSpace = Kokkos::DefaultHostExecutionSpace;

}  // namespace

LuOptions lu_options(const tcemu::Scheme& scheme, const RunOptions& opt, std::int64_t n) {
  LuOptions lo;
  lo.nb = opt.nb;
  // The trailing updates' implementation (fused or multi-pass for beta = 1) is the core's planned
  // choice from the calibrated cost model (docs/hplai.md, "Implementation of the trailing updates").
  lo.gemm = tcemu::app::gemm_options(scheme);
  lo.scale_operands = opt.scale_operands;
  if (opt.progress)
    lo.progress = [last = clock::now(), name = scheme.name, out = opt.progress,
                   n](const PanelProgress& p) mutable {
      // One line per panel, at most one a second: silent on short runs, steady on long ones.
      if (since(last) < 1.0 && p.panel != p.panels) return;
      if (p.panel == p.panels && p.seconds < 1.0) return;
      last = clock::now();
      char buf[160];
      std::snprintf(buf, sizeof buf, "hplai: %-16s panel %lld/%lld (column %lld of %lld) %.1f s\n",
                    name.c_str(), static_cast<long long>(p.panel), static_cast<long long>(p.panels),
                    static_cast<long long>(p.column), static_cast<long long>(n), p.seconds);
      *out << buf << std::flush;
    };
  return lo;
}

void record_factorisation(SchemeResult& r, const LuStats& st, const std::string& scheme_name) {
  r.panel_seconds = st.seconds_panel;
  r.update_seconds = st.seconds_update;
  r.updates = st.updates;
  r.fallbacks = st.gemm.fallbacks;
  r.used = st.gemm.used.empty() ? scheme_name : st.gemm.used_names();
  if (st.gemm.fallbacks > 0)
    r.note = std::to_string(st.gemm.fallbacks) + "/" + std::to_string(st.updates) +
             " updates fell back to native: " + st.gemm.first_note;
}

void record_refinement(SchemeResult& r, const RefineResult& rr) {
  r.iterations = rr.iterations;
  r.restarts = rr.restarts;
  r.initial_scaled_residual = rr.initial_scaled_residual;
  r.scaled_residual = rr.scaled_residual;
  r.x = rr.x;
  r.history = rr.history;
  if (!rr.converged) r.note = rr.failure + (r.note.empty() ? "" : "; " + r.note);
}

double hpl_flops(std::int64_t n) {
  const double d = static_cast<double>(n);
  return 2.0 / 3.0 * d * d * d + 1.5 * d * d;
}

bool RunResult::all_pass() const {
  for (const auto& r : rows)
    if (!r.pass) return false;
  return true;
}

SchemeResult run_scheme_host(const System& sys, double a_inf, const tcemu::Scheme& scheme,
                             const RunOptions& options) {
  if (scheme.kind == tcemu::SchemeKind::fp64)
    throw tcemu::InvalidArgument("run_scheme_host: fp64 is the baseline (run_baseline_host)");
  return Session<HostSpace>(sys).run_scheme(a_inf, scheme, options);
}

SchemeResult run_baseline_host(const System& sys, double a_inf) { return Session<HostSpace>(sys).run_baseline(a_inf); }

bool cuda_path_built() {
#if defined(HPLAI_HAVE_CUDA_KOKKOS)
  return true;
#else
  return false;
#endif
}

Device run_device(const tcemu::app::CommonOptions& common) {
#if defined(TCEMU_HAVE_CUDA) && !defined(HPLAI_HAVE_CUDA_KOKKOS)
  // tcemu has its CUDA backend but Kokkos has none (Debian's 3.4): hplai's GPU path is not built.
  const Device requested = tcemu::app::parse_device(common.device_name);
  if (requested == Device::cuda)
    throw tcemu::DeviceError("--device cuda: hplai's GPU path needs a Kokkos with its CUDA backend; this build's "
                             "Kokkos has no CUDA backend (configure with -DKokkos_ROOT=<a CUDA-enabled Kokkos 4>, "
                             "docs/kokkos.md)");
  if (requested == Device::automatic) return Device::host;
#endif
  return common.device();
}

/// A system whose FP64 LU with partial pivoting fails the scaled-residual check cannot verify any
/// scheme (too ill-conditioned or badly scaled for the benchmark): that is bad input, not a FAIL.
void require_verifiable(const SchemeResult& baseline, const std::string& source) {
  if (baseline.pass) return;
  char buf[96];
  std::snprintf(buf, sizeof buf, "%.3g", baseline.scaled_residual);
  throw tcemu::InvalidArgument(source + ": the benchmark cannot verify this system: even the FP64 LU with partial "
                               "pivoting reaches a scaled residual of " + std::string(buf) + " (the check needs < " +
                               std::to_string(static_cast<int>(kPassThreshold)) +
                               "); the matrix is singular to working precision, too ill-conditioned or badly scaled");
}

RunResult run(const System& sys, const RunOptions& opt) {
  RunResult out;
  out.n = sys.n;
  out.nb = std::min(opt.nb, sys.n);
  out.source = sys.source;
  out.solver = to_string(opt.refine.solver);
  out.device = to_string(opt.device);
  if (opt.nb < 1) throw tcemu::InvalidArgument("--nb " + std::to_string(opt.nb) + " must be >= 1");
  std::vector<tcemu::Scheme> todo;  // the schemes after the fp64 baseline
  for (const auto& entry : tcemu::app::sweep_order(opt.schemes, {{tcemu::parse_scheme("fp64"), "baseline"}}))
    if (entry.role.empty()) todo.push_back(entry.scheme);
  const double a_inf = norm_inf(sys);
  if (opt.repeat < 1) throw tcemu::InvalidArgument("--repeat " + std::to_string(opt.repeat) + " must be >= 1");
  // Runs a row `repeat` times and keeps the run with the median time to solution.
  auto median_of = [&](const std::function<SchemeResult()>& once) {
    std::vector<SchemeResult> runs;
    for (int i = 0; i < opt.repeat; ++i) runs.push_back(once());
    return tcemu::app::median_element(std::move(runs), [](const SchemeResult& r) { return r.total_seconds; });
  };
  // One row: auto with the FP32 target runs its candidates until one passes (auto_choice.hpp).
  auto row = [&](const tcemu::Scheme& scheme, const std::function<SchemeResult(const tcemu::Scheme&)>& one) {
    if (!uses_auto_choice(scheme)) return median_of([&] { return one(scheme); });
    return run_auto(auto_candidates(sys.n, out.nb, tcemu::app::auto_cost_model(opt.device)),
                    [&](const tcemu::Scheme& s) { return median_of([&] { return one(s); }); }, opt.progress);
  };
  const std::size_t total = todo.size() + 1;
  auto say = [&](std::size_t i, const SchemeResult& r) {
    if (!opt.progress) return;
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "hplai: [%zu/%zu] %-16s %-5s factor %.3f s, refine %.3f s (%d it), scaled residual %.3g %s\n",
                  i, total, r.scheme.c_str(), r.storage.c_str(), r.factor_seconds, r.refine_seconds,
                  r.iterations, r.scaled_residual, r.pass ? "PASS" : "FAIL");
    *opt.progress << buf << std::flush;
  };
  // The same rows on either space (session.hpp).
  auto run_rows = [&](auto& session) {
    out.rows.push_back(median_of([&] { return session.run_baseline(a_inf); }));
    require_verifiable(out.rows.back(), sys.source);
    say(1, out.rows.back());
    for (std::size_t i = 0; i < todo.size(); ++i) {
      out.rows.push_back(row(todo[i], [&](const tcemu::Scheme& s) { return session.run_scheme(a_inf, s, opt); }));
      say(i + 2, out.rows.back());
    }
  };
  if (opt.device == Device::cuda) {
#if defined(HPLAI_HAVE_CUDA_KOKKOS)
    Session<Kokkos::Cuda> gpu(sys);
    run_rows(gpu);
#else
    (void)tcemu::app::resolve_device(Device::cuda);  // throws: no CUDA backend
    throw tcemu::DeviceError("--device cuda: hplai's GPU path needs a Kokkos with its CUDA backend; this build's "
                             "Kokkos has no CUDA backend (docs/kokkos.md)");
#endif
  } else {
    Session<HostSpace> host(sys);
    run_rows(host);
  }
  const double base = out.rows.front().total_seconds;
  for (auto& r : out.rows) r.speedup = tcemu::app::speedup(base, r.total_seconds);
  return out;
}

}  // namespace hplai
