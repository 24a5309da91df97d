// The CUDA backend behind tcemu::nearest and tcemu::squared_norms on Kokkos Views
// (tcemu/nearest_views.hpp): the header dispatches on the execution space and checks the Views; these
// run the core's raw-pointer CUDA entries (tcemu/cuda/nearest_cuda.hpp) on the instance's stream.
#include "tcemu/nearest.hpp"

#if defined(TCEMU_HAVE_CUDA)
#include "tcemu/cuda/nearest_cuda.hpp"

namespace tcemu::detail {

static_assert(kNearestMaxDeviceK == cuda::kNearestMaxK, "the View entry's k limit is the CUDA top-k kernel's");

template <class T>
void view_nearest_cuda(MatrixView<const T> queries, MatrixView<const T> database, int k, std::int32_t* index,
                       double* distance, const NearestOptions& options, NearestLog* log, const T* query_norms,
                       const T* database_norms, ::CUstream_st* stream) {
  cuda::nearest_device<T>(queries, database, k, index, distance, options, log, query_norms, database_norms, stream,
                          nullptr);
}

template <class T>
void view_squared_norms_cuda(MatrixView<const T> x, T* out, ::CUstream_st* stream) {
  cuda::squared_norms_device<T>(x, out, stream);
}

template <class T>
void view_nearest_reserve_cuda(std::int64_t batch, std::int64_t n) {
  cuda::default_nearest_workspace<T>().dots.resize(std::size_t(batch * n));
}

#define TCEMU_VIEW_NEAREST_INSTANTIATE(T)                                                                     \
  template void view_nearest_cuda<T>(MatrixView<const T>, MatrixView<const T>, int, std::int32_t*, double*,   \
                                     const NearestOptions&, NearestLog*, const T*, const T*, ::CUstream_st*); \
  template void view_squared_norms_cuda<T>(MatrixView<const T>, T*, ::CUstream_st*);                          \
  template void view_nearest_reserve_cuda<T>(std::int64_t, std::int64_t);
TCEMU_VIEW_NEAREST_INSTANTIATE(float)
TCEMU_VIEW_NEAREST_INSTANTIATE(double)
#undef TCEMU_VIEW_NEAREST_INSTANTIATE

}  // namespace tcemu::detail
#endif
