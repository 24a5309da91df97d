// Measured cost model of `auto` on the GPU: timing of the schemes on a few shape classes, fit per
// scheme (fit_measured_cost), on-disk cache per GPU model, policy (ExecutionPolicy::calibration). See
// tcemu/cuda/calibrate.hpp.
#include "tcemu/cuda/calibrate.hpp"
#include "tcemu/cuda/timing.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <sstream>
#include <vector>

#include "cuda/dispatch/paths.hpp"
#include "tcemu/cuda/check.hpp"
#include "tcemu/cuda/reference_cuda.hpp"
#include "tcemu/planning.hpp"
#include "tcemu/schemes/all.hpp"
#include "tcemu/schemes/crt.hpp"

namespace tcemu::cuda {
namespace {

/// The shape classes timed, each dominated by one cost term (calibrate.hpp).
struct CalShape {
  std::int64_t m, n, k;
};
constexpr CalShape kShapes[] = {
    {256, 256, 256},       // fixed cost
    {1024, 1024, 1024},    // small: fixed cost + products
    {4096, 4096, 4096},    // products
    {8192, 8192, 8192},    // products at the largest size in use
    {8192, 8192, 64},      // output (epilogues, combine)
    {32768, 64, 2048},     // operand split
    {16384, 1024, 784},    // tall-skinny mix (knn / kmeans class)
};
/// One representative per shape class (ShapeClass, tcemu/select.hpp) on which a scheme's fused kernel
/// and its multi-pass implementation are timed against each other, once with beta = 0 and once with
/// beta = 1 (ImplementationTiming). square: k = 1,024 as in hplai's trailing updates, where C's read
/// decides; tall and wide: knn's and kmeans' distance GEMMs (k = 784) as the kernel sees them with a
/// column-major C, where the two measured within a few per cent of each other (docs/perf-notes.md
/// section 8). Each is timed with a column-major C, so the layout orientation keeps it as listed.
struct ImplementationShape {
  ShapeClass shape;
  CalShape size;
};
constexpr ImplementationShape kImplementationShapes[] = {
    {ShapeClass::square, {8192, 8192, 1024}},
    {ShapeClass::tall, {65536, 1024, 784}},
    {ShapeClass::wide, {1024, 65536, 784}},
};
static_assert(shape_class(8192, 8192) == ShapeClass::square && shape_class(65536, 1024) == ShapeClass::tall &&
                  shape_class(1024, 65536) == ShapeClass::wide,
              "each implementation shape must belong to its class");
constexpr int kWarmup = 1;
constexpr int kRepeat = 5;

std::recursive_mutex g_mu;
std::map<int, std::shared_ptr<const CostModel>> g_measured;  ///< calibrated_cost_model's, per model key
std::map<int, std::shared_ptr<const CostModel>> g_in_use;    ///< device_cost_model's, per model key
std::map<int, bool> g_forced;                                  ///< "force" already honoured, per model key

int current_device() {
  int dev = 0;
  TCEMU_CUDA(cudaGetDevice(&dev));
  return dev;
}

/// The memo key of a model: the device and the three policy fields that change what is timed (the
/// orientation policy changes how a fused kernel runs the tall and wide classes' representatives).
int model_key(const ExecutionPolicy& policy) {
  return current_device() * 16 + static_cast<int>(policy.kernels) * 4 + (policy.fused_mma == FusedMma::mma_sync ? 2 : 0) +
         (policy.orientation == OrientationPolicy::tiles ? 1 : 0);
}

std::string sanitize(const std::string& s) {
  std::string out;
  for (char c : s) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-') ? c : '_';
  return out;
}

/// The schemes timed for `t`: their descriptors say so (calibration_schemes, tcemu/select.hpp).
std::vector<Scheme> schemes_for(Target t) { return calibration_schemes(t); }

/// Device buffers for the calibration's operands and C, large enough for every timed shape, with
/// uniform(-1, 1) data.
template <class T>
struct CalBuffers {
  DeviceBuffer<T> A, B, C;
  static std::size_t most(std::int64_t CalShape::*x, std::int64_t CalShape::*y) {
    std::int64_t v = 0;
    for (const ImplementationShape& s : kImplementationShapes) v = std::max(v, s.size.*x * (s.size.*y));
    for (const CalShape& s : kShapes) v = std::max(v, s.*x * (s.*y));
    return static_cast<std::size_t>(v);
  }
  CalBuffers()
      : A(most(&CalShape::m, &CalShape::k)), B(most(&CalShape::k, &CalShape::n)), C(most(&CalShape::m, &CalShape::n)) {
    fill_random_device(col_major(A.get(), static_cast<std::int64_t>(A.size()), 1), Distribution{}, 0x5eed0001, nullptr);
    fill_random_device(col_major(B.get(), static_cast<std::int64_t>(B.size()), 1), Distribution{}, 0x5eed0002, nullptr);
    fill_random_device(col_major(C.get(), static_cast<std::int64_t>(C.size()), 1), Distribution{}, 0x5eed0003, nullptr);
  }
};

/// Restores Workspace::record_timings on every way out.
struct RecordTimingsOff {
  Workspace& ws;
  bool saved;
  explicit RecordTimingsOff(Workspace& w) : ws(w), saved(w.record_timings) { ws.record_timings = false; }
  ~RecordTimingsOff() { ws.record_timings = saved; }
};

/// One timed call of `sc` under `kernels` (never automatic: the planning step would ask for the
/// model being measured) on sh with the given beta.
template <class T>
std::function<void()> timed_call(CalBuffers<T>& buf, const CalShape& sh, const Scheme& sc, const ExecutionPolicy& policy,
                                 CudaKernels kernels, T beta, Workspace& ws) {
  GemmOptions o;
  o.scheme = sc;
  o.range_policy = RangePolicy::ignore;  // uniform data is in range; never time a fallback
  o.execution = policy;                  // time what the calls that use the model will run
  o.execution.kernels = kernels;
  const MatrixView<const T> a = col_major<const T>(buf.A.get(), sh.m, sh.k);
  const MatrixView<const T> b = col_major<const T>(buf.B.get(), sh.k, sh.n);
  const MatrixView<T> c = col_major(buf.C.get(), sh.m, sh.n);
  return [=, &ws] { gemm_device<T>(Op::N, Op::N, T(1), a, b, beta, c, o, nullptr, &ws); };
}

/// Fused against multi-pass for every FP32-target scheme of the calibration set that has a fused
/// kernel on this device, on each of kImplementationShapes with beta = 0 and beta = 1, each pair timed
/// interleaved (float data; the choice serves double data too).
std::vector<ImplementationTiming> measure_implementations(const ExecutionPolicy& policy, Workspace& ws) {
  std::vector<ImplementationTiming> out;
  CalBuffers<float> buf;
  RecordTimingsOff off(ws);
  for (const Scheme& sc : schemes_for(Target::fp32)) {
    if (!detail::has_fused_kernel(sc)) continue;
    for (const ImplementationShape& is : kImplementationShapes)
      for (const bool reads_c : {false, true}) {
        const CalShape& sh = is.size;
        const float beta = reads_c ? 1.f : 0.f;
        const std::vector<RunTimes> rt = time_runs_interleaved(
            {timed_call(buf, sh, sc, policy, CudaKernels::fused, beta, ws),
             timed_call(buf, sh, sc, policy, CudaKernels::multipass, beta, ws)},
            kWarmup, kRepeat);
        out.push_back(ImplementationTiming{sc.kind, reads_c, is.shape, sh.m, sh.n, sh.k, 1e-3 * rt[0].median_ms,
                                           1e-3 * rt[1].median_ms});
      }
  }
  return out;
}

/// The implementation the fits time `sc` with on `sh` (beta = 0, C column-major): the policy's, and
/// for automatic what the planning step will pick from `impl` for that shape's class.
CudaKernels kernels_for_fit(const Scheme& sc, const CalShape& sh, const ExecutionPolicy& policy,
                            const std::vector<ImplementationTiming>& impl) {
  if (policy.kernels != CudaKernels::automatic) return policy.kernels;
  if (!detail::has_fused_kernel(sc)) return CudaKernels::fused;  // the planning step runs multi-pass either way
  CostModel timings;
  timings.implementation_timings = impl;
  const ImplementationChoice c = choose_split_implementation(
      sc, true, CudaKernels::automatic, false, implementation_shape_class(sh.m, sh.n, false), &timings);
  return c.implementation == Implementation::fused ? CudaKernels::fused : CudaKernels::multipass;
}

/// int8-crt's certificate on `sh`: one call with N per call names the certified N (its report), then
/// N per call and that N given are timed interleaved; their difference is the certificate's time
/// (appended to `certificate`, at least 1 us: a fit needs positive times), the given-N time one more
/// sample of the per-modulus fit (appended to `out`).
template <class T>
void measure_certificate(Target t, const CalShape& sh, const ExecutionPolicy& policy, CalBuffers<T>& buf,
                         Workspace& ws, std::vector<CostSample>& out, std::vector<CostSample>& certificate) {
  const Scheme per_call = parse_scheme(schemes::Int8Crt::desc.name, t);
  GemmOptions o;
  o.scheme = per_call;
  o.range_policy = RangePolicy::ignore;
  o.execution = policy;
  const GemmReport r = gemm_device<T>(Op::N, Op::N, T(1), col_major<const T>(buf.A.get(), sh.m, sh.k),
                                      col_major<const T>(buf.B.get(), sh.k, sh.n), T(0),
                                      col_major(buf.C.get(), sh.m, sh.n), o, nullptr, &ws);
  const int N = moduli_in_certificate(r.certificate);
  if (N == 0) throw DeviceError("cost model calibration: " + std::string(schemes::Int8Crt::desc.name) + "'s report names no N: '" + r.certificate + "'");
  const Scheme given = parameterized_scheme(schemes::kind_of<schemes::Int8Crt>, N, t);
  const std::vector<RunTimes> rt =
      time_runs_interleaved({timed_call(buf, sh, per_call, policy, CudaKernels::fused, T(0), ws),
                             timed_call(buf, sh, given, policy, CudaKernels::fused, T(0), ws)},
                            kWarmup, kRepeat);
  out.push_back(CostSample{given, sh.m, sh.n, sh.k, 1e-3 * rt[1].median_ms, t});
  certificate.push_back(
      CostSample{per_call, sh.m, sh.n, sh.k, std::max(1e-6, 1e-3 * (rt[0].median_ms - rt[1].median_ms)), t});
}

/// Times every scheme of `t` on every shape class with data of type T; appends the samples (and, when
/// int8-crt is in the set, its certificate's to `certificate`).
template <class T>
void measure(Target t, const ExecutionPolicy& policy, const std::vector<ImplementationTiming>& impl, Workspace& ws,
             std::vector<CostSample>& out, std::vector<CostSample>& certificate) {
  CalBuffers<T> buf;
  RecordTimingsOff off(ws);
  const std::vector<Scheme> set = schemes_for(t);
  const bool crt = std::any_of(set.begin(), set.end(), [](const Scheme& s) { return s.family() == ImplFamily::crt; });
  for (const CalShape& sh : kShapes) {
    // The schemes of one shape call by call in turn: timed one after another, the first ones ran at
    // the clock the previous shape left and the INT8 ones at the power cap's, so that at 8192^3 DGEMM
    // was predicted 7-12 % faster than it runs beside int8-crt and auto picked it (docs/perf-notes.md
    // "Session 33").
    std::vector<std::function<void()>> calls;
    for (const Scheme& sc : set)
      calls.push_back(timed_call(buf, sh, sc, policy, kernels_for_fit(sc, sh, policy, impl), T(0), ws));
    const std::vector<RunTimes> rt = time_runs_interleaved(calls, kWarmup, kRepeat);
    for (std::size_t i = 0; i < set.size(); ++i)
      out.push_back(CostSample{set[i], sh.m, sh.n, sh.k, 1e-3 * rt[i].median_ms, t});
    if (crt) measure_certificate(t, sh, policy, buf, ws, out, certificate);
  }
}

/// Measures the whole table and fits it (calibrate.hpp).
CostModel measure_model(const ExecutionPolicy& policy, Workspace* wsp, const std::string& cache) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::string dev = device_description();
  std::fprintf(stderr, "tcemu: measuring the cost model of auto on %s (%zu shapes x %zu schemes, a few s)%s%s\n",
               dev.c_str(), sizeof kShapes / sizeof kShapes[0],
               schemes_for(Target::fp32).size() + schemes_for(Target::fp64).size(), cache.empty() ? "" : "; cache: ",
               cache.c_str());
  TCEMU_CUDA(cudaDeviceSynchronize());
  std::unique_ptr<Workspace> own;
  if (!wsp) own = std::make_unique<Workspace>();
  Workspace& ws = wsp ? *wsp : *own;
  std::vector<CostSample> samples, certificate;
  const std::vector<ImplementationTiming> impl = measure_implementations(policy, ws);
  measure<float>(Target::fp32, policy, impl, ws, samples, certificate);
  measure<double>(Target::fp64, policy, impl, ws, samples, certificate);
  if (own) own->release();

  CostModel m = CostModel::h200_anchors();
  m.device = dev + " (measured)";
  m.samples = samples;
  m.implementation_timings = impl;
  // One fit per (kind, target), in the order measured.
  std::vector<std::pair<SchemeKind, Target>> keys;
  for (const CostSample& s : samples) {
    const auto key = std::make_pair(s.scheme.kind, s.target);
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
  }
  for (const auto& [kind, target] : keys) {
    std::vector<CostSample> group;
    for (const CostSample& s : samples)
      if (s.scheme.kind == kind && s.target == target) group.push_back(s);
    m.measured.push_back(fit_measured_cost(group));
  }
  m.certificate_samples = certificate;
  for (const Target t : {Target::fp32, Target::fp64}) {
    std::vector<CostSample> group;
    for (const CostSample& s : certificate)
      if (s.target == t) group.push_back(s);
    if (!group.empty()) m.certificate_costs.push_back(fit_certificate_cost(group));
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::fprintf(stderr, "tcemu: cost model measured in %.1f s (%zu timings, %zu fits, %zu fused/multi-pass pairs)\n",
               secs, samples.size(), m.measured.size(), impl.size());
  return m;
}

/// Writes the cache under a temporary name and renames it; one line on stderr when that fails.
void write_cache(const std::string& path, const CostModel& m) {
  if (path.empty()) return;
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream f(tmp, std::ios::trunc);
    f << m.to_text();
    f.flush();
    if (!f) {
      std::fprintf(stderr, "tcemu: %s: cannot write the cost model cache (kept in memory only)\n", tmp.c_str());
      fs::remove(tmp, ec);
      return;
    }
  }
  fs::rename(tmp, path, ec);
  if (ec) {
    std::fprintf(stderr, "tcemu: %s: cannot rename the cost model cache into place: %s\n", path.c_str(),
                 ec.message().c_str());
    fs::remove(tmp, ec);
  }
}

/// The cache file's model, or nullptr when there is none or it is corrupt (reported in one line).
std::shared_ptr<const CostModel> read_cache(const std::string& path) {
  if (path.empty()) return nullptr;
  std::ifstream f(path);
  if (!f) return nullptr;
  std::stringstream ss;
  ss << f.rdbuf();
  try {
    CostModel m = CostModel::from_text(ss.str(), path);
    for (Target t : {Target::fp32, Target::fp64})
      for (const Scheme& s : schemes_for(t)) {
        const MeasuredCost* c = m.find_measured(s, t);
        if (!c || c->target != t)
          throw InvalidArgument(path + ": no " + to_string(t) + "-target fit for " + s.name);
        if (s.family() == ImplFamily::crt && !m.find_certificate(t))
          throw InvalidArgument(path + ": no " + to_string(t) + "-target certificate cost for " + s.name);
      }
    return std::make_shared<const CostModel>(std::move(m));
  } catch (const Error& e) {
    std::fprintf(stderr, "tcemu: corrupt cost model cache, measuring again: %s\n", e.what());
    return nullptr;
  }
}

}  // namespace

std::string calibration_cache_path(const ExecutionPolicy& policy) {
  const std::string& dir = policy.calibration_cache_dir;
  if (dir.empty()) return "";
  cudaDeviceProp p{};
  TCEMU_CUDA(cudaGetDeviceProperties(&p, current_device()));
  int drv = 0, rt = 0, cb_major = 0, cb_minor = 0, cb_patch = 0;
  TCEMU_CUDA(cudaDriverGetVersion(&drv));
  TCEMU_CUDA(cudaRuntimeGetVersion(&rt));
  TCEMU_CUBLAS(cublasGetProperty(MAJOR_VERSION, &cb_major));
  TCEMU_CUBLAS(cublasGetProperty(MINOR_VERSION, &cb_minor));
  TCEMU_CUBLAS(cublasGetProperty(PATCH_LEVEL, &cb_patch));
  char name[512];
  // v4: fused against multi-pass per scheme and beta class (`impl` lines), the fits timed with
  // the implementation the planning step picks; the policy's kernels named in the file.
  // v5: per shape class too (text version 3); "-tiles" for OrientationPolicy::tiles.
  // v6: int8-crt per modulus count and its certificate (text version 4).
  // v7: int8-crt's products on the wgmma kernel (v6 files timed cuBLAS's); "-crt-cublas" /
  // "-crt-int32" for the other ExecutionPolicy::crt_products choices.
  // v8: the schemes of one shape timed interleaved (v7 timed them one after another).
  const std::string kernels = std::string(to_string(policy.kernels)) +
                              (policy.fused_mma == FusedMma::mma_sync ? "-mma.sync" : "") +
                              (policy.orientation == OrientationPolicy::tiles ? "-tiles" : "") +
                              (policy.crt_products == CrtProducts::cublas        ? "-crt-cublas"
                               : policy.crt_products == CrtProducts::wgmma_int32 ? "-crt-int32"
                                                                                 : "");
  std::snprintf(name, sizeof name, "cost-model-v8-%s-%s-sm%d%d-drv%d-rt%d-cublas%d.%d.%d.txt", kernels.c_str(),
                sanitize(p.name).c_str(), p.major, p.minor, drv, rt, cb_major, cb_minor, cb_patch);
  return dir + "/" + name;
}

CostModel calibrated_cost_model(const ExecutionPolicy& policy, Workspace* ws, bool recalibrate) {
  std::lock_guard<std::recursive_mutex> lock(g_mu);
  const int dev = model_key(policy);
  const std::string path = calibration_cache_path(policy);
  if (!recalibrate) {
    if (auto it = g_measured.find(dev); it != g_measured.end()) return *it->second;
    if (auto m = read_cache(path)) {
      g_measured[dev] = m;
      return *m;
    }
  }
  auto m = std::make_shared<const CostModel>(measure_model(policy, ws, path));
  write_cache(path, *m);
  g_measured[dev] = m;
  g_in_use[dev] = m;  // a recalibration also replaces what auto uses
  if (recalibrate) g_forced[dev] = true;  // CalibrationPolicy::force is then honoured already
  return *m;
}

std::shared_ptr<const CostModel> device_cost_model(const ExecutionPolicy& execution) {
  static const auto anchors = std::make_shared<const CostModel>(CostModel::h200_anchors());
  const CalibrationPolicy policy = execution.calibration;
  if (policy == CalibrationPolicy::anchors) return anchors;
  std::lock_guard<std::recursive_mutex> lock(g_mu);
  const int dev = model_key(execution);
  const bool forced = policy == CalibrationPolicy::force && !g_forced[dev];
  if (!forced)
    if (auto it = g_in_use.find(dev); it != g_in_use.end()) return it->second;
  std::shared_ptr<const CostModel> m;
  try {
    if (policy == CalibrationPolicy::cache_only) {
      if (auto it = g_measured.find(dev); it != g_measured.end()) m = it->second;
      else m = read_cache(calibration_cache_path(execution));
      if (!m) m = anchors;
    } else {
      m = std::make_shared<const CostModel>(calibrated_cost_model(execution, nullptr, forced));
    }
  } catch (const Error& e) {
    std::fprintf(stderr, "tcemu: cost model calibration failed, auto uses the H200 anchors: %s\n", e.what());
    (void)cudaGetLastError();
    m = anchors;
  }
  if (policy == CalibrationPolicy::force) g_forced[dev] = true;
  g_in_use[dev] = m;
  return m;
}

std::shared_ptr<const CostModel> implementation_cost_model(const ExecutionPolicy& execution) {
  if (execution.calibration == CalibrationPolicy::anchors) return nullptr;
  if (!execution.calibration_cache_dir.empty()) return device_cost_model(execution);
  std::lock_guard<std::recursive_mutex> lock(g_mu);
  const int dev = model_key(execution);
  if (auto it = g_in_use.find(dev); it != g_in_use.end()) return it->second;
  if (auto it = g_measured.find(dev); it != g_measured.end()) return it->second;
  return nullptr;
}

std::string describe_cost_model(const CostModel& model) {
  std::ostringstream os;
  char line[512];
  os << "cost model: " << model.device << "\n";
  if (model.measured.empty()) {
    os << "  (no measured costs: rate formula only)\n";
    return os.str();
  }
  std::snprintf(line, sizeof line, "  %-12s %-6s %10s %12s %14s %14s %14s %8s\n", "fit", "target", "fixed us",
                "per slice us", "operand ps/el", "output ps/el", "eff. TFLOP/s", "max res");
  os << line;
  for (const MeasuredCost& c : model.measured) {
    std::string name = "?";
    for (const Scheme& x : catalogue(c.target))
      if (x.kind == c.kind) name = schemes::descriptor(c.kind).name;
    std::snprintf(line, sizeof line, "  %-12s %-6s %10.2f %12.2f %14.2f %14.2f %14.1f %7.1f%%\n", name.c_str(),
                  to_string(c.target), c.coef[0] * 1e6, c.coef[1] * 1e6, c.coef[2] * 1e12, c.coef[3] * 1e12,
                  c.coef[4] > 0 ? 2.0 / c.coef[4] / 1e12 : 0.0, 100 * c.fit_error);
    os << line;
  }
  const std::string certificate_label = std::string(schemes::Int8Crt::desc.name) + " cert.";
  for (const MeasuredCost& c : model.certificate_costs) {
    std::snprintf(line, sizeof line, "  %-12s %-6s %10.2f %12s %14.2f %14.2f %14.1f %7.1f%%\n", certificate_label.c_str(),
                  to_string(c.target), c.coef[0] * 1e6, "-", c.coef[2] * 1e12, c.coef[3] * 1e12,
                  c.coef[4] > 0 ? 2.0 / c.coef[4] / 1e12 : 0.0, 100 * c.fit_error);
    os << line;
  }
  if (!model.implementation_timings.empty()) {
    std::snprintf(line, sizeof line, "  %-14s %-7s %-10s %-20s %12s %14s %s\n", "implementation", "shape", "beta",
                  "m x n x k", "fused ms", "multi-pass ms", "auto picks");
    os << line;
    for (const ImplementationTiming& t : model.implementation_timings) {
      char shape[64];
      std::snprintf(shape, sizeof shape, "%lldx%lldx%lld", (long long)t.m, (long long)t.n, (long long)t.k);
      std::snprintf(line, sizeof line, "  %-14s %-7s %-10s %-20s %12.4f %14.4f %s\n", schemes::descriptor(t.kind).name,
                    to_string(t.shape), t.reads_c ? "beta != 0" : "beta = 0", shape, t.fused_seconds * 1e3,
                    t.multipass_seconds * 1e3, t.fused_seconds <= t.multipass_seconds ? "fused" : "multi-pass");
      os << line;
    }
  }
  if (!model.samples.empty()) {
    std::snprintf(line, sizeof line, "  %-14s %-6s %-20s %12s %12s %8s\n", "sample", "target", "m x n x k",
                  "measured ms", "predicted ms", "error");
    os << line;
    for (const CostSample& c : model.samples) {
      const double p = model.predict_seconds(c.scheme, c.m, c.n, c.k, c.target);
      char shape[64];
      std::snprintf(shape, sizeof shape, "%lldx%lldx%lld", (long long)c.m, (long long)c.n, (long long)c.k);
      std::snprintf(line, sizeof line, "  %-14s %-6s %-20s %12.4f %12.4f %+7.1f%%\n", c.scheme.name.c_str(),
                    to_string(c.target), shape, c.seconds * 1e3, p * 1e3,
                    100 * (p - c.seconds) / c.seconds);
      os << line;
    }
  }
  for (const CostSample& c : model.certificate_samples) {
    const double p = model.certificate_seconds(c.m, c.n, c.k, c.target);
    char shape[64];
    std::snprintf(shape, sizeof shape, "%lldx%lldx%lld", (long long)c.m, (long long)c.n, (long long)c.k);
    std::snprintf(line, sizeof line, "  %-14s %-6s %-20s %12.4f %12.4f %+7.1f%%\n", certificate_label.c_str(),
                  to_string(c.target), shape, c.seconds * 1e3, p * 1e3, 100 * (p - c.seconds) / c.seconds);
    os << line;
  }
  return os.str();
}

}  // namespace tcemu::cuda
