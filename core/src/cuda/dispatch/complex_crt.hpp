#pragma once
// int8-crt on complex operands on the GPU (complex_crt.cpp): 3M in the residue domain where the INT8
// wgmma kernel runs (N given, or certified per call on the embedding's lines; k <= 2^16), else the real embedding of common/complex_crt.hpp as one
// real gemm_device call; both bit for bit the host's complex_crt_host.
#include <complex>

#include "cuda/passes/crt_passes.hpp"
#include "tcemu/cuda/gemm_cuda.hpp"

namespace tcemu::cuda::detail {

/// Complex C = alpha a b + beta C with options.scheme an int8-crt scheme (a = op(A) m x k, b = op(B)
/// k x n, device views, shapes checked, m, n > 0). With N given (or N per call and 2k <= 2^16: the
/// embedding's certificate from the 3M lines first), 1 <= k <= 2^16, alpha != 0,
/// ExecutionPolicy::crt_products automatic, the INT8 wgmma kernel available and `method` not
/// ComplexMethod::embed: 3M in the residue
/// domain (docs/crt.md, "3M in the residue domain"; 3N INT8 products, C written by the
/// reconstruction; n <= 8 and k <= 16 in one narrow pass on the CUDA cores; with N given, beta = 0
/// and C apart from a and b, x's line rule inside its residue pass, so that x's NaN / Inf is found
/// after C is written and the fallback rewrites it), falling back to the embedding for NaN / Inf,
/// and, when no N is certified, to native arithmetic on the embedding with the certificate's reason
/// (detail::scheme_fallback, like the host; the embedding does not certify again). Otherwise the
/// embedding: builds Y (2k x 2n, column-major, kSlotComplexRe) from b; reads X straight from a when a's rows are interleaved re/im rows (column stride 1) that
/// do not overlap C, else packs X (row-major m x 2k, kSlotComplexIm); then one real gemm_device
/// (int8-crt: line rule, certificate, residues, INT8 products, reconstruction) into C's real view
/// (complex_crt_writes_c) or into a temporary (kSlotComplexIm) followed by complex_combine.
template <class T>
GemmReport complex_gemm_crt(MatrixView<const std::complex<T>> a, MatrixView<const std::complex<T>> b,
                            std::complex<T> alpha, std::complex<T> beta, MatrixView<std::complex<T>> C,
                            const GemmOptions& options, Stream stream, Workspace& ws, ComplexMethod method);

/// complex_gemm_device_gathered's int8-crt part: C = X b (alpha 1, beta 0) with X the m x k matrix
/// read through `gather` (m = 2^row_bits, k = 2^col_bits; row0 ignored) at x, by 3M with N given
/// where the fused line rule and residue pass runs (crt_gathered_rule_and_residues_complex3m; not the
/// narrow pass, m > 2n, C apart from x's elements and from b). Returns true with C and `report` written as
/// complex_gemm_crt would on X gathered into rows (the same bits); false when the call is not taken
/// (C untouched) or X holds NaN or Inf (C written, unspecified): the caller then gathers X and calls
/// complex_gemm_crt, whose fallbacks apply.
template <class T>
bool complex_gemm_crt_gathered(const std::complex<T>* x, const GatheredLines& gather, MatrixView<const std::complex<T>> b,
                               MatrixView<std::complex<T>> C, const GemmOptions& options, Stream stream, Workspace& ws,
                               ComplexMethod method, GemmReport& report);

}  // namespace tcemu::cuda::detail
