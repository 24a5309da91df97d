#pragma once
/// \file cuda/calibrate.hpp
/// The measured cost model `auto` uses on the GPU (issue 4): the time of every scheme `auto` can
/// choose, measured on this GPU on a few shape classes, fitted per scheme and cached on disk per GPU
/// model.
///
/// What is measured (calibrated_cost_model): with CUDA events on the legacy default stream, one
/// warm-up and the median of 5 timed gemm_device calls (range policy `ignore`, uniform(-1,1) data,
/// split and range profile included, i.e. what a call costs). First, for every FP32-target scheme of
/// the set below with a fused kernel on this device, fused against multi-pass, interleaved, on one
/// shape per shape class (ShapeClass, select.hpp: square 8192 x 8192 x 1024, tall 65536 x 1024 x 784,
/// wide 1024 x 65536 x 784, C column-major) with beta = 0 and with beta = 1
/// (CostModel::implementation_timings: what ExecutionPolicy::kernels = automatic picks from per
/// scheme, beta class and shape class, tcemu/planning.hpp). Then, each on the implementation the
/// planning step will run (the policy's kernels; automatic: the faster at beta = 0 in the shape's class),
///   FP32 target, float data:  fp32, fp64, fp16x2, tf32x2, bf16x3, bf16x9, int8-ozaki:4, int8-ozaki:7
///   FP64 target, double data: fp64, int8-ozaki:6, int8-ozaki:8, int8-ozaki:11, int8-crt:14, int8-crt:20,
///                             and per shape int8-crt (N per call) against int8-crt:N at its certified N,
///                             interleaved: the certified-N time is a third point of int8-crt's
///                             per-modulus fit, the difference the certificate's own cost
///                             (CostModel::certificate_costs, fit_certificate_cost)
/// on seven shapes (m x n x k), each chosen so that one cost term dominates:
///   256^3 and 1024^3 (fixed cost), 4096^3 and 8192^3 (products), 8192 x 8192 x 64 (output), 32768 x 64 x 2048 (operand
///   split), 16384 x 1024 x 784 (a tall-skinny mix, the knn/kmeans class).
/// Per scheme kind and target a MeasuredCost (select.hpp) is fitted: time = fixed + a (mk + kn) +
/// b mn + c mnk (Ozaki: with its slice count s in the terms, int8-crt with its modulus count N, see
/// cost_features()), by non-negative
/// least squares on the relative residuals. Schemes that `auto` never picks (the one-pass floors and
/// the FP16 variants below FP32 accuracy) keep the rate formula (Candidate::cost_source "rates").
/// FP32-target schemes on double data (rounded to float first) are predicted with the float-data fit.
/// On an H200 the whole calibration takes a few seconds (at most ~30 s); a progress line goes to
/// stderr.
///
/// Cache: one text file per GPU model, driver, CUDA runtime and cuBLAS version, kernel choice and
/// orientation policy
/// in ExecutionPolicy::calibration_cache_dir (calibration_cache_path(); the apps use
/// $XDG_CACHE_HOME/tcemu, else $HOME/.cache/tcemu), in CostModel::to_text() form, written to a
/// temporary name and renamed. A file that does not parse is reported in one line on stderr and
/// measured again. With an empty folder the model lives in the process only.
///
/// Policy (ExecutionPolicy::calibration, read at every gemm_device call with `auto` and no
/// GemmOptions::cost_model; the apps take it from TCEMU_AUTO_CALIBRATE):
///   measure_once   the cached model; measured on first use when there is none (default);
///   cache_only     the cached model, else CostModel::h200_anchors() (never measures);
///   anchors        CostModel::h200_anchors() (no file access; the test suites use it);
///   force          measured again once per process on first use, then cached.
/// If a measurement fails (e.g. out of device memory) one line goes to stderr and the anchors serve
/// for the rest of the process.
///
/// Applications add `--recalibrate` by calling calibrated_cost_model(policy, nullptr, true) once
/// before their work (or by running with CalibrationPolicy::force), and `--explain` by printing
/// GemmReport::plan.explain() of an `auto` call.
///
/// No CUDA header is included.
#include <memory>
#include <string>

#include "tcemu/cuda/gemm_cuda.hpp"
#include "tcemu/select.hpp"

namespace tcemu::cuda {

/// CalibrationPolicy lives in tcemu/execution.hpp (ExecutionPolicy::calibration).
using ::tcemu::CalibrationPolicy;

/// Cache file of the current device under `policy`: <policy.calibration_cache_dir>/cost-model-v8-
/// <kernels>-<GPU name>-sm<cc>-drv<driver>-rt<runtime>-cublas<version>.txt, <kernels> one of auto,
/// fused, multipass, with "-mma.sync" for FusedMma::mma_sync, "-tiles" for
/// OrientationPolicy::tiles and "-crt-cublas" / "-crt-int32" for CrtProducts::cublas / wgmma_int32
/// (name characters other than
/// [A-Za-z0-9.-] become '_'); "" when the folder is empty. Throws DeviceError without a device.
std::string calibration_cache_path(const ExecutionPolicy& policy);

/// The measured cost model of the current device. Unless `recalibrate`, returns the model already
/// measured or loaded in this process under the same kernel choice and orientation policy, else the cache file's
/// (calibration_cache_path(policy)), else
/// measures (see the file comment), writes the cache and returns it. With `recalibrate` it always
/// measures and rewrites the cache. `ws` is the workspace the timed calls use (nullptr: a private one,
/// freed afterwards; the calls overwrite its buffers). Throws DeviceError when a CUDA call fails
/// (e.g. out of memory), InvalidArgument never (a corrupt cache is re-measured).
CostModel calibrated_cost_model(const ExecutionPolicy& policy, Workspace* ws, bool recalibrate);

/// The model gemm_device's `auto` uses when GemmOptions::cost_model is nullptr, per
/// execution.calibration; memoised per device, kernel choice, orientation policy and process (thread-safe). Never throws
/// for a failed measurement (one line on stderr, then the anchors).
std::shared_ptr<const CostModel> device_cost_model(const ExecutionPolicy& execution);

/// The model behind ExecutionPolicy::kernels = automatic in calls that do not run `auto` (its
/// ImplementationTiming entries pick fused or multi-pass, tcemu/planning.hpp): nullptr under
/// CalibrationPolicy::anchors; with a cache folder (the apps, tcemu-bench) device_cost_model(), i.e.
/// the cache file, measured once on first use where the policy says so; without one, only a model
/// this process already measured or loaded (never measures: a library caller that keeps no cache
/// does not pay a calibration for a call that names its scheme). nullptr means fused.
std::shared_ptr<const CostModel> implementation_cost_model(const ExecutionPolicy& execution);

/// Multi-line text of a calibrated model for --recalibrate / --explain: the device, one line per fit
/// (coefficients as fixed us, operand GB/s-equivalent, output GB/s-equivalent, TFLOP/s-equivalent,
/// largest relative residual) and the samples with their predicted times.
std::string describe_cost_model(const CostModel& model);

}  // namespace tcemu::cuda
