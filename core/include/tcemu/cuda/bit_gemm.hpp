#pragma once
/// \file bit_gemm.hpp
/// Bit-indexed complex GEMM on the GPU: y = x with a 2^d x 2^d matrix U applied along d chosen bits of
/// the index (the state-vector update of a fused d-qubit gate block), computed with fp16x2-aligned
/// (docs/accuracy.md "fp16x2-aligned") in one pass over x, without permuting the vector first.
///
/// For a vector of 2^n complex elements and bit positions p_0 < p_1 < ... < p_(d-1), split each index
/// i into a row r (the n - d other bits, in order) and a column c (bit b of c = bit p_b of i). Then
///     y[i(r, c)] = sum_j U(c, j) * x[i(r, j)],
/// i.e. Y = X U^T for the 2^(n-d) x 2^d matrix view X(r, c) = x[i(r, c)]: qsim's block GEMM without
/// the permutation that makes the view contiguous (docs/qsim.md, docs/perf-notes.md section 8).
///
/// Scheme: fp16x2-aligned on the real embedding (X as rows of interleaved re/im, U expanded to the
/// 2^(d+1) x 2^(d+1) real matrix of complex_gemm_device), with one difference to the dense path: each
/// row of X is split with its own power-of-two scale (split::aligned_scale_exp of the row's max), the
/// factor 2^-(sigma_row + sigma_U) undone in the epilogue. Since the split commutes with powers of
/// two, every row gets the same parts as the dense path's, scaled, as long as neither path meets FP16
/// subnormals; rows far below the vector's maximum keep their full split (the dense path would fall
/// back to native FP32 for them). The products follow the wgmma fused kernel (the dense path's default
/// on Hopper; fused/wgmma_kernel.cuh) on mma.sync: the three low products chain inside the Tensor
/// Core over the whole k, hi x hi chains from zero over 64 elements of k and joins the FP32
/// accumulator by a round-to-nearest FADD, and the low sum is added at the end.
///
/// Range rules (as range_violation()'s for fp16x2-aligned, per row for X): U is profiled on the host
/// with the operand rules; a row of X with a non-finite value, a nonzero spread (log2 of max |x| over
/// the mean nonzero |x|) above split::kAlignedMaxSpreadBits, or a max outside [2^-(s + 2), 2^75) (s =
/// min(kMaxRowScaleExp, 125 - sigma_U), the largest row scale for which 2^-(sigma_row + sigma_U) is a
/// normal FP32: 2^-112 for unitary blocks) makes the whole call decline: y is then unspecified and the report says
/// why, so that the caller can take its dense path (which applies the operand-wide rules).
#include <complex>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tcemu/scheme.hpp"

struct CUstream_st;

namespace tcemu::cuda {

/// What BitGemm::apply did.
struct BitGemmReport {
  bool applied = false;   ///< y holds the result; false: `note` says why
  /// The kernel ran and wrote y. false: a line of U broke a rule before the launch, so y was not
  /// written (with y == x the input is intact); true with applied false: a row of x broke a rule
  /// while the kernel ran, and y holds its result for the rows that did not (unspecified as a whole).
  bool launched = false;
  std::string note;       ///< the rule a row of x or a line of U broke ("" when applied)
};

/// Runs bit-indexed complex GEMMs (file comment). Holds its small device buffers (split U, index
/// tables, the range flag) between calls; one object per stream, not thread-safe.
class BitGemm {
 public:
  BitGemm();
  ~BitGemm();
  BitGemm(const BitGemm&) = delete;
  BitGemm& operator=(const BitGemm&) = delete;

  /// Smallest and largest d with a kernel (the whole 2^(d+1) x 2^(d+1) split of U sits in shared
  /// memory next to the row tiles).
  static constexpr int kMinBits = 4, kMaxBits = 6;
  /// Largest power-of-two scale exponent of a row of x (the operand-wide scheme stops at 60).
  static constexpr int kMaxRowScaleExp = 110;

  /// True when `scheme` is fp16x2-aligned, kMinBits <= d <= kMaxBits, the vector has n index bits
  /// with d + r <= n <= 32 (r = 7, 6, 5 for d = 4, 5, 6: a tile is 2^r rows) and the current device
  /// has compute capability 8.0 or newer.
  static bool supports(const Scheme& scheme, int d, int n);

  /// y = x with U applied along `positions` (file comment). x and y: device pointers to 2^n complex
  /// elements, either not overlapping or the same vector (y == x: in place; safe because a tile, the
  /// set of elements one CTA group reads and writes, is read whole into shared memory before any of
  /// it is written, and tiles are disjoint; when U breaks a rule the kernel does not run and x is
  /// intact (report.launched false); when a row of x breaks one while it runs, y == x holds the
  /// kernel's result, since there is nothing to redo it from); n <= 32. positions: d distinct bit
  /// positions in [0, n), ascending
  /// (bit b of U's row/column index is bit positions[b] of the vector index). U: host pointer,
  /// row-major 2^d x 2^d. Synchronises `stream` (it reads the range flag back). Calls profile_host
  /// on U's embedding, so Kokkos must be initialized.
  /// Throws InvalidArgument when supports() is false or the arguments are inconsistent (the message
  /// names the argument), DeviceError on a CUDA failure.
  BitGemmReport apply(const std::complex<float>* x, std::complex<float>* y, int n, const std::vector<int>& positions,
                      const std::complex<float>* U, const Scheme& scheme, CUstream_st* stream);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tcemu::cuda
