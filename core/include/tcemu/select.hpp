#pragma once
/// \file select.hpp
/// Automatic split selection (`auto`, docs/architecture.md "Scheme resolution"): candidates whose range and accuracy meet
/// the target, timed by a cost model, fastest one chosen, decision explainable.
#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tcemu/execution.hpp"
#include "tcemu/range_profile.hpp"
#include "tcemu/scheme.hpp"
#include "tcemu/schemes/all.hpp"

namespace tcemu {

/// Number of terms of a measured cost (see cost_features()).
inline constexpr int kCostFeatures = 5;

/// The terms a measured cost is linear in, for `scheme` (Ozaki: with its slice count s = parts) on an
/// m x n x k product:
///   [0] 1                         fixed cost of a call (launches, the range-profile read-back);
///   [1] s (Ozaki), N (int8-crt), else 0   per-slice / per-modulus launches;
///   [2] (m k + k n) (x s, Ozaki; x N, int8-crt)  operand elements read and split (residues written);
///   [3] m n (x s, Ozaki; x N, int8-crt)  output elements written by the products' epilogues / the
///                                 combine (int8-crt: the N INT32 products read by the reconstruction);
///   [4] m n k (x s(s+1)/2, Ozaki; x N, int8-crt) multiply-adds of the products (the scheme's product
///                                 count is in the coefficient for the split schemes).
/// int8-crt with N per call (parts 0) counts cost_parts_fp64 / _fp32 moduli here; its certificate
/// has a cost of its own (certificate_features(), CostModel::certificate_seconds()).
/// The operand term is symmetric in m and n, so a prediction does not depend on C's orientation.
std::array<double, kCostFeatures> cost_features(const Scheme& scheme, std::int64_t m, std::int64_t n,
                                                std::int64_t k);

/// One timed call used to calibrate a cost model: `scheme` (Ozaki with a fixed slice count) on an
/// m x n x k product took `seconds` (median of several runs, split included), on the data type of
/// `target` (fp32: float, fp64: double), i.e. standing for `auto` calls with that target.
struct CostSample {
  Scheme scheme;
  std::int64_t m = 0, n = 0, k = 0;
  double seconds = 0;
  Target target = Target::fp32;
};

/// Measured cost of one scheme kind on one device for the `auto` calls of one target (the target also
/// fixes the data type it was measured on: fp32 -> float data, fp64 -> double data; native fp64, for
/// instance, has one fit per target):
/// seconds = sum_i coef[i] * cost_features(scheme, m, n, k)[i], every coef >= 0.
struct MeasuredCost {
  SchemeKind kind = schemes::native_kind(PartType::fp32);
  Target target = Target::fp32;
  std::array<double, kCostFeatures> coef{};
  int points = 0;        ///< samples the fit used
  double fit_error = 0;  ///< largest |predicted - measured| / measured over those samples
};

/// Fits a MeasuredCost to samples of one scheme kind and CostSample::target: non-negative least squares on the
/// relative residuals (every subset of the terms is solved, the best one with all coefficients >= 0
/// wins; terms that are zero in every sample are left at 0). Throws InvalidArgument when `samples` is
/// empty or mixes kinds or targets.
MeasuredCost fit_measured_cost(const std::vector<CostSample>& samples);

/// The terms int8-crt's per-call certificate (crt::certify_int8 on the GPU, k <= 2^16) is linear in,
/// on an m x n x k product: {1 (its two read-backs), 0, m k + k n (the magnitude panels), m n (the
/// per-entry test of every N), m n k (its two INT8 magnitude products, k and 2k long)}.
std::array<double, kCostFeatures> certificate_features(std::int64_t m, std::int64_t n, std::int64_t k);

/// Fits the cost of int8-crt's certificate alone to `samples` (CostSample::seconds: a call with N
/// per call minus the same call with that N given, timed interleaved; scheme int8-crt, one target),
/// like fit_measured_cost on certificate_features(). Throws InvalidArgument when `samples` is empty,
/// mixes targets or holds a scheme other than int8-crt.
MeasuredCost fit_certificate_cost(const std::vector<CostSample>& samples);

/// Shape class of a product as the kernel sees it (m x n after the plan's orientation, C column-major
/// to it), the unit in which fused and multi-pass are compared (ImplementationTiming). The classes
/// follow where the two were measured to trade places (docs/perf-notes.md section 8, H100: fp16x2
/// fused loses 2-4 % at 60,000 x 1,024 x 784, wins 5 % at 1,024 x 60,000 x 784 and at 8192^3).
enum class ShapeClass {
  square,  ///< neither side narrow against the other: the default class (8192 x 8192, 4096 x 1024, ...)
  tall,    ///< n <= kShapeClassNarrow and m >= kShapeClassRatio * n: knn's and kmeans' distance GEMMs
  wide,    ///< m <= kShapeClassNarrow and n >= kShapeClassRatio * m: the same products transposed
};

/// The narrow side of a tall or wide product is at most this many elements.
inline constexpr std::int64_t kShapeClassNarrow = 2048;
/// The long side of a tall or wide product is at least this many times the narrow one.
inline constexpr std::int64_t kShapeClassRatio = 8;

/// The class of an m x n product as the kernel sees it (see ShapeClass); k does not enter (the
/// measured trade-off depends on the output's aspect, not on the depth). Non-positive m or n (an
/// empty product, which runs no implementation) is square. E.g. (60,000, 1,024): tall;
/// (1,024, 60,000): wide; (8,192, 8,192) and (16,384, 4,096): square.
constexpr ShapeClass shape_class(std::int64_t m, std::int64_t n) {
  if (m <= 0 || n <= 0) return ShapeClass::square;
  if (n <= kShapeClassNarrow && m >= kShapeClassRatio * n) return ShapeClass::tall;
  if (m <= kShapeClassNarrow && n >= kShapeClassRatio * m) return ShapeClass::wide;
  return ShapeClass::square;
}

/// "square", "tall" or "wide" (the cost model's text form).
const char* to_string(ShapeClass c);
/// The class's rule in words for reports, e.g. "tall (n <= 2048, m >= 8 n)".
std::string shape_class_rule(ShapeClass c);
/// Parses "square", "tall" or "wide"; throws InvalidArgument naming the value otherwise.
ShapeClass parse_shape_class(const std::string& name);

/// A scheme's fused kernel and its multi-pass implementation timed on one m x n x k shape (m x n as
/// the kernel sees it, of class `shape`) with beta == 0 (C is not read) or beta != 0 (the products
/// read C, as hplai's trailing updates C -= L21 U12 do); GPU calibration, tcemu/cuda/calibrate.hpp.
/// Seconds: median of whole calls. The planning step picks per (kind, reads_c, shape).
struct ImplementationTiming {
  SchemeKind kind = schemes::native_kind(PartType::fp32);
  bool reads_c = false;
  ShapeClass shape = ShapeClass::square;  ///< shape_class(m, n)
  std::int64_t m = 0, n = 0, k = 0;
  double fused_seconds = 0, multipass_seconds = 0;
};

/// Throughput model of one device: product rates per part type and memory bandwidth, optionally
/// with measured per-scheme costs.
/// predict_seconds(): the MeasuredCost of the scheme when the model has one (see find_measured()),
/// else the rate formula: sum over products of 2mnk / rate(part) + bytes moved by split/combine /
/// bandwidth.
struct CostModel {
  std::string device;          ///< e.g. "host (CBLAS)", "NVIDIA H200 (cuBLAS anchors, docs/benchmarks.md, 8192^3)"
  double tflops_fp64 = 0;      ///< native DGEMM rate
  double tflops_fp32 = 0;      ///< native SGEMM rate
  double tflops_tf32 = 0;      ///< rate of one TF32 product
  double tflops_bf16 = 0;
  double tflops_fp16 = 0;
  double tops_int8 = 0;
  double bandwidth_gbs = 0;    ///< device memory bandwidth for split/combine passes

  /// Host backend: every part product is an SGEMM (or DGEMM), so emulation never beats native there.
  static CostModel host();
  /// cuBLAS rates measured on an H200 at 8192^3 (docs/benchmarks.md, "cuBLAS anchors"), for the multi-pass CUDA backend.
  static CostModel h200_anchors();

  /// Measured costs (calibrated models, tcemu/cuda/calibrate.hpp); empty for host() and
  /// h200_anchors(), whose predictions come from the rates above alone.
  std::vector<MeasuredCost> measured;
  /// The timings `measured` was fitted to (kept for --explain and the cache file; may be empty).
  std::vector<CostSample> samples;
  /// Fused against multi-pass per scheme with a fused kernel, beta class and shape class (calibrated
  /// models; empty otherwise; at most one per (kind, reads_c, shape)): what ExecutionPolicy::kernels =
  /// automatic picks from (tcemu/planning.hpp).
  std::vector<ImplementationTiming> implementation_timings;
  /// int8-crt's certificate alone, per target (kind int8_crt; fit_certificate_cost), and the timings
  /// it was fitted to (per-call minus given-N time). Empty: the rate formula (certificate_seconds).
  std::vector<MeasuredCost> certificate_costs;
  std::vector<CostSample> certificate_samples;

  /// Predicted seconds of int8-crt's per-call certificate for an m x n x k product in a call of target
  /// `call`: the measured certificate cost of that target when the model has one and k <= 2^16
  /// (crt::kInt8CertificateMaxK, the INT8 certificate the calibration timed), else the rate formula:
  /// for k <= 2^16 three INT8 products, the magnitude panels (read the operand, write 5 bytes) and
  /// about 20 ps per entry for the test and the ratio pass (H100, docs/crt.md); beyond, crt::certify's FP64
  /// sums on the CUDA cores, about fifty DGEMMs' time.
  double certificate_seconds(std::int64_t m, std::int64_t n, std::int64_t k, Target call) const;
  /// The measured certificate cost of target `call`, or nullptr.
  const MeasuredCost* find_certificate(Target call) const;

  /// The timing of `kind` with beta class `reads_c` (beta != 0) and shape class `shape`, or nullptr
  /// when the model has none.
  const ImplementationTiming* find_implementation_timing(SchemeKind kind, bool reads_c, ShapeClass shape) const;

  /// Predicted time in seconds of `scheme` (Ozaki: with its slice count) for an m x n x k product in
  /// an `auto` call of target `call` (which selects the measured cost: float or double data).
  /// int8-crt with N per call: its cost at cost_parts moduli plus certificate_seconds().
  double predict_seconds(const Scheme& scheme, std::int64_t m, std::int64_t n, std::int64_t k,
                         Target call) const;
  /// The same with call = scheme.target.
  double predict_seconds(const Scheme& scheme, std::int64_t m, std::int64_t n, std::int64_t k) const {
    return predict_seconds(scheme, m, n, k, scheme.target);
  }

  /// The measured cost used for `scheme` in calls of target `call`: the entry of its kind for `call`,
  /// else one of its kind for the other target, else nullptr (then the rate formula predicts).
  const MeasuredCost* find_measured(const Scheme& scheme, Target call) const;
  /// The same with call = scheme.target.
  const MeasuredCost* find_measured(const Scheme& scheme) const { return find_measured(scheme, scheme.target); }

  /// Text form (the calibration cache file): a version line, the device, the rates, one `fit` line
  /// per MeasuredCost, one `sample` line per CostSample and one `impl` line per
  /// ImplementationTiming (`impl <scheme> <beta0|reads-c> <square|tall|wide> m n k fused multi-pass`),
  /// one `certificate <target> points fit-error c0..c4` line per certificate cost and one
  /// `certificate-sample <target> m n k seconds` line per certificate sample, then `end`. Numbers in
  /// %.17g.
  std::string to_text() const;
  /// Parses to_text()'s output. Throws InvalidArgument "<where>: line N: <problem>" on anything
  /// malformed, truncated (no `end`), of another version, with negative / non-finite coefficients,
  /// or with an `impl` line whose shape is not of its named class or that repeats a
  /// (scheme, beta class, shape class).
  static CostModel from_text(const std::string& text, const std::string& where);
};

/// Ozaki slice count that meets `target` for these operands: bits = target bits (24 or 53) + 1 (the
/// power-of-two scale sits one bit above the line maximum) + the largest line spread of A or B + 2
/// bits of margin, s = ceil(bits / 7). This is the normwise version of ozIMMU's mantissa-loss rule.
/// Returns 0 when more than 18 slices would be needed (no Ozaki candidate).
int ozaki_slices_for(Target target, const RangeProfile& a, const RangeProfile& b);

/// The modulus count `auto` predicts int8-crt's certificate will ask for (the certificate, run on the
/// operands themselves, decides): the smallest N whose log2 P reaches
///   2 (target bits + 1) + log2 k + 4 + max(1, spread),  spread = max(max_line_spread_bits of a, b).
/// Why: under the Cauchy-Schwarz scaling the certified ratio is about sqrt(k) (rms / mean of a line)
/// 2^(-log2 P / 2) against u, and 2 log2(rms / mean) <= log2(max / mean) = the line spread; the 4 bits
/// put the estimate at the certificate's N on uniform(-1,1) data (16 at k = 4096, 17 at k = 8192;
/// docs/crt.md); a spread below one bit counts as one (the nominal profile's, so that a real profile
/// never lowers the prediction). Returns 0 when NaN/Inf are present or more than 20 moduli would be
/// needed (no int8-crt candidate).
int crt_moduli_estimate(Target target, const RangeProfile& a, const RangeProfile& b, std::int64_t k);

/// The modulus count at the start of an int8-crt certificate text ("N = 17 moduli ...",
/// crt::Certificate::text(), GemmReport::certificate), or 0 when the text does not start so.
int moduli_in_certificate(const std::string& certificate);

/// One scheme considered by `auto`.
struct Candidate {
  Scheme scheme;
  bool eligible = false;          ///< range and accuracy both meet the target
  double predicted_seconds = 0;
  double predicted_error = 0;     ///< 2^-precision_bits of the scheme (normwise, per element)
  std::string reason;             ///< why not eligible, or "" when eligible
  /// How predicted_seconds was obtained: "fit +-X%" (a MeasuredCost, X its largest relative residual
  /// on the calibration samples) or "rates" (the rate formula).
  std::string cost_source;
  /// int8-crt: the modulus count the prediction assumes (crt_moduli_estimate; the certificate
  /// decides at run time); 0 for other schemes.
  int moduli = 0;
};

/// auto's candidates in a Plan, shared between copies until one of them is changed (copy on write):
/// every GemmReport of an auto call carries its Plan, and the CUDA backend copies a cached plan into
/// each report, so a copy must not copy the list (18 candidates took 2.3 us per copy on the 2-core
/// build machine, a visible part of a 1024^3 call; scripts/probes/plan_copy.cpp). Reads like a
/// std::vector<Candidate>.
class CandidateList {
 public:
  using value_type = Candidate;
  using const_iterator = std::vector<Candidate>::const_iterator;
  const_iterator begin() const { return items().begin(); }
  const_iterator end() const { return items().end(); }
  std::size_t size() const { return items().size(); }
  bool empty() const { return items().empty(); }
  const Candidate& operator[](std::size_t i) const { return items()[i]; }
  const Candidate& front() const { return items().front(); }
  const Candidate& back() const { return items().back(); }
  /// Appends `c`; copies the list first when another Plan shares it.
  void push_back(Candidate c) { own().push_back(std::move(c)); }
  void clear() { list_.reset(); }
  /// The candidates as a vector (empty when none).
  const std::vector<Candidate>& items() const {
    static const std::vector<Candidate> none;
    return list_ ? *list_ : none;
  }

 private:
  std::vector<Candidate>& own() {
    if (!list_)
      list_ = std::make_shared<std::vector<Candidate>>();
    else if (list_.use_count() > 1)
      list_ = std::make_shared<std::vector<Candidate>>(*list_);
    else  // use_count() is a relaxed load: order this write after another owner's last reads
      std::atomic_thread_fence(std::memory_order_acquire);
    return *list_;
  }
  std::shared_ptr<std::vector<Candidate>> list_;
};

/// What the planning step decided for one call: `auto`'s choice (chosen, profiles, candidates;
/// empty candidates when auto was not used) and how the call ran (execution, every call).
struct Plan {
  Scheme chosen;
  Target target = Target::fp32;
  RangeProfile profile_a, profile_b;
  CandidateList candidates;
  std::string device;
  /// Implementation, orientation, overlap policy, stage order and workspace of the call (filled by
  /// the backends; empty for a Plan made by plan() alone).
  ExecutionPlan execution;
  /// When auto picked int8-crt: what its certificate decided, filled by the backends: the certified N,
  /// the bound and the predicted time at that N, or why no N was certified and which candidate ran
  /// instead (pick_without_crt); "" otherwise.
  std::string certificate;

  /// Multi-line text for `--explain`: when auto chose, the profiles, candidates (eligible, predicted
  /// time, predicted error, where the time came from, reason; int8-crt with its estimated N), pick and
  /// its predicted time, and the certificate line when there is one; then, when a backend filled it,
  /// execution.explain() verbatim.
  std::string explain() const;
};

/// What `auto` would do for op(A) (profile a, m x k) times op(B) (profile b, k x n), without running.
/// Candidates: native fp32/fp64 and every scheme that meets(target); the fastest eligible one wins
/// (native always is eligible for its own target, so there is always a choice; an fp32 target with
/// non-finite inputs picks native fp32).
/// int8-crt (N per call, Ozaki scheme II) is a candidate at crt_moduli_estimate() moduli, predicted
/// as its measured cost at that N plus its certificate's; it is eligible only when the model has a
/// measured int8-crt cost and a measured certificate cost of the call's target (its passes and
/// certificate cost far more than the rate formula says: docs/crt.md), the estimate is within the
/// table (2..20) and the operands are finite. Its pick is `int8-crt` (parts 0): the backend runs the
/// certificate and, when that certifies no N, pick_without_crt().
Plan plan(const RangeProfile& a, const RangeProfile& b, std::int64_t m, std::int64_t n, std::int64_t k,
          Target target, const CostModel& model);

/// Plan::certificate of an auto call that ran its int8-crt pick: the certificate text (N and the
/// bound, GemmReport::certificate) and the predicted time at the certified N (the certificate
/// included), e.g. "N = 17 moduli (...); predicted 31.2 ms at N = 17 (auto assumed N = 16, 29.8 ms)".
std::string certificate_summary(const std::string& certificate, const Plan& plan, std::int64_t m, std::int64_t n,
                                std::int64_t k, const CostModel& model);

/// auto's next pick when its int8-crt pick cannot run (the certificate found no N <= 20, or NaN/Inf):
/// the eligible candidate of `p` with the smallest predicted time that is not int8-crt (Ozaki I or
/// native, typically), else native arithmetic of p.target.
Scheme pick_without_crt(const Plan& p);

/// The schemes the GPU calibration of `auto`'s cost model times for `target` (tcemu/cuda/calibrate.hpp),
/// in catalogue order: each descriptor's calibrate_fp32 / calibrate_fp64 (the row itself, or the
/// parameterised rows it lists, e.g. int8-ozaki:4 and :7 for an FP32 target).
std::vector<Scheme> calibration_schemes(Target target);

}  // namespace tcemu
