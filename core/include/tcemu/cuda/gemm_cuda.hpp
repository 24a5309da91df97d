#pragma once
/// \file gemm_cuda.hpp
/// CUDA backend of tcemu (docs/architecture.md, "CUDA backend"): every scheme of the catalogue on an
/// NVIDIA GPU, on operands that already live in device memory.
///
/// How a call runs (all on `stream`):
///  1. one tiled pass per operand splits it into the scheme's parts *and* computes its range profile
///     (block reductions + atomics into a small device struct; the profile is copied back once);
///  2. the scheme is resolved exactly as on the host (tcemu::resolve_scheme: `auto` with the device's
///     measured cost model, tcemu/cuda/calibrate.hpp (per options.execution.calibration), unless
///     GemmOptions::cost_model says otherwise; Ozaki slice count, range check and fallback), so
///     GemmReport means the same on both backends;
///  3. by default (ExecutionPolicy::kernels automatic) schemes with a fused kernel run it: every
///     product and the combine in one Tensor Core kernel (core/src/cuda/kernels/fused.hpp). Otherwise (multi-pass,
///     or schemes without a fused kernel) one cuBLAS GEMM per product group, the products of a group concatenated along k
///     ([A_hi | A_lo] . [B_lo ; B_hi]) into one FP32 accumulator per group: FP16/BF16 parts through
///     cublasGemmEx (FP32 compute), TF32 parts (TF32-exact FP32 words) with CUBLAS_COMPUTE_32F_FAST_TF32,
///     native fp32 as cublasSgemm (CUBLAS_DEFAULT_MATH, never TF32), fp64 as cublasDgemm;
///  4. a combine kernel: C = alpha * sum_g 2^scale_g acc_g + beta * C, smallest group first, in the
///     precision of C (the host's order, so the two backends differ only by the Tensor Cores'
///     accumulation order inside each group).
///  int8-ozaki (ozIMMU, shared/seeds/notes/004_OzakiIMMU.md): per-line power-of-two exponent
///  (split::ozaki_line_exponent of the line maximum from pass 1), s slices of 7 bits (never -128),
///  k cut into chunks of at most 2^17; the products with equal i+j are concatenated along k, so each
///  chunk needs s INT8 GEMMs (cublasGemmEx, CUDA_R_8I -> CUDA_R_32I, CUBLAS_COMPUTE_32I, TN, k padded to
///  16) instead of s(s+1)/2 (a group is cut further when (i+j-1) * k * 127^2 would reach 2^31); one
///  fused kernel sums the INT32 results exactly per i+j, then in FP64 from the least significant group
///  up, scales by 2^(eA_i + eB_j) and applies alpha/beta. The result equals the host's bit for bit.
///  Complex GEMMs (complex_gemm_device) run either as 4M (four real GEMMs plus a combine) or, when
///  op(A) and C are rows of interleaved re/im and alpha, beta are real, as ONE real GEMM on the real
///  embedding (A viewed as m x 2k real, B expanded to a 2k x 2n real matrix);
///  options.execution.complex forces the choice.
///
/// This header does not include any CUDA header, so CPU-only code may include it; a stream is passed
/// as `cudaStream_t` (which is `CUstream_st*`, declared here).
#include <complex>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "tcemu/gemm.hpp"
#include "tcemu/matrix.hpp"
#include "tcemu/range_profile.hpp"

struct CUstream_st;

namespace tcemu::cuda {

/// A CUDA stream (the same type as cudaStream_t); nullptr is the legacy default stream.
using Stream = ::CUstream_st*;

/// True when the CUDA runtime finds at least one usable device (false on machines without a GPU or
/// driver; never throws).
bool device_available();

/// "NVIDIA H200 (sm_90, 132 SMs)" for the current device; throws DeviceError without a device.
std::string device_description();

/// Reusable device memory and library handles for gemm_device calls.
///
/// Holds a cuBLAS handle, a few device buffers that grow on demand (never shrink until release()),
/// a pinned host buffer for the range-profile read-back and timing events, so that repeated calls do
/// no cudaMalloc. One Workspace serves one device and one host thread at a time; calls on different
/// streams must not share a Workspace concurrently (its buffers would be overwritten).
class Workspace {
 public:
  /// Creates an empty workspace on the current device (nothing is allocated until first use).
  Workspace();
  ~Workspace();
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;

  /// Device bytes currently held.
  std::size_t bytes_reserved() const;
  /// Frees all device memory (handles stay); the next call grows the buffers again.
  void release();

  /// When true (default), gemm_device waits for the stream at its end and fills the report's
  /// seconds_split/products/combine from CUDA events. When false, the call returns as soon as its
  /// work is queued (it still synchronises once mid-call to read the range profile back, unless the
  /// scheme is native) and the timings stay 0.
  bool record_timings = true;

  struct Impl;
  Impl& impl() { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

/// A per-thread workspace used when gemm_device is given none.
Workspace& default_workspace();

/// C = alpha * op(A) * op(B) + beta * C on the GPU with `options.scheme` (see the file comment).
///
/// A, B and C are strided views of *device* memory (any strides: row-major, column-major, transposed
/// or sub-views; operands that cuBLAS cannot read directly are packed by the split pass). Shapes:
/// op(A) m x k, op(B) k x n, C m x n. T = float: FP32 data (FP32-target schemes; fp64 computes in
/// FP64 and rounds); T = double: FP64 data (int8-ozaki and fp64 keep FP64 accuracy; FP32-target schemes
/// round the data to FP32 first, as the host does). beta == 0 means C is not read (it may hold NaN).
/// Semantics of the range policy, fallback and GemmReport fields are those of gemm_host.
/// Throws InvalidArgument on shape mismatch or under RangePolicy::error for an out-of-range operand,
/// DeviceError when a CUDA/cuBLAS call fails (the message names the call).
/// `stream` may be nullptr; `ws` may be nullptr (default_workspace()).
template <class T>
GemmReport gemm_device(Op opA, Op opB, T alpha, MatrixView<const T> A, MatrixView<const T> B, T beta,
                       MatrixView<T> C, const GemmOptions& options, Stream stream, Workspace* ws);

/// Range profile of op(X) as the `side` operand, computed on the device (the same statistics as
/// profile_host; line spreads may differ in the last bits because the per-line sums run in another
/// order). X is a view of device memory.
template <class T>
RangeProfile profile_device(MatrixView<const T> opX, Side side, Stream stream, Workspace* ws);

/// How complex_gemm_device computes: tcemu::ComplexMethod (tcemu/execution.hpp). `blas` runs
/// native schemes (fp32 on complex<float>, fp64 on complex<double>) as one cuBLAS CGEMM / ZGEMM on the
/// complex views where cuBLAS can read them (each of op(A), op(B), C with unit stride along rows or
/// columns), otherwise, and for every other scheme, as automatic: the baseline a complex emulation is
/// measured against.
using ::tcemu::ComplexMethod;

/// True when complex_gemm_device can compute C = alpha op(A) op(B) + beta C as one real GEMM by the
/// real embedding: alpha and beta real (imaginary parts == 0), op(A) and C with column stride 1
/// (rows of interleaved re/im; any row stride) or a single column, and the storage of C not
/// overlapping that of op(A) (the embedded GEMM writes C while it may still read A; 4M writes C only
/// in its final combine). op(B) may have any strides and may overlap C.
template <class T>
bool complex_embedding_applies(Op opA, std::complex<T> alpha, MatrixView<const std::complex<T>> A,
                               std::complex<T> beta, MatrixView<std::complex<T>> C);

/// Complex C = alpha * op(A) * op(B) + beta * C on the GPU. Views of device memory, any strides;
/// op(A) m x k, op(B) k x n, C m x n; C is not read when beta == 0. Two methods, each running the
/// caller's `options` (scheme, auto, range policy) on real emulated GEMMs through gemm_device:
///
///  * 4M (complex_gemm.hpp has the formula, the report and the error behaviour): four real GEMMs on
///    strided real/imaginary views (Ar Br, -Ai Bi, Ar Bi, Ai Br; each profiles and splits its two
///    operands), accumulating into two m x n workspace matrices, then one combine kernel
///    C = alpha (Re + i Im) + beta C. Any alpha, beta and layouts; C may alias A or B.
///  * Real embedding (used where complex_embedding_applies): with op(A) and C stored as rows of
///    interleaved (re, im), op(A) *is* the real m x 2k matrix Ar = [Re a_i1, Im a_i1, Re a_i2, ...]
///    (row stride 2 x the complex row stride, column stride 1) and C the real m x 2n matrix Cr. A
///    small kernel builds the 2k x 2n real matrix Br from op(B) in the workspace (slot
///    kSlotComplexRe, column-major, one pass over B):
///        Br[2j, 2c] = Re B(j, c),   Br[2j, 2c+1] = Im B(j, c),
///        Br[2j+1, 2c] = -Im B(j, c), Br[2j+1, 2c+1] = Re B(j, c),
///    and ONE real GEMM Cr = Re(alpha) Ar Br + Re(beta) Cr gives the complex product: column 2c of
///    Ar Br is sum_j (Re a Re b - Im a Im b), column 2c+1 is sum_j (Re a Im b + Im a Re b). The
///    same 8mnk real flops as 4M, but op(A) is read, profiled and split once (4M: four times, two of
///    each view), there is one range-profile read-back instead of four, no m x n workspace matrices
///    and no complex combine pass: the real GEMM writes C itself, as for any real output. This is
///    qsim's hot call (state rows x 2^s times U^T, apps/qsim/simulate_cuda.cpp).
///
/// Accuracy of the embedding: each entry of C is one real dot product of length 2k in which the real
/// and imaginary products are summed together (4M: two products of length k added once in T), so
/// the error is that of the real scheme at length 2k, FP32-class or FP64-class as the scheme
/// promises, bounded by its error on sum_j (|Re a||Re b| + |Im a||Im b|) (resp. the Im analogue)
/// per entry, the same kind of bound as 4M's. The range profile and the split now see the real and
/// imaginary parts of a row of op(A) (and of a column of op(B)) as one line, which is what the split
/// should use anyway: a line counts as "below the full-precision range" only when both parts are
/// small (fewer spurious range fallbacks than 4M, whose imaginary-part lines of a nearly real
/// matrix look tiny), and `auto` decides once for the whole product. Per-line scaling (int8-ozaki's
/// line exponents) is then shared by the two parts of a line: a part much smaller than its partner
/// on the same line gets an absolute error relative to the partner, as in a native complex GEMM's
/// norm-wise bound; force 4M where each part must keep its own scaling. The embedded dot products
/// are twice as long, so the Tensor Cores' in-MMA accumulation (docs/perf-notes.md section 2.1)
/// runs over 2k terms instead of k plus one round-to-nearest add.
///
/// Choosing: `method` automatic (and the overload without it, which takes
/// options.execution.complex) takes the embedding wherever it applies: it never does more work than
/// 4M. four_m forces 4M everywhere; embed (or automatic) uses the embedding where it applies and 4M
/// elsewhere (a non-embeddable call never fails because of the method). The report is gemm_device's for the embedding (its split timing does not include the
/// Br build) and merge_reports of the four products for 4M. ComplexMethod::blas (explicit only)
/// runs native schemes as one cuBLAS CGEMM / ZGEMM instead (no range profile; report with the
/// scheme only), qsim's native baseline.
///
/// int8-crt (family crt) never runs 4M: it runs 3M in the residue domain (3N INT8 products; `method`
/// embed excludes it) where the wgmma kernel takes the call, else the real embedding, for any alpha,
/// beta and layouts (op(A) packed into kSlotComplexIm where it is not interleaved rows apart from C;
/// C through an m x 2n temporary and the complex combine where alpha or beta is complex or C's re/im
/// pairs are not one real row), so that one certificate covers the whole product and the result
/// equals complex_gemm_host's bit for bit (docs/crt.md, "Complex operands").
template <class T>
GemmReport complex_gemm_device(Op opA, Op opB, std::complex<T> alpha,
                               MatrixView<const std::complex<T>> A, MatrixView<const std::complex<T>> B,
                               std::complex<T> beta, MatrixView<std::complex<T>> C,
                               const GemmOptions& options, Stream stream, Workspace* ws);
/// The same with an explicit method (options.execution.complex is ignored).
template <class T>
GemmReport complex_gemm_device(Op opA, Op opB, std::complex<T> alpha,
                               MatrixView<const std::complex<T>> A, MatrixView<const std::complex<T>> B,
                               std::complex<T> beta, MatrixView<std::complex<T>> C,
                               const GemmOptions& options, Stream stream, Workspace* ws,
                               ComplexMethod method);

/// Where the elements of a gathered operand sit (complex_gemm_device_gathered): element (i, j) of the
/// m x k matrix X, m = 2^row_positions.size() and k = 2^col_positions.size(), is x[idx(i, j)] with
/// idx(i, j) = sum_b (bit b of i) << row_positions[b] + sum_b (bit b of j) << col_positions[b]:
/// the index bits of a state vector whose qubit layout a simulator permutes, so that a block's GEMM
/// reads the permuted state without writing it (qsim, docs/qsim.md "Permutations read in place").
/// The positions, together, are 0 .. 31 at most, each once.
struct BitGather {
  std::vector<int> row_positions, col_positions;
};

/// C = X op(B) (alpha 1, beta 0) with X the m x k complex matrix that `gather` reads from `x` (device
/// memory, 2^(m bits + k bits) elements), op(B) k x n and C m x n device views, where int8-crt runs it
/// without gathering X into rows: options.scheme int8-crt with N given (scheme.parts > 0), `method`
/// not embed, ExecutionPolicy::crt_products automatic, the INT8 wgmma kernel available (sm_90), k
/// from 1 to 512 and not the narrow shapes (n <= 8 with k <= 16), more rows than 2n (m > 2n, so that
/// op(B) gives the scaling's split parity, docs/crt.md "Scaling"), C apart from x's elements and from
/// op(B). Then x's line rule and residues read X through the map in their one pass (docs/crt.md,
/// "Gathered operands") and the rest is complex_gemm_device's 3M: returns true with C and `report`
/// as complex_gemm_device would give them on X gathered into a row-major matrix, bit for bit. Returns
/// false when it does not take the call (C untouched; op(B)'s rule may have run into the workspace)
/// or X holds NaN or Inf (C written, unspecified): gather X and call complex_gemm_device then. Throws InvalidArgument when the
/// positions repeat, reach 32, or disagree with the shapes of op(B) and C; DeviceError as gemm_device.
template <class T>
bool complex_gemm_device_gathered(const std::complex<T>* x, const BitGather& gather, Op opB,
                                  MatrixView<const std::complex<T>> B, MatrixView<std::complex<T>> C,
                                  const GemmOptions& options, Stream stream, Workspace* ws, ComplexMethod method,
                                  GemmReport& report);

}  // namespace tcemu::cuda
