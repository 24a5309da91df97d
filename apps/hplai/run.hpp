#pragma once
/// \file run.hpp
/// One hplai job: the FP64 baseline, then, per requested scheme, the low-precision factorisation
/// (lu.hpp) and the FP64 refinement (refine.hpp), timed and checked.
///
/// Working precision (storage of the factors) per scheme: FP32 for every FP32-target scheme (native
/// fp32, the one-pass tf32/bf16/fp16, the FP32 emulations, int8-ozaki and auto with --target fp32);
/// FP64 for the FP64-target schemes (int8-ozaki and auto with --target fp64), whose factorisation
/// then runs in FP64 end to end (panel, solves, preconditioner) with the trailing update emulated.
/// The scheme name "fp64" is the baseline row: LU with partial pivoting in FP64 (dgetrf + dgetrs),
/// no refinement; it always runs first, as the reference for the speedup column.
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "lu.hpp"
#include "problem.hpp"
#include "refine.hpp"
#include "tcemu/scheme.hpp"

#include "app_common/device.hpp"

namespace tcemu::app {
struct CommonOptions;
}

namespace hplai {

/// Where the job runs (`--device`; app_common/device.hpp): the one source of the run (session.hpp) on
/// Kokkos::DefaultHostExecutionSpace (LAPACK/CBLAS with tcemu's host backend) or on Kokkos::Cuda
/// (cuSOLVER/cuBLAS with tcemu's CUDA backend; built only when Kokkos has its CUDA backend).
using Device = tcemu::app::Device;

/// True when this build has hplai's GPU path: tcemu's CUDA backend and a Kokkos with CUDA.
bool cuda_path_built();

/// --device resolved for hplai: common.device() (app_common/app_main.hpp), except in a build with
/// tcemu's CUDA backend whose Kokkos has none (Debian's 3.4), where hplai has no GPU path: `auto`
/// runs on the host and `cuda` throws tcemu::DeviceError "--device cuda: hplai's GPU path needs a
/// Kokkos with its CUDA backend; ...".
Device run_device(const tcemu::app::CommonOptions& common);

/// HPL-MxP operation count 2/3 n^3 + 3/2 n^2 (the numerator of the benchmark's GFLOP/s).
double hpl_flops(std::int64_t n);

/// Options of a job.
struct RunOptions {
  std::vector<tcemu::Scheme> schemes;  ///< in order; "fp64" and duplicates are skipped (baseline)
  std::int64_t nb = 256;               ///< block size, >= 1
  RefineOptions refine;
  Device device = Device::host;        ///< already resolved
  bool scale_operands = true;          ///< operand scaling of the trailing updates (lu.hpp)
  int repeat = 1;                      ///< runs per row; the one with the median time is reported
  std::ostream* progress = nullptr;    ///< progress lines, or nullptr
};

/// The factorisation options of one scheme's run, shared by the host and GPU paths: block size,
/// trailing-update scheme, operand scaling, and a progress reporter writing at most one line a second
/// to options.progress (n is the matrix order, for the messages).
LuOptions lu_options(const tcemu::Scheme& scheme, const RunOptions& options, std::int64_t n);

/// One row of the result table. Times in seconds (wall clock).
struct SchemeResult {
  std::string scheme;          ///< requested scheme name ("fp64" for the baseline)
  std::string used;            ///< schemes the trailing updates used ('+'-joined), "dgetrf" for fp64
  std::string storage;         ///< working precision of the factors: "fp32" or "fp64"
  bool baseline = false;       ///< the FP64 dgetrf + getrs row
  double factor_seconds = 0;   ///< conversion to the working precision + factorisation
  double panel_seconds = 0;    ///< of factor_seconds: panels (diagonal blocks + L21 solves)
  double update_seconds = 0;   ///< of factor_seconds: trailing updates (the emulated GEMMs)
  double refine_seconds = 0;   ///< x0 = M^-1 b + refinement (baseline: getrs)
  double total_seconds = 0;    ///< time to solution: factor + refine
  double gflops = 0;           ///< hpl_flops(n) / total_seconds / 1e9
  double speedup = 0;          ///< baseline total / total
  int iterations = 0;          ///< refinement iterations (0 for the baseline)
  int restarts = 0;            ///< GMRES restarts
  double initial_scaled_residual = 0;  ///< of x0 (baseline: of its solution)
  double scaled_residual = 0;  ///< HPL-MxP scaled residual of the final x
  bool pass = false;           ///< scaled_residual < 16
  std::int64_t updates = 0;    ///< trailing-update GEMM calls
  std::int64_t fallbacks = 0;  ///< of those, sent to native arithmetic by the range check
  std::string note;            ///< fallback note, refinement failure, or ""
  std::vector<double> x;       ///< the solution (n entries)
  std::vector<double> history; ///< scaled residual of every true-residual check, x0 first
};

/// Copies what a factorisation did into its result row: panel and update times, the number of
/// updates and fallbacks, the schemes the updates used (`scheme_name` when none ran), and the note
/// "<fallbacks>/<updates> updates fell back to native: <first note>" when any fell back.
void record_factorisation(SchemeResult& row, const LuStats& stats, const std::string& scheme_name);

/// Copies what the refinement did into its result row: iterations, restarts, initial and final
/// scaled residual, the solution and the residual history; a refinement that did not converge puts
/// its failure in front of the row's note.
void record_refinement(SchemeResult& row, const RefineResult& refinement);

/// Result of a job.
struct RunResult {
  std::int64_t n = 0, nb = 0;
  std::string source, solver, device;
  std::vector<SchemeResult> rows;  ///< baseline first, then the schemes in order
  bool all_pass() const;
};

/// Runs the job on the host or the GPU (options.device, already resolved: cuda in a build without
/// the GPU path throws tcemu::DeviceError). Throws SingularPivot for
/// a pivot LU without pivoting cannot use (message prefixed with the scheme), tcemu::InvalidArgument
/// naming the source when the FP64 baseline itself fails the scaled-residual check (the system cannot
/// verify any scheme), and what the solvers throw (tcemu::InvalidArgument / DeviceError).
RunResult run(const System& sys, const RunOptions& options);

/// The host path for one scheme (not "fp64"): factor, refine, check (Session<DefaultHostExecutionSpace>,
/// session.hpp). a_inf = ||A||_inf.
SchemeResult run_scheme_host(const System& sys, double a_inf, const tcemu::Scheme& scheme,
                             const RunOptions& options);

/// The host FP64 baseline row (dgetrf + dgetrs).
SchemeResult run_baseline_host(const System& sys, double a_inf);

}  // namespace hplai
