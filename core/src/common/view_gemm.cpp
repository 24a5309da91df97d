// The backends behind tcemu::gemm on Kokkos Views (tcemu/gemm.hpp): the header dispatches on the
// execution space, memory spaces and element type; these run the core's real or complex GEMM.
#include <complex>
#include <type_traits>

#include "tcemu/complex_gemm.hpp"
#include "tcemu/gemm.hpp"
#include "tcemu/resources.hpp"

#if defined(TCEMU_HAVE_CUDA)
#include <cuda_runtime.h>

#include "tcemu/cuda/check.hpp"
#include "tcemu/cuda/gemm_cuda.hpp"
#endif

namespace tcemu::detail {

namespace {
template <class T>
struct is_complex : std::false_type {};
template <class R>
struct is_complex<std::complex<R>> : std::true_type {};
}  // namespace

template <class T>
GemmReport view_gemm_host(Op opA, Op opB, T alpha, MatrixView<const T> A, MatrixView<const T> B, T beta,
                          MatrixView<T> C, const GemmOptions& options) {
  if constexpr (is_complex<T>::value) {
    return complex_gemm_host<typename T::value_type>(opA, opB, alpha, A, B, beta, C, options);
  } else {
    return gemm_host<T>(opA, opB, alpha, A, B, beta, C, options);
  }
}

#if defined(TCEMU_HAVE_CUDA)
template <class T>
GemmReport view_gemm_cuda(Op opA, Op opB, T alpha, MatrixView<const T> A, MatrixView<const T> B, T beta,
                          MatrixView<T> C, const GemmOptions& options, ::CUstream_st* stream,
                          Resources* resources) {
  cuda::Workspace* ws = resources ? &resources->cuda_workspace() : nullptr;
  const bool synchronous = resources ? resources->synchronous : true;
  if (ws) ws->record_timings = synchronous;
  GemmReport report;
  if constexpr (is_complex<T>::value) {
    report = cuda::complex_gemm_device<typename T::value_type>(opA, opB, alpha, A, B, beta, C, options, stream, ws);
  } else {
    report = cuda::gemm_device<T>(opA, opB, alpha, A, B, beta, C, options, stream, ws);
  }
  if (synchronous) TCEMU_CUDA(cudaStreamSynchronize(stream));
  return report;
}
#endif

#define TCEMU_VIEW_GEMM_INSTANTIATE(T)                                                                    \
  template GemmReport view_gemm_host<T>(Op, Op, T, MatrixView<const T>, MatrixView<const T>, T, MatrixView<T>, \
                                        const GemmOptions&);
TCEMU_VIEW_GEMM_INSTANTIATE(float)
TCEMU_VIEW_GEMM_INSTANTIATE(double)
TCEMU_VIEW_GEMM_INSTANTIATE(std::complex<float>)
TCEMU_VIEW_GEMM_INSTANTIATE(std::complex<double>)
#undef TCEMU_VIEW_GEMM_INSTANTIATE

#if defined(TCEMU_HAVE_CUDA)
#define TCEMU_VIEW_GEMM_INSTANTIATE(T)                                                                    \
  template GemmReport view_gemm_cuda<T>(Op, Op, T, MatrixView<const T>, MatrixView<const T>, T, MatrixView<T>, \
                                        const GemmOptions&, ::CUstream_st*, Resources*);
TCEMU_VIEW_GEMM_INSTANTIATE(float)
TCEMU_VIEW_GEMM_INSTANTIATE(double)
TCEMU_VIEW_GEMM_INSTANTIATE(std::complex<float>)
TCEMU_VIEW_GEMM_INSTANTIATE(std::complex<double>)
#undef TCEMU_VIEW_GEMM_INSTANTIATE
#endif

}  // namespace tcemu::detail
