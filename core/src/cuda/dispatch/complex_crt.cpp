// int8-crt on complex operands on the GPU (complex_crt.hpp): the host's real embedding
// (common/complex_crt.hpp), one real int8-crt gemm_device, the complex combine where needed.
#include "cuda/dispatch/complex_crt.hpp"

#include <algorithm>
#include <cstdint>

#include "common/complex_crt.hpp"
#include "cuda/kernels.hpp"
#include "cuda/workspace_impl.hpp"

namespace tcemu::cuda::detail {
namespace {

/// Whether the bytes spanned by two strided views of Z intersect (strides of any sign).
template <class Z>
bool spans_overlap(const MatrixView<const Z>& u, const MatrixView<Z>& v) {
  auto extent = [](const Z* p, std::int64_t rows, std::int64_t cols, std::int64_t rs, std::int64_t cs) {
    const std::int64_t r = (rows - 1) * rs, c = (cols - 1) * cs;
    const auto base = reinterpret_cast<std::uintptr_t>(p);
    const auto lo = std::min<std::int64_t>(r, 0) + std::min<std::int64_t>(c, 0);
    const auto hi = std::max<std::int64_t>(r, 0) + std::max<std::int64_t>(c, 0);
    const auto sz = static_cast<std::int64_t>(sizeof(Z));
    return std::pair<std::uintptr_t, std::uintptr_t>{base + static_cast<std::uintptr_t>(lo * sz),
                                                     base + static_cast<std::uintptr_t>((hi + 1) * sz)};
  };
  const auto eu = extent(u.data, u.rows, u.cols, u.row_stride, u.col_stride);
  const auto ev = extent(v.data, v.rows, v.cols, v.row_stride, v.col_stride);
  return !(eu.second <= ev.first || ev.second <= eu.first);
}

std::size_t aligned(std::size_t bytes) { return (bytes + 255) / 256 * 256; }

}  // namespace

template <class T>
GemmReport complex_gemm_crt(MatrixView<const std::complex<T>> a, MatrixView<const std::complex<T>> b,
                            std::complex<T> alpha, std::complex<T> beta, MatrixView<std::complex<T>> C,
                            const GemmOptions& options, Stream stream, Workspace& ws) {
  const std::int64_t m = a.rows, k = a.cols, n = b.cols;
  const std::int64_t ld2k = std::max<std::int64_t>(2 * k, 1), ldt = (m + 3) / 4 * 4;
  const bool rows_as_is = (a.col_stride == 1 || a.cols <= 1) && k > 0 && !spans_overlap(a, C);
  const bool direct = tcemu::detail::complex_crt_writes_c(alpha, beta, C);
  const std::size_t x_bytes = rows_as_is ? 0 : aligned(sizeof(T) * static_cast<std::size_t>(m * ld2k));
  const std::size_t t_bytes = direct ? 0 : sizeof(T) * static_cast<std::size_t>(ldt * 2 * n);
  T* y = static_cast<T*>(ws.impl().get(kSlotComplexRe, sizeof(T) * static_cast<std::size_t>(ld2k * 2 * n), stream));
  char* scratch = x_bytes + t_bytes > 0 ? static_cast<char*>(ws.impl().get(kSlotComplexIm, x_bytes + t_bytes, stream))
                                        : nullptr;
  embed_complex_operand<T>(reinterpret_cast<const T*>(b.data), k, n, b.row_stride, b.col_stride, y, ld2k, stream);
  MatrixView<const T> X{reinterpret_cast<const T*>(a.data), m, 2 * k, 2 * a.row_stride, 1};
  if (!rows_as_is) {
    T* x = reinterpret_cast<T*>(scratch);
    embed_complex_rows<T>(reinterpret_cast<const T*>(a.data), m, k, a.row_stride, a.col_stride, x, ld2k, stream);
    X = MatrixView<const T>{x, m, 2 * k, ld2k, 1};
  }
  const MatrixView<const T> Y{y, 2 * k, 2 * n, 1, ld2k};
  if (direct) {
    const MatrixView<T> Cr{reinterpret_cast<T*>(C.data), m, 2 * n, 2 * C.row_stride, 1};
    return gemm_device<T>(Op::N, Op::N, alpha.real(), X, Y, beta.real(), Cr, options, stream, &ws);
  }
  T* t = reinterpret_cast<T*>(scratch + x_bytes);
  const GemmReport r =
      gemm_device<T>(Op::N, Op::N, T(1), X, Y, T(0), MatrixView<T>{t, m, 2 * n, 1, ldt}, options, stream, &ws);
  complex_combine<T>(t, t + ldt, 2 * ldt, m, n, alpha.real(), alpha.imag(), beta.real(), beta.imag(),
                     reinterpret_cast<T*>(C.data), C.row_stride, C.col_stride, stream);
  if (ws.record_timings) TCEMU_CUDA(cudaStreamSynchronize(stream));
  return r;
}

template GemmReport complex_gemm_crt<float>(MatrixView<const std::complex<float>>, MatrixView<const std::complex<float>>,
                                            std::complex<float>, std::complex<float>, MatrixView<std::complex<float>>,
                                            const GemmOptions&, Stream, Workspace&);
template GemmReport complex_gemm_crt<double>(MatrixView<const std::complex<double>>,
                                             MatrixView<const std::complex<double>>, std::complex<double>,
                                             std::complex<double>, MatrixView<std::complex<double>>,
                                             const GemmOptions&, Stream, Workspace&);

}  // namespace tcemu::cuda::detail
