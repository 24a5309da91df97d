#pragma once
// int8-crt (Ozaki scheme II) in gemm_device: its own passes, entered before the generic profile /
// split (gemm_cuda.cpp's one hook), because its scaling needs every line's 2-norm and N is chosen
// from its own certificate.
#include <cstdint>
#include <string>

#include "cuda/dispatch/paths.hpp"
#include "cuda/passes/crt_passes.hpp"
#include "tcemu/crt.hpp"
#include "tcemu/gemm.hpp"

namespace tcemu::cuda::detail {

/// The per-line arrays of one int8-crt call on m lines of x and n lines of y, carved from the
/// workspace's profile slot (256-byte aligned pieces); the counters (nonfinite[0] x, [1] y, fail,
/// ratio_bits: 64 entries each) are zeroed on `stream`.
struct CrtCallLines {
  CrtLines lx, ly;
  int* ex = nullptr;  ///< scale exponents of x's lines (crt_line_exponents)
  int* ey = nullptr;
  unsigned long long* nonfinite = nullptr;  ///< [0]: x's NaN/Inf count, [1]: y's
  /// [0]: active lines with an odd c, [1]: active lines of the split's source (crt_split_counts);
  /// nonfinite + 2, so that one copy reads all four counters
  unsigned long long* split = nullptr;
  int* fail = nullptr;
  unsigned long long* ratio_bits = nullptr;
};
CrtCallLines carve_crt_lines(Workspace::Impl& ws, std::int64_t m, std::int64_t n, cudaStream_t stream);

/// The magnitude panels of crt::certify_int8 for m lines of x and n lines of y, k positions: x
/// (m x 2 kp bytes, crt_magnitudes layout 0) and y (n x 3 kp bytes, layout 1 or 2) in the workspace's
/// part slots, kp = k rounded up to 16. The caller fills them.
struct CrtMagnitudePanels {
  std::int8_t* x = nullptr;
  std::int8_t* y = nullptr;
  std::int64_t kp = 0;
  std::int64_t k = 0;  ///< the product's length (kp is k rounded up to 16)
};
CrtMagnitudePanels crt_magnitude_panels(Workspace::Impl& ws, std::int64_t m, std::int64_t n, std::int64_t k,
                                        cudaStream_t stream);

/// crt::certify_int8 on the GPU from filled magnitude panels (k <= crt::kInt8CertificateMaxK): two
/// cuBLAS INT8 GEMMs (hx . hy and [hx lx] . [ly hy], INT32, in the accumulator slot), the search for
/// the smallest N (crt_certificate_int8_search; one sync), then the worst ratio at that N with the
/// test of every entry there (one sync); where some entry fails there, the test of every N (one sync)
/// and the ratio at its N (one sync). lx, ly: the lines' statistics with s1; mask (4 entries) and
/// ratio_bits (2) zeroed before (CrtCallLines); the exponents split as `split` says.
/// Returns the host's certificate bit for bit: moduli = 0 when no N <= 20 is certified (worst_ratio
/// then at N = 20).
crt::Certificate crt_certify_int8(const CrtMagnitudePanels& panels, std::int64_t m, std::int64_t n,
                                  const CrtLines& lx, const CrtLines& ly, const CrtSplit& split, unsigned* mask,
                                  unsigned long long* ratio_bits, double tol, Workspace::Impl& ws,
                                  cudaStream_t stream);

/// The GPU's k chunk of one INT8 product: 2^16 keeps every INT32 sum below 2^30 (residues in [-128,
/// 127]), so no sum wraps even for p = 256. The residues do not depend on the chunking.
inline constexpr std::int64_t kCrtGpuChunk = std::int64_t{1} << 16;

/// C = alpha x y^T + beta C for the oriented problem `p` with options.scheme = int8-crt[:N], as
/// crt::crt_gemm_host computes it, bit for bit (Cauchy-Schwarz scaling; N = options.scheme.parts,
/// or 0: the smallest N certified on the GPU for options.scheme.target, the host's certificate:
/// crt::certify_int8 for k <= 2^16, crt::certify beyond). Stages: line rule and the split's parity
/// (crt_split_counts on the operand with fewer lines; one sync to read it and the NaN/Inf counts;
/// the INT8 certificate's magnitude panels in the same pass where crt_line_rule_fuses); with N given,
/// the other operand's rule, exponents and residues in one pass where it fuses (one more sync for its
/// NaN/Inf count); [certificate (one sync)],
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
