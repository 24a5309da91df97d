// CUDA backend entry: orientation, range profile (fused with the split), scheme resolution shared
// with the host (resolve_scheme), dispatch to the paths, timings.
#include <cmath>
#include <cstring>

#include "cuda/dispatch/crt_path.hpp"
#include "cuda/kernels/fused.hpp"
#include "cuda/dispatch/paths.hpp"
#include "tcemu/cuda/calibrate.hpp"
#include "tcemu/cuda/gemm_cuda.hpp"
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
  Entry& e = cache[next];
  next = (next + 1) % 8;
  e = Entry{m, n, k, target, &model, plan(nominal(m), nominal(n), m, n, k, target, model)};
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

float elapsed(cudaEvent_t a, cudaEvent_t b) {
  float ms = 0;
  TCEMU_CUDA(cudaEventElapsedTime(&ms, a, b));
  return ms;
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
  Workspace& wso = wsp ? *wsp : default_workspace();
  Workspace::Impl& ws = wso.impl();
  cudaStream_t st = stream;

  // Orientation: acc = X . Y^T column-major; swap operands when C is row-major.
  detail::Problem<T> p;
  const detail::Operand<T> oa{a.data, a.rows, a.row_stride, a.col_stride};
  const detail::Operand<T> ob{b.data, b.cols, b.col_stride, b.row_stride};
  p.swapped = C.col_stride == 1 && C.row_stride != 1;
  p.x = p.swapped ? ob : oa;
  p.y = p.swapped ? oa : ob;
  p.m = p.x.lines;
  p.n = p.y.lines;
  p.k = a.cols;
  p.c = C.data;
  p.c_rs = p.swapped ? C.col_stride : C.row_stride;
  p.c_cs = p.swapped ? C.row_stride : C.col_stride;
  p.alpha = alpha;
  p.beta = beta;
  p.stream = st;
  p.exec = &options.execution;

  cudaEvent_t* ev = ws.ev;
  TCEMU_CUDA(cudaEventRecord(ev[0], st));
  if (p.k == 0) {  // BLAS semantics: C = beta * C (not read when beta == 0)
    detail::combine_groups<T, T>(nullptr, 0, 0, 0, 1, nullptr, p.m, p.n, alpha, beta, p.c, p.c_rs, p.c_cs, st);
    return report;
  }

  if (options.scheme.family() == ImplFamily::crt) {  // int8-crt: its own stages (dispatch/crt_path.cpp)
    const std::string why = detail::run_crt<T>(options, p, ws, wso.record_timings, report);
    if (!why.empty())
      return ::tcemu::detail::scheme_fallback(options, why, [&](const GemmOptions& o) {
        return gemm_device<T>(opA, opB, alpha, A, B, beta, C, o, stream, wsp);
      });
    return report;
  }

  if (options.scheme.family() == ImplFamily::tile_exponent) {
    // The tile rule needs the packed tiles: the pack pass decides between the kernel and a fallback.
    mixpert::PackCheck cx, cy;
    const bool ignore = options.range_policy == RangePolicy::ignore;
    const bool ran = detail::run_mixpert<T>(options.scheme, p, ws, ignore, cx, cy, ev[1]);
    const std::string why = ::tcemu::detail::mixpert_violation(p.swapped ? cy : cx, p.swapped ? cx : cy, a.rows, b.cols, p.k);
    if (!ran)
      return ::tcemu::detail::mixpert_fallback(options, why, [&](const GemmOptions& o) {
        return gemm_device<T>(opA, opB, alpha, A, B, beta, C, o, stream, wsp);
      });
    report.kernels = "MixPert kernel (mma.sync)";
    TCEMU_CUDA(cudaEventRecord(ev[2], st));
    TCEMU_CUDA(cudaEventRecord(ev[3], st));
    if (wso.record_timings) {
      TCEMU_CUDA(cudaEventSynchronize(ev[3]));
      report.seconds_split = 1e-3 * elapsed(ev[0], ev[1]);
      report.seconds_products = 1e-3 * elapsed(ev[1], ev[2]);
    }
    return report;
  }

  const Scheme& req = options.scheme;
  // What is split before the profile is known: the requested scheme, or for `auto` the scheme it
  // picks for this shape on in-range operands (nominal_plan), confirmed by resolve_scheme on the
  // real profile below. A native pick there is final: such calls skip the profile.
  const Plan* nominal = req.is_automatic() ? &nominal_plan(req.target, a.rows, b.cols, p.k, model) : nullptr;
  const Scheme spec = nominal ? nominal->chosen : req;
  RangeProfile pa, pb;
  Scheme s;
  bool split_done = false;
  Profiles pr{};
  if (nominal && spec.is_native()) {
    // auto with a native pick (final, see nominal_plan): what resolve_scheme reports for a native
    // scheme (never out of range), with auto's plan, at no cost of a profile or a second plan.
    s = spec;
    report.requested = req;
    report.used = spec;
    report.plan = *nominal;
  } else if (spec.is_native()) {
    s = resolve_scheme(options, pa, pb, a.rows, b.cols, p.k, model, report);
  } else {
    pr = profile_areas(p.m, p.n, ws, st);
    // Ozaki (slice count) and the line-aligned schemes (line exponents) need the profile first.
    const bool profile_only = spec.family() == ImplFamily::int_slices || spec.needs_profile_before_split();
    if (profile_only) {
      const detail::SplitSpec none{};
      detail::split_operand<T>(p.x.data, p.m, p.k, p.x.line_stride, p.x.k_stride, none, nullptr, p.k, pr.x, st);
      detail::split_operand<T>(p.y.data, p.n, p.k, p.y.line_stride, p.y.k_stride, none, nullptr, p.k, pr.y, st);
    } else {
      detail::split_panels<T>(spec, p, ws, pr.x, pr.y);  // split fused with the profile
    }
    const ProfileTotals* h = queue_profile_readback(pr, p.m, p.n, p.k, ws, st, ev[1]);
    // The split scheme is kept unless the range check falls back (or `auto` decides otherwise on the
    // real profile): queue its products now, so that the GPU works while the host waits for the
    // profile and plans (no idle gap after the split). Otherwise they are simply not used.
    if (!profile_only) detail::run_parts_products<T>(spec, p, ws, ev[2], detail::kStageProducts);
    TCEMU_CUDA(cudaEventSynchronize(ev[1]));
    const RangeProfile px = to_profile(h[0], p.m, p.k), py = to_profile(h[1], p.n, p.k);
    pa = p.swapped ? py : px;
    pb = p.swapped ? px : py;
    s = resolve_scheme(options, pa, pb, a.rows, b.cols, p.k, model, report);
    split_done = !profile_only && s.name == spec.name;
    if (s.is_line_aligned()) {
      p.line_exp_x = pr.x.line_exp;
      p.line_exp_y = pr.y.line_exp;
      p.scale_exp_x = split::aligned_scale_exp(s.kind, px.max_abs);
      p.scale_exp_y = split::aligned_scale_exp(s.kind, py.max_abs);
      p.alpha = static_cast<T>(static_cast<double>(alpha) * std::ldexp(1.0, -p.scale_exp_x - p.scale_exp_y));
    }
  }

  switch (s.family()) {
    case ImplFamily::native:
      report.kernels = "cuBLAS";
      TCEMU_CUDA(cudaEventRecord(ev[1], st));
      detail::run_native<T>(s, p, ws);
      TCEMU_CUDA(cudaEventRecord(ev[2], st));
      break;
    case ImplFamily::int_slices:
      report.kernels = "Ozaki slices (cuBLAS INT8)";
      detail::run_ozaki<T>(s, p, ws, pr.x.line_exp, pr.y.line_exp, ev[1], ev[2]);
      break;
    default:
      report.kernels = detail::use_fused(s, p.exec->kernels) ? detail::fused::kernel_name(s, p.exec->fused_mma) : "multi-pass (cuBLAS per group)";
      if (split_done) {  // split and products already queued
        detail::run_parts_products<T>(s, p, ws, ev[2], detail::kStageCombine);
        break;
      }
      detail::split_panels<T>(s, p, ws, ProfileArgs{}, ProfileArgs{});
      TCEMU_CUDA(cudaEventRecord(ev[1], st));
      detail::run_parts_products<T>(s, p, ws, ev[2], detail::kStageProducts | detail::kStageCombine);
      break;
  }
  TCEMU_CUDA(cudaEventRecord(ev[3], st));
  if (wso.record_timings) {
    TCEMU_CUDA(cudaEventSynchronize(ev[3]));
    report.seconds_split = 1e-3 * elapsed(ev[0], ev[1]);
    report.seconds_products = 1e-3 * elapsed(ev[1], ev[2]);
    report.seconds_combine = 1e-3 * elapsed(ev[2], ev[3]);
  }
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
