// Complex GEMM on the device as four real emulated GEMMs (4M; complex_gemm.hpp).
#include "cuda/kernels.hpp"
#include "cuda/workspace_impl.hpp"
#include "tcemu/complex_gemm.hpp"

namespace tcemu::cuda {

template <class T>
GemmReport complex_gemm_device(Op opA, Op opB, std::complex<T> alpha,
                               MatrixView<const std::complex<T>> A, MatrixView<const std::complex<T>> B,
                               std::complex<T> beta, MatrixView<std::complex<T>> C,
                               const GemmOptions& options, Stream stream, Workspace* wsp) {
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

template GemmReport complex_gemm_device<float>(Op, Op, std::complex<float>,
                                               MatrixView<const std::complex<float>>,
                                               MatrixView<const std::complex<float>>, std::complex<float>,
                                               MatrixView<std::complex<float>>, const GemmOptions&, Stream,
                                               Workspace*);
template GemmReport complex_gemm_device<double>(Op, Op, std::complex<double>,
                                                MatrixView<const std::complex<double>>,
                                                MatrixView<const std::complex<double>>,
                                                std::complex<double>, MatrixView<std::complex<double>>,
                                                const GemmOptions&, Stream, Workspace*);

}  // namespace tcemu::cuda
