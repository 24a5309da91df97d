// CUDA backend entry: the planning step (scheme, implementation, orientation) and the executor that
// runs the split, products and combine stages of dispatch/ in the order of the overlap policy
// (ExecutionPolicy::overlap), with the range profile fused into the split and the scheme resolution
// shared with the host (resolve_scheme); timings.
#include <cmath>
#include <cstring>
#include <utility>

#include "cuda/dispatch/crt_path.hpp"
#include "cuda/kernels/fused.hpp"
#include "cuda/dispatch/paths.hpp"
#include "tcemu/cuda/calibrate.hpp"
#include "tcemu/cuda/gemm_cuda.hpp"
#include "tcemu/planning.hpp"
#include "tcemu/split.hpp"

namespace tcemu::cuda {
namespace {

using detail::ProfileArgs;
using detail::ProfileTotals;

double bits_to_double(unsigned long long b) {
  double d;
  std::memcpy(&d, &b, sizeof d);
  return d;
}

RangeProfile to_profile(const ProfileTotals& t, std::int64_t lines, std::int64_t k) {
  RangeProfile p;
  p.lines = lines;
  p.line_length = k;
  p.max_abs = bits_to_double(t.max_bits);
  const double mn = bits_to_double(t.min_nonzero_bits), ml = bits_to_double(t.min_line_max_bits);
  p.min_abs_nonzero = std::isfinite(mn) ? mn : 0.0;
  p.min_line_max = std::isfinite(ml) ? ml : 0.0;
  p.max_line_spread_bits = bits_to_double(t.max_spread_bits);
  p.max_line_spread_nonzero_bits = bits_to_double(t.max_spread_nz_bits);
  p.zeros = static_cast<std::int64_t>(t.zeros);
  p.subnormals = static_cast<std::int64_t>(t.subnormals);
  p.nonfinite = static_cast<std::int64_t>(t.nonfinite);
  return p;
}

/// Profile areas of both operands in the workspace's profile slot.
struct Profiles {
  ProfileArgs x, y;
};

/// auto's plan for an m x n x k product on in-range operands (nominal profiles: max 1, spread one
/// bit), from `model`; uncached (nominal_plan caches it for the device's own model).
Plan make_nominal_plan(Target target, std::int64_t m, std::int64_t n, std::int64_t k, const CostModel& model) {
  auto nominal = [&](std::int64_t lines) {
    RangeProfile r;
    r.lines = lines;
    r.line_length = k;
    r.max_abs = 1.0;
    r.min_abs_nonzero = std::ldexp(1.0, -20);
    r.min_line_max = 0.5;
    r.max_line_spread_bits = r.max_line_spread_nonzero_bits = 1.0;
    return r;
  };
  return plan(nominal(m), nominal(n), m, n, k, target, model);
}

/// auto's plan for an m x n x k call (target and cost model as given) when both operands are inside
/// every scheme's range: plan() on a nominal profile (|x| in [2^-20, 1], line maxima within a factor
/// 2, line spreads of one bit). The CUDA backend splits with its pick while the real profile is
/// measured; resolve_scheme then confirms it or chooses again. A real profile can only take
/// candidates away (range rules) and leaves every predicted time as it is (Ozaki's slice count is the
/// same for any line spread of at most one bit), so a native pick here is auto's pick for any
/// operands. Memoised per thread for the last 8 calls' shapes (plan() costs some 20 us of host time,
/// as much as a 1024^3 product on the GPU); the reference is valid until the next call.
const Plan& nominal_plan(Target target, std::int64_t m, std::int64_t n, std::int64_t k, const CostModel& model) {
  struct Entry {
    std::int64_t m = -1, n = -1, k = -1;
    Target target = Target::fp32;
    const CostModel* model = nullptr;
    Plan plan;
  };
  thread_local Entry cache[8];
  thread_local int next = 0;
  for (const Entry& e : cache)
    if (e.m == m && e.n == n && e.k == k && e.target == target && e.model == &model) return e.plan;
  Entry& e = cache[next];
  next = (next + 1) % 8;
  e = Entry{m, n, k, target, &model, make_nominal_plan(target, m, n, k, model)};
  return e.plan;
}

Profiles profile_areas(std::int64_t m, std::int64_t n, Workspace::Impl& ws, cudaStream_t st) {
  const std::size_t bx = detail::profile_bytes(m), by = detail::profile_bytes(n);
  char* base = static_cast<char*>(ws.get(kSlotProfile, bx + by, st));
  Profiles p{detail::profile_layout(base, m), detail::profile_layout(base + bx, n)};
  detail::profile_reset(p.x, m, st);
  detail::profile_reset(p.y, n, st);
  return p;
}

/// Finalises both profiles and queues the copy of their totals to pinned host memory; the totals are
/// valid on the host once `done` (recorded here, after the copy) has completed.
const ProfileTotals* queue_profile_readback(const Profiles& pr, std::int64_t m, std::int64_t n,
                                            std::int64_t k, Workspace::Impl& ws, cudaStream_t st,
                                            cudaEvent_t done) {
  detail::profile_finalize(pr.x, m, k, st);
  detail::profile_finalize(pr.y, n, k, st);
  auto* h = static_cast<ProfileTotals*>(ws.host(2 * sizeof(ProfileTotals)));
  TCEMU_CUDA(cudaMemcpyAsync(h, pr.x.totals, sizeof(ProfileTotals), cudaMemcpyDeviceToHost, st));
  TCEMU_CUDA(cudaMemcpyAsync(h + 1, pr.y.totals, sizeof(ProfileTotals), cudaMemcpyDeviceToHost, st));
  TCEMU_CUDA(cudaEventRecord(done, st));
  return h;
}

/// How the planning step runs a scheme: its implementation and the orientation that goes with it.
struct Decision {
  Implementation implementation = Implementation::native;
  std::string implementation_reason;
  Orientation orientation;
};

/// The planning step's execution decisions for scheme `s` on an m x n C (tcemu/planning.hpp), in this
/// order: the implementation, for a split scheme from the shape class of the problem as C's layout
/// orients it (implementation_shape_class); then the orientation: the fused kernels by their block
/// tiles under ExecutionPolicy::orientation = tiles (fewer tiles), else, and for every other
/// implementation, by C's layout (column-major to them). The class is the layout's under both
/// policies, so the orientation never feeds back into the implementation choice.
/// `model()`: the calibrated model behind ExecutionPolicy::kernels = automatic, called only when a
/// decision needs it (nullptr: none).
template <class ModelOf>
Decision decide(const Scheme& s, std::int64_t m, std::int64_t n, bool c_row_major, bool reads_c,
                const ExecutionPolicy& ex, ModelOf model) {
  Decision d;
  switch (s.family()) {
    case ImplFamily::native:
      d.implementation = Implementation::native;
      d.implementation_reason = "cuBLAS";
      break;
    case ImplFamily::int_slices:
      d.implementation = Implementation::int_slices;
      d.implementation_reason = "cuBLAS INT8 per slice group";
      break;
    case ImplFamily::tile_exponent:
      d.implementation = Implementation::mixpert;
      d.implementation_reason = "the scheme's own kernel";
      break;
    case ImplFamily::crt:
      d.implementation = Implementation::crt;
      d.implementation_reason = "residue pass, cuBLAS INT8 per modulus, reconstruction pass";
      break;
    default: {
      const bool has_fused = detail::has_fused_kernel(s);
      const bool ask = has_fused && ex.kernels == CudaKernels::automatic;
      const ImplementationChoice c = choose_split_implementation(
          s, has_fused, ex.kernels, reads_c, implementation_shape_class(m, n, c_row_major), ask ? model() : nullptr);
      d.implementation = c.implementation;
      d.implementation_reason = c.reason;
    }
  }
  d.orientation = d.implementation == Implementation::fused && ex.orientation == OrientationPolicy::tiles
                      ? orientation_for_tiles(m, n, c_row_major, detail::fused::block_tile(s, ex.fused_mma))
                      : orientation_for_layout(c_row_major);
  return d;
}

/// decide() memoised per thread for the last 8 distinct calls: the tile and calibrated-time
/// arithmetic and its report lines cost microseconds of host time, as much as a small product. The
/// model is part of the key (a recalibration gives a new one); fetched first when a decision needs it.
template <class ModelOf>
const Decision& decide_memo(const Scheme& s, std::int64_t m, std::int64_t n, bool c_row_major, bool reads_c,
                            const ExecutionPolicy& ex, ModelOf model) {
  struct Entry {
    SchemeKind kind{};
    int parts = -1, device = -1;
    std::int64_t m = -1, n = -1;
    bool row_major = false, reads_c = false;
    CudaKernels kernels{};
    FusedMma mma{};
    OrientationPolicy orientation{};
    const CostModel* model = nullptr;
    Decision d;
  };
  thread_local Entry cache[8];
  thread_local int next = 0;
  int device = 0;
  TCEMU_CUDA(cudaGetDevice(&device));
  const bool needs_model = ex.kernels == CudaKernels::automatic && s.family() != ImplFamily::native &&
                           s.family() != ImplFamily::int_slices && s.family() != ImplFamily::tile_exponent &&
                           detail::has_fused_kernel(s);
  const CostModel* mp = needs_model ? model() : nullptr;
  for (const Entry& e : cache)
    if (e.kind == s.kind && e.parts == s.parts && e.device == device && e.m == m && e.n == n &&
        e.row_major == c_row_major && e.reads_c == reads_c && e.kernels == ex.kernels && e.mma == ex.fused_mma &&
        e.orientation == ex.orientation && e.model == mp)
      return e.d;
  Entry& e = cache[next];
  next = (next + 1) % 8;
  e = Entry{s.kind, s.parts, device, m, n, c_row_major, reads_c, ex.kernels, ex.fused_mma, ex.orientation, mp,
            decide(s, m, n, c_row_major, reads_c, ex, [mp] { return mp; })};
  return e.d;
}

/// Orients the problem: acc = X . Y^T column-major is C (X = op(A)) or, swapped, C^T (X = op(B)^T).
/// `a`: op(A) as m lines of k; `b`: op(B) as n lines of k.
template <class T>
void orient(detail::Problem<T>& p, const detail::Operand<T>& a, const detail::Operand<T>& b, const MatrixView<T>& C,
            bool swapped) {
  p.swapped = swapped;
  p.x = swapped ? b : a;
  p.y = swapped ? a : b;
  p.m = p.x.lines;
  p.n = p.y.lines;
  p.c_rs = swapped ? C.col_stride : C.row_stride;
  p.c_cs = swapped ? C.row_stride : C.col_stride;
}

/// Applies a decision to the problem and records it in the report's execution plan.
template <class T>
void apply(const Decision& d, detail::Problem<T>& p, const detail::Operand<T>& a, const detail::Operand<T>& b,
           const MatrixView<T>& C, ExecutionPlan& ep) {
  orient(p, a, b, C, d.orientation.swapped);
  p.fused = d.implementation == Implementation::fused;
  ep.implementation = d.implementation;
  ep.implementation_reason = d.implementation_reason;
  ep.swapped = d.orientation.swapped;
  ep.orientation_reason = d.orientation.reason;
}

}  // namespace

template <class T>
GemmReport gemm_device(Op opA, Op opB, T alpha, MatrixView<const T> A, MatrixView<const T> B, T beta,
                       MatrixView<T> C, const GemmOptions& options, Stream stream, Workspace* wsp) {
  const MatrixView<const T> a = A.apply(opA);
  const MatrixView<const T> b = B.apply(opB);
  check_gemm_shapes(a.rows, a.cols, b.rows, b.cols, C.rows, C.cols);
  GemmReport report;
  report.requested = report.used = options.scheme;
  if (a.rows == 0 || b.cols == 0) return report;
  // auto's cost model: the caller's, else the device's measured one (tcemu/cuda/calibrate.hpp; may
  // measure on first use, with its own workspace, so before this call touches `ws`).
  static const CostModel anchors = CostModel::h200_anchors();
  std::shared_ptr<const CostModel> device_model;
  if (options.scheme.is_automatic() && !options.cost_model) device_model = device_cost_model(options.execution);
  const CostModel& model = device_model ? *device_model : anchors;
  // The calibrated model behind ExecutionPolicy::kernels = automatic: the caller's, else auto's,
  // else implementation_cost_model's (tcemu/cuda/calibrate.hpp; may measure on first use like
  // auto's, so for a scheme that asks it is fetched here, before the call's work; else on need).
  std::shared_ptr<const CostModel> impl_model;
  bool impl_model_fetched = false;
  auto model_for_implementation = [&]() -> const CostModel* {
    if (options.cost_model) return options.cost_model;
    if (device_model) return device_model.get();
    if (!impl_model_fetched) impl_model = implementation_cost_model(options.execution);
    impl_model_fetched = true;
    return impl_model.get();
  };
  if (options.execution.kernels == CudaKernels::automatic && !options.scheme.is_automatic() &&
      !options.scheme.is_native() && detail::has_fused_kernel(options.scheme))
    model_for_implementation();
  Workspace& wso = wsp ? *wsp : default_workspace();
  Workspace::Impl& ws = wso.impl();
  cudaStream_t st = stream;

  // The caller's problem: op(A) as m lines of k, op(B) as n lines of k; oriented by the plan.
  const detail::Operand<T> oa{a.data, a.rows, a.row_stride, a.col_stride};
  const detail::Operand<T> ob{b.data, b.cols, b.col_stride, b.row_stride};
  const bool c_row_major = C.col_stride == 1 && C.row_stride != 1;
  const bool reads_c = beta != T(0);
  detail::Problem<T> p;
  p.k = a.cols;
  p.c = C.data;
  p.alpha = alpha;
  p.beta = beta;
  p.stream = st;
  p.exec = &options.execution;
  ExecutionPlan ep;
  ep.overlap = options.execution.overlap;
  ws.begin_call();
  auto decide_for = [&](const Scheme& sc) -> const Decision& {
    return decide_memo(sc, a.rows, b.cols, c_row_major, reads_c, options.execution, model_for_implementation);
  };
  // The planning step's decisions for scheme `sc`: implementation, orientation, then how k is cut.
  auto plan_execution = [&](const Scheme& sc) {
    apply(decide_for(sc), p, oa, ob, C, ep);
    p.chunks = plan_chunking(sc, ep.implementation, p.k, options.execution.accumulation_chunk);
    ep.chunking = p.chunks;
  };
  // Fills the report's execution plan (GemmReport::plan is set by resolution before this).
  auto finish = [&](const Scheme& sc) {
    ep.scheme = sc.name;
    ep.slices = sc.family() == ImplFamily::int_slices ? sc.parts : 0;
    ep.workspace_bytes = static_cast<std::int64_t>(ws.call_bytes());
    report.plan.execution = ep;
  };

  cudaEvent_t* ev = ws.ev;
  TCEMU_CUDA(cudaEventRecord(ev[0], st));
  if (p.k == 0) {  // BLAS semantics: C = beta * C (not read when beta == 0)
    orient(p, oa, ob, C, c_row_major);
    detail::combine_groups<T, T>(nullptr, 0, 0, 0, 1, nullptr, p.m, p.n, alpha, beta, p.c, p.c_rs, p.c_cs, st);
    ep.implementation = Implementation::none;
    ep.stages = {Stage::combine};
    finish(options.scheme);
    return report;
  }

  if (options.scheme.family() == ImplFamily::crt) {  // int8-crt: its own stages (dispatch/crt_path.cpp)
    plan_execution(options.scheme);
    const std::string why = detail::run_crt<T>(options, p, ws, wso.record_timings, report);
    if (!why.empty())
      return ::tcemu::detail::scheme_fallback(options, why, [&](const GemmOptions& o) {
        return gemm_device<T>(opA, opB, alpha, A, B, beta, C, o, stream, wsp);
      });
    ep.stages = {Stage::plan, Stage::split, Stage::products, Stage::combine};
    finish(options.scheme);
    return report;
  }

  if (options.scheme.family() == ImplFamily::tile_exponent) {
    // The tile rule needs the packed tiles: the pack pass decides between the kernel and a fallback.
    plan_execution(options.scheme);
    mixpert::PackCheck cx, cy;
    const bool ignore = options.range_policy == RangePolicy::ignore;
    const bool ran = detail::run_mixpert<T>(options.scheme, p, ws, ignore, cx, cy, ev[1]);
    const std::string why = ::tcemu::detail::mixpert_violation(p.swapped ? cy : cx, p.swapped ? cx : cy, a.rows, b.cols, p.k);
    if (!ran)
      return ::tcemu::detail::mixpert_fallback(options, why, [&](const GemmOptions& o) {
        return gemm_device<T>(opA, opB, alpha, A, B, beta, C, o, stream, wsp);
      });
    report.kernels = "MixPert kernel (mma.sync)";
    ep.stages = {Stage::split, Stage::plan, Stage::products};
    TCEMU_CUDA(cudaEventRecord(ev[2], st));
    TCEMU_CUDA(cudaEventRecord(ev[3], st));
    if (wso.record_timings) ws.read_stage_seconds(report, /*combine=*/false);
    finish(options.scheme);
    return report;
  }

  const Scheme& req = options.scheme;
  // What is split before the profile is known: the requested scheme, or for `auto` the scheme it
  // picks for this shape on in-range operands (nominal_plan), confirmed by resolve_scheme on the
  // real profile below. A native pick there is final: such calls skip the profile.
  // The caller's cost model when it gives one (as resolve_scheme uses it), else the device's.
  const CostModel& auto_model = options.cost_model ? *options.cost_model : model;
  // The cache is keyed by the model's address: only the device's own model (which lives as long as
  // the process) may use it; a caller's model may be freed and another one built at its address.
  Plan caller_nominal;
  const Plan* nominal = nullptr;
  if (req.is_automatic() && options.cost_model) {
    caller_nominal = make_nominal_plan(req.target, a.rows, b.cols, p.k, auto_model);
    nominal = &caller_nominal;
  } else if (req.is_automatic()) {
    nominal = &nominal_plan(req.target, a.rows, b.cols, p.k, model);
  }
  const Scheme spec = nominal ? nominal->chosen : req;
  plan_execution(spec);
  RangeProfile pa, pb;
  Scheme s;
  // The stages queued before the plan, for `spec`: after the plan the executor runs the rest, all
  // of them when the plan chose another scheme.
  struct {
    bool split = false, products = false;
  } before_plan;
  Profiles pr{};
  if (nominal && spec.is_native()) {
    // auto with a native pick (final, see nominal_plan): what resolve_scheme reports for a native
    // scheme (never out of range), with auto's plan, at no cost of a profile or a second plan.
    s = spec;
    report.requested = req;
    report.used = spec;
    report.plan = *nominal;
    ep.stages.push_back(Stage::plan);
  } else if (spec.is_native()) {
    s = resolve_scheme(options, pa, pb, a.rows, b.cols, p.k, model, report);
    ep.stages.push_back(Stage::plan);
  } else {
    pr = profile_areas(p.m, p.n, ws, st);
    // Split stage. Ozaki (slice count), auto's int8-crt pick (its own passes follow the plan) and
    // the line-aligned schemes (line exponents) need the profile first: a profile-only pass; the
    // others split with the profile fused in.
    const bool profile_only = spec.family() == ImplFamily::int_slices || spec.family() == ImplFamily::crt ||
                              spec.needs_profile_before_split();
    if (profile_only) {
      const detail::SplitSpec none{};
      detail::split_operand<T>(p.x.data, p.m, p.k, p.x.line_stride, p.x.k_stride, none, nullptr, p.k, pr.x, st);
      detail::split_operand<T>(p.y.data, p.n, p.k, p.y.line_stride, p.y.k_stride, none, nullptr, p.k, pr.y, st);
    } else {
      detail::split_panels<T>(spec, p, ws, pr.x, pr.y);
      before_plan.split = true;
    }
    ep.stages.push_back(Stage::split);
    const ProfileTotals* h = queue_profile_readback(pr, p.m, p.n, p.k, ws, st, ev[1]);
    // Products stage before planning when the overlap policy says so (ExecutionPolicy::overlap): the
    // GPU computes while the host waits for the profile and plans; used if planning keeps `spec`.
    if (before_plan.split && products_before_planning(ep.overlap, detail::products_write_c(p), reads_c)) {
      detail::run_parts_products<T>(spec, p, ws, ev[2]);
      ep.stages.push_back(Stage::products);
      before_plan.products = true;
    }
    // Plan stage: the real profiles, then resolution (auto's choice on them, the range check).
    TCEMU_CUDA(cudaEventSynchronize(ev[1]));
    const RangeProfile px = to_profile(h[0], p.m, p.k), py = to_profile(h[1], p.n, p.k);
    pa = p.swapped ? py : px;
    pb = p.swapped ? px : py;
    s = resolve_scheme(options, pa, pb, a.rows, b.cols, p.k, model, report);
    ep.stages.push_back(Stage::plan);
    if (s.name != spec.name) {
      before_plan = {};  // wasted work: the resolved scheme runs all its stages
      // Another scheme runs: its own implementation and orientation (the profile areas follow x and y).
      const bool was_swapped = p.swapped;
      plan_execution(s);
      if (p.swapped != was_swapped) std::swap(pr.x, pr.y);
    }
    if (s.is_line_aligned()) {
      const RangeProfile& qx = p.swapped ? pb : pa;
      const RangeProfile& qy = p.swapped ? pa : pb;
      p.line_exp_x = pr.x.line_exp;
      p.line_exp_y = pr.y.line_exp;
      p.scale_exp_x = split::aligned_scale_exp(s.kind, qx.max_abs);
      p.scale_exp_y = split::aligned_scale_exp(s.kind, qy.max_abs);
      p.alpha = static_cast<T>(static_cast<double>(alpha) * std::ldexp(1.0, -p.scale_exp_x - p.scale_exp_y));
    }
  }

  if (s.family() == ImplFamily::crt) {
    // auto picked int8-crt: its certificate decides N on the operands (dispatch/crt_path.cpp); with
    // none certified (or NaN/Inf) C is untouched and the plan's next pick runs (pick_without_crt).
    GemmOptions o = options;
    o.scheme = s;
    const std::string why = detail::run_crt<T>(o, p, ws, wso.record_timings, report);
    if (!why.empty())
      return ::tcemu::detail::crt_next_pick(options, report, s.name, why, [&](const GemmOptions& f) {
        return gemm_device<T>(opA, opB, alpha, A, B, beta, C, f, stream, wsp);
      });
    report.plan.certificate = certificate_summary(report.certificate, report.plan, a.rows, b.cols, p.k, auto_model);
    ep.stages.insert(ep.stages.end(), {Stage::split, Stage::products, Stage::combine});
    finish(s);
    return report;
  }

  switch (s.family()) {
    case ImplFamily::native:
      report.kernels = "cuBLAS";
      TCEMU_CUDA(cudaEventRecord(ev[1], st));
      detail::run_native<T>(s, p, ws);
      TCEMU_CUDA(cudaEventRecord(ev[2], st));
      ep.stages.push_back(Stage::products);
      break;
    case ImplFamily::int_slices:
      report.kernels = "Ozaki slices (cuBLAS INT8)";
      detail::run_ozaki<T>(s, p, ws, pr.x.line_exp, pr.y.line_exp, ev[1], ev[2]);
      ep.stages.insert(ep.stages.end(), {Stage::split, Stage::products, Stage::combine});
      break;
    default:
      report.kernels = p.fused ? detail::fused::kernel_name(s, p.exec->fused_mma) : "multi-pass (cuBLAS per group)";
      if (!before_plan.split) {
        detail::split_panels<T>(s, p, ws, ProfileArgs{}, ProfileArgs{});
        TCEMU_CUDA(cudaEventRecord(ev[1], st));
        ep.stages.push_back(Stage::split);
      }
      if (!before_plan.products) {
        detail::run_parts_products<T>(s, p, ws, ev[2]);
        ep.stages.push_back(Stage::products);
      }
      if (!detail::products_write_c(p)) {
        detail::run_parts_combine<T>(s, p, ws);
        ep.stages.push_back(Stage::combine);
      }
      break;
  }
  TCEMU_CUDA(cudaEventRecord(ev[3], st));
  if (wso.record_timings) ws.read_stage_seconds(report);
  finish(s);
  return report;
}

template <class T>
RangeProfile profile_device(MatrixView<const T> opX, Side side, Stream stream, Workspace* wsp) {
  Workspace::Impl& ws = (wsp ? *wsp : default_workspace()).impl();
  const MatrixView<const T> v = side == Side::A ? opX : opX.transposed();
  const std::size_t bytes = detail::profile_bytes(v.rows);
  const ProfileArgs pa = detail::profile_layout(ws.get(kSlotProfile, bytes, stream), v.rows);
  detail::profile_reset(pa, v.rows, stream);
  const detail::SplitSpec none{};
  detail::split_operand<T>(v.data, v.rows, v.cols, v.row_stride, v.col_stride, none, nullptr, v.cols, pa,
                           stream);
  detail::profile_finalize(pa, v.rows, v.cols, stream);
  auto* h = static_cast<ProfileTotals*>(ws.host(sizeof(ProfileTotals)));
  TCEMU_CUDA(cudaMemcpyAsync(h, pa.totals, sizeof(ProfileTotals), cudaMemcpyDeviceToHost, stream));
  TCEMU_CUDA(cudaStreamSynchronize(stream));
  return to_profile(*h, v.rows, v.cols);
}

#define TCEMU_GEMM_DEVICE(T)                                                                        \
  template GemmReport gemm_device<T>(Op, Op, T, MatrixView<const T>, MatrixView<const T>, T,       \
                                     MatrixView<T>, const GemmOptions&, Stream, Workspace*);       \
  template RangeProfile profile_device<T>(MatrixView<const T>, Side, Stream, Workspace*);
TCEMU_GEMM_DEVICE(float)
TCEMU_GEMM_DEVICE(double)
#undef TCEMU_GEMM_DEVICE

}  // namespace tcemu::cuda
