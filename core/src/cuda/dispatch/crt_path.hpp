#pragma once
// int8-crt (Ozaki scheme II) in gemm_device: its own passes, entered before the generic profile /
// split (gemm_cuda.cpp's one hook), because its scaling needs every line's 2-norm and N is chosen
// from its own certificate.
#include <string>

#include "cuda/dispatch/paths.hpp"
#include "tcemu/gemm.hpp"

namespace tcemu::cuda::detail {

/// C = alpha x y^T + beta C for the oriented problem `p` with options.scheme = int8-crt[:N], as
/// crt::crt_gemm_host computes it, bit for bit (Cauchy-Schwarz scaling; N = options.scheme.parts,
/// or 0: the smallest N certified on the GPU for options.scheme.target, same certificate as
/// crt::certify). Stages: line rule (one sync to read the NaN/Inf count), [certificate (one sync)],
/// residue pass per operand (all N residue panels), per k chunk of <= 2^16 one strided-batched cuBLAS
/// INT8 GEMM over the N moduli (INT32, exact), one reconstruction pass into C; rows in blocks whose
/// INT32 products fit ExecutionPolicy::ozaki_accumulator_bytes. Fills report.certificate / kernels
/// and, with `record_timings`, the stage times (events ws.ev[0..3]; ev[0] recorded by the caller).
/// Returns "" when C was computed, else why it was not (NaN/Inf, or no N <= 20 certified unless
/// RangePolicy::ignore, which runs N = 20): C is then untouched and the caller falls back.
template <class T>
std::string run_crt(const GemmOptions& options, const Problem<T>& p, Workspace::Impl& ws, bool record_timings,
                    GemmReport& report);

}  // namespace tcemu::cuda::detail
