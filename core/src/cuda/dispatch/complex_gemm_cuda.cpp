// Complex GEMM on the device (gemm_cuda.hpp, complex_gemm_device): 4M = four real emulated GEMMs on
// the real/imaginary views plus a complex combine (complex_gemm.hpp), or, when op(A) and C are rows
// of interleaved re/im and alpha, beta are real, the real embedding: op(A) read as a real m x 2k
// matrix, op(B) expanded on the device to the 2k x 2n real matrix [[Re, Im], [-Im, Re]] per element
// (complex_embed.cu), C written as a real m x 2n matrix by ONE real gemm_device call.
#include <cuComplex.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>

#include "cuda/dispatch/complex_crt.hpp"
#include "cuda/kernels.hpp"
#include "cuda/workspace_impl.hpp"
#include "tcemu/complex_gemm.hpp"
#include "tcemu/error.hpp"

namespace tcemu::cuda {
namespace {

/// Byte range [lo, hi) spanned by the elements of a view (strides of any sign).
template <class Z>
std::pair<std::uintptr_t, std::uintptr_t> byte_extent(const Z* data, std::int64_t rows, std::int64_t cols,
                                                      std::int64_t rs, std::int64_t cs) {
  std::int64_t lo = 0, hi = 0;
  const std::int64_t r = (rows - 1) * rs, c = (cols - 1) * cs;
  lo += std::min<std::int64_t>(r, 0) + std::min<std::int64_t>(c, 0);
  hi += std::max<std::int64_t>(r, 0) + std::max<std::int64_t>(c, 0);
  const auto base = reinterpret_cast<std::uintptr_t>(data);
  const auto sz = static_cast<std::int64_t>(sizeof(Z));
  return {base + static_cast<std::uintptr_t>(lo * sz), base + static_cast<std::uintptr_t>((hi + 1) * sz)};
}

template <class T>
GemmReport complex_gemm_4m(MatrixView<const std::complex<T>> a, MatrixView<const std::complex<T>> b,
                           std::complex<T> alpha, std::complex<T> beta, MatrixView<std::complex<T>> C,
                           const GemmOptions& options, Stream stream, Workspace& ws) {
  const std::int64_t m = a.rows, n = b.cols;
  const std::int64_t ld = (m + 3) / 4 * 4;
  T* re = static_cast<T*>(ws.impl().get(kSlotComplexRe, sizeof(T) * ld * n, stream));
  T* im = static_cast<T*>(ws.impl().get(kSlotComplexIm, sizeof(T) * ld * n, stream));
  const MatrixView<T> vre{re, m, n, 1, ld}, vim{im, m, n, 1, ld};
  const auto ar = real_view(a), ai = imag_view(a), br = real_view(b), bi = imag_view(b);
  GemmReport r[4];
  r[0] = gemm_device<T>(Op::N, Op::N, T(1), ar, br, T(0), vre, options, stream, &ws);
  r[1] = gemm_device<T>(Op::N, Op::N, T(-1), ai, bi, T(1), vre, options, stream, &ws);
  r[2] = gemm_device<T>(Op::N, Op::N, T(1), ar, bi, T(0), vim, options, stream, &ws);
  r[3] = gemm_device<T>(Op::N, Op::N, T(1), ai, br, T(1), vim, options, stream, &ws);
  detail::complex_combine<T>(re, im, ld, m, n, alpha.real(), alpha.imag(), beta.real(), beta.imag(),
                             reinterpret_cast<T*>(C.data), C.row_stride, C.col_stride, stream);
  if (ws.record_timings) TCEMU_CUDA(cudaStreamSynchronize(stream));
  return merge_reports(r, 4);
}

/// The real embedding (preconditions: complex_embedding_applies). Br lives in kSlotComplexRe, which
/// gemm_device never uses, column-major 2k x 2n: each line of op(B) (a column of Br) is contiguous
/// along k, the layout the split pass and cuBLAS read directly.
template <class T>
GemmReport complex_gemm_embed(MatrixView<const std::complex<T>> a, MatrixView<const std::complex<T>> b,
                              T alpha, T beta, MatrixView<std::complex<T>> C, const GemmOptions& options,
                              Stream stream, Workspace& ws) {
  const std::int64_t m = a.rows, k = a.cols, n = b.cols;
  const std::int64_t ldbr = std::max<std::int64_t>(2 * k, 1);
  T* br = static_cast<T*>(ws.impl().get(kSlotComplexRe, sizeof(T) * ldbr * 2 * n, stream));
  detail::embed_complex_operand<T>(reinterpret_cast<const T*>(b.data), k, n, b.row_stride, b.col_stride, br,
                                   ldbr, stream);
  // With a single column the column stride is irrelevant: re and im of an element are adjacent.
  const MatrixView<const T> Ar{reinterpret_cast<const T*>(a.data), m, 2 * k, 2 * a.row_stride, 1};
  const MatrixView<const T> Br{br, 2 * k, 2 * n, 1, ldbr};
  const MatrixView<T> Cr{reinterpret_cast<T*>(C.data), m, 2 * n, 2 * C.row_stride, 1};
  return gemm_device<T>(Op::N, Op::N, alpha, Ar, Br, beta, Cr, options, stream, &ws);
}

/// How cuBLAS reads a complex view as the column-major `rows x cols` operand of a GEMM: op N with
/// leading dimension col_stride (row_stride 1), or op T on the transposed storage (col_stride 1).
struct BlasView {
  bool ok = false;
  cublasOperation_t op = CUBLAS_OP_N;
  std::int64_t ld = 0;
};
template <class Z>
BlasView blas_view(const MatrixView<Z>& v) {
  if (v.row_stride == 1 && v.col_stride >= std::max<std::int64_t>(1, v.rows)) return {true, CUBLAS_OP_N, v.col_stride};
  if (v.col_stride == 1 && v.row_stride >= std::max<std::int64_t>(1, v.cols)) return {true, CUBLAS_OP_T, v.row_stride};
  return {};
}

/// ComplexMethod::blas: C = alpha a b + beta C by one cublasCgemm / cublasZgemm, column-major C as is
/// or, for row-major C, C^T = b^T a^T. Returns false (nothing queued) when cuBLAS cannot read a view.
template <class T>
bool complex_gemm_blas(MatrixView<const std::complex<T>> a, MatrixView<const std::complex<T>> b,
                       std::complex<T> alpha, std::complex<T> beta, MatrixView<std::complex<T>> C, Stream stream,
                       Workspace& ws) {
  const bool swap = !(C.row_stride == 1) && C.col_stride == 1;
  const MatrixView<const std::complex<T>> x = swap ? b.transposed() : a, y = swap ? a.transposed() : b;
  const MatrixView<std::complex<T>> c = swap ? C.transposed() : C;
  const BlasView bx = blas_view(x), by = blas_view(y), bc = blas_view(c);
  const std::int64_t lim = std::numeric_limits<int>::max();
  if (!bx.ok || !by.ok || !bc.ok || bc.op != CUBLAS_OP_N || c.rows > lim || c.cols > lim || x.cols > lim ||
      bx.ld > lim || by.ld > lim || bc.ld > lim)
    return false;
  cublasHandle_t h = ws.impl().handle(stream);
  TCEMU_CUBLAS(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));
  const int m = int(c.rows), n = int(c.cols), k = int(x.cols);
  if constexpr (std::is_same_v<T, float>) {
    TCEMU_CUBLAS(cublasCgemm(h, bx.op, by.op, m, n, k, reinterpret_cast<const cuComplex*>(&alpha),
                             reinterpret_cast<const cuComplex*>(x.data), int(bx.ld),
                             reinterpret_cast<const cuComplex*>(y.data), int(by.ld),
                             reinterpret_cast<const cuComplex*>(&beta), reinterpret_cast<cuComplex*>(c.data),
                             int(bc.ld)));
  } else {
    TCEMU_CUBLAS(cublasZgemm(h, bx.op, by.op, m, n, k, reinterpret_cast<const cuDoubleComplex*>(&alpha),
                             reinterpret_cast<const cuDoubleComplex*>(x.data), int(bx.ld),
                             reinterpret_cast<const cuDoubleComplex*>(y.data), int(by.ld),
                             reinterpret_cast<const cuDoubleComplex*>(&beta),
                             reinterpret_cast<cuDoubleComplex*>(c.data), int(bc.ld)));
  }
  return true;
}

}  // namespace

template <class T>
bool complex_embedding_applies(Op opA, std::complex<T> alpha, MatrixView<const std::complex<T>> A,
                               std::complex<T> beta, MatrixView<std::complex<T>> C) {
  if (alpha.imag() != T(0) || beta.imag() != T(0)) return false;
  const auto a = A.apply(opA);
  if (!(a.col_stride == 1 || a.cols <= 1)) return false;
  if (!(C.col_stride == 1 || C.cols <= 1)) return false;
  if (a.rows <= 0 || a.cols <= 0 || C.rows <= 0 || C.cols <= 0) return true;  // nothing is read from A
  const auto ea = byte_extent(a.data, a.rows, a.cols, a.row_stride, a.col_stride);
  const auto ec = byte_extent(C.data, C.rows, C.cols, C.row_stride, C.col_stride);
  return ea.second <= ec.first || ec.second <= ea.first;
}

template <class T>
GemmReport complex_gemm_device(Op opA, Op opB, std::complex<T> alpha,
                               MatrixView<const std::complex<T>> A, MatrixView<const std::complex<T>> B,
                               std::complex<T> beta, MatrixView<std::complex<T>> C,
                               const GemmOptions& options, Stream stream, Workspace* wsp, ComplexMethod method) {
  const auto a = A.apply(opA);
  const auto b = B.apply(opB);
  check_gemm_shapes(a.rows, a.cols, b.rows, b.cols, C.rows, C.cols);
  const std::int64_t m = a.rows, n = b.cols;
  if (m == 0 || n == 0) {
    GemmReport r;
    r.requested = r.used = options.scheme;
    return r;
  }
  Workspace& ws = wsp ? *wsp : default_workspace();
  // int8-crt takes 3M in the residue domain or its own real embedding, never 4M: one certificate and
  // the host's bits (common/complex_crt.hpp; `method` as execution.hpp's ComplexMethod says).
  if (options.scheme.family() == ImplFamily::crt)
    return detail::complex_gemm_crt<T>(a, b, alpha, beta, C, options, stream, ws, method);
  const bool native_of_t = options.scheme.is_native() &&
                           (options.scheme.part == PartType::fp64) == std::is_same_v<T, double>;
  if (method == ComplexMethod::blas && native_of_t && complex_gemm_blas<T>(a, b, alpha, beta, C, stream, ws)) {
    GemmReport r;
    r.requested = r.used = options.scheme;
    return r;
  }
  const bool embed = method != ComplexMethod::four_m && complex_embedding_applies<T>(opA, alpha, A, beta, C);
  if (embed) return complex_gemm_embed<T>(a, b, alpha.real(), beta.real(), C, options, stream, ws);
  return complex_gemm_4m<T>(a, b, alpha, beta, C, options, stream, ws);
}

template <class T>
GemmReport complex_gemm_device(Op opA, Op opB, std::complex<T> alpha,
                               MatrixView<const std::complex<T>> A, MatrixView<const std::complex<T>> B,
                               std::complex<T> beta, MatrixView<std::complex<T>> C,
                               const GemmOptions& options, Stream stream, Workspace* ws) {
  return complex_gemm_device<T>(opA, opB, alpha, A, B, beta, C, options, stream, ws, options.execution.complex);
}

template <class T>
bool complex_gemm_device_gathered(const std::complex<T>* x, const BitGather& gather, Op opB,
                                  MatrixView<const std::complex<T>> B, MatrixView<std::complex<T>> C,
                                  const GemmOptions& options, Stream stream, Workspace* wsp, ComplexMethod method,
                                  GemmReport& report) {
  const int row_bits = static_cast<int>(gather.row_positions.size());
  const int col_bits = static_cast<int>(gather.col_positions.size());
  detail::GatheredLines g;
  std::uint64_t used = 0;
  bool valid = row_bits + col_bits <= 32;
  auto place = [&](int p, std::uint8_t& slot) {
    valid = valid && p >= 0 && p < 32 && !((used >> p) & 1u);
    if (p >= 0 && p < 32) used |= std::uint64_t{1} << p;
    slot = static_cast<std::uint8_t>(p);
  };
  for (int b = 0; valid && b < row_bits; ++b) place(gather.row_positions[static_cast<std::size_t>(b)], g.row_pos[b]);
  for (int b = 0; valid && b < col_bits; ++b) place(gather.col_positions[static_cast<std::size_t>(b)], g.col_pos[b]);
  if (!valid)
    throw InvalidArgument("tcemu cuda complex_gemm_device_gathered: the bit positions must be distinct, in 0..31 and "
                          "at most 32 in all");
  g.row_bits = row_bits;
  g.col_bits = col_bits;
  const auto b = B.apply(opB);
  const std::int64_t m = std::int64_t{1} << row_bits, k = std::int64_t{1} << col_bits;
  check_gemm_shapes(m, k, b.rows, b.cols, C.rows, C.cols);
  if (options.scheme.family() != ImplFamily::crt || b.cols == 0) return false;
  Workspace& ws = wsp ? *wsp : default_workspace();
  return detail::complex_gemm_crt_gathered<T>(x, g, b, C, options, stream, ws, method, report);
}

#define TCEMU_COMPLEX_DEVICE(T)                                                                       \
  template bool complex_embedding_applies<T>(Op, std::complex<T>, MatrixView<const std::complex<T>>,  \
                                             std::complex<T>, MatrixView<std::complex<T>>);           \
  template GemmReport complex_gemm_device<T>(Op, Op, std::complex<T>, MatrixView<const std::complex<T>>, \
                                             MatrixView<const std::complex<T>>, std::complex<T>,      \
                                             MatrixView<std::complex<T>>, const GemmOptions&, Stream, \
                                             Workspace*);                                             \
  template GemmReport complex_gemm_device<T>(Op, Op, std::complex<T>, MatrixView<const std::complex<T>>, \
                                             MatrixView<const std::complex<T>>, std::complex<T>,      \
                                             MatrixView<std::complex<T>>, const GemmOptions&, Stream, \
                                             Workspace*, ComplexMethod);                              \
  template bool complex_gemm_device_gathered<T>(const std::complex<T>*, const BitGather&, Op,        \
                                                MatrixView<const std::complex<T>>, MatrixView<std::complex<T>>, \
                                                const GemmOptions&, Stream, Workspace*, ComplexMethod, GemmReport&);
TCEMU_COMPLEX_DEVICE(float)
TCEMU_COMPLEX_DEVICE(double)
#undef TCEMU_COMPLEX_DEVICE

}  // namespace tcemu::cuda
