// tcemu::cuda::nearest_device (tcemu/cuda/nearest_cuda.hpp): norms, per batch one gemm_device and one
// selection kernel (kernels/nearest_kernels.cu), all on the caller's stream.
#include <algorithm>
#include <chrono>
#include <string>

#include "kernels/nearest_kernels.hpp"
#include "tcemu/cuda/nearest_cuda.hpp"

namespace tcemu::cuda {

template <class T>
NearestWorkspace<T>& default_nearest_workspace() {
  static thread_local NearestWorkspace<T> ws;
  return ws;
}

template <class T>
void squared_norms_device(MatrixView<const T> x, T* out, Stream stream) {
  if (x.col_stride != 1 && x.rows > 0)
    throw InvalidArgument("squared_norms_device: x must have a unit column stride");
  detail::launch_squared_norms(x.data, x.row_stride, x.rows, x.cols, out, stream);
}

template <class T>
void nearest_device(MatrixView<const T> queries, MatrixView<const T> database, int k, std::int32_t* index,
                    double* distance, const NearestOptions& options, NearestLog* log, const T* query_norms,
                    const T* database_norms, Stream stream, NearestWorkspace<T>* ws) {
  if (!device_available()) throw DeviceError("nearest_device: no CUDA device is available");
  tcemu::detail::check_nearest_args("nearest_device", queries.rows, queries.cols, queries.col_stride,
                                    database.rows, database.cols, database.col_stride, k, options,
                                    index != nullptr);
  if (k > kNearestMaxK)
    throw InvalidArgument("nearest_device: k = " + std::to_string(k) + " exceeds kNearestMaxK = " +
                          std::to_string(kNearestMaxK));
  if (!ws) ws = &default_nearest_workspace<T>();
  const std::int64_t q = queries.rows, n = database.rows, d = queries.cols;
  if (log) *log = NearestLog{};
  if (!query_norms) {
    ws->query_norms.resize(std::size_t(q));
    squared_norms_device(queries, ws->query_norms.get(), stream);
    query_norms = ws->query_norms.get();
  }
  if (!database_norms) {
    ws->database_norms.resize(std::size_t(n));
    squared_norms_device(database, ws->database_norms.get(), stream);
    database_norms = ws->database_norms.get();
  }
  if (q == 0) return;
  const std::int64_t batch = std::min(options.batch, q);
  const std::int64_t batches = (q + batch - 1) / batch;
  ws->dots.resize(std::size_t(batch * n));
  const double margin = options.near_tie_margin;
  if (margin > 0) {
    ws->rechecked.resize(1);
    TCEMU_CUDA(cudaMemsetAsync(ws->rechecked.get(), 0, sizeof(unsigned long long), stream));
  }
  for (std::int64_t bi = 0; bi < batches; ++bi) {
    const std::int64_t lo = bi * batch, b = std::min(batch, q - lo);
    const MatrixView<const T> qb{queries.data + lo * queries.row_stride, b, d, queries.row_stride, 1};
    const auto t0 = std::chrono::steady_clock::now();
    const GemmReport rep = gemm_device<T>(Op::N, Op::T, T(1), qb, database, T(0), row_major(ws->dots.get(), b, n),
                                          options.gemm, stream, nullptr);
    if (log) {
      TCEMU_CUDA(cudaStreamSynchronize(stream));  // GEMM time as the caller's wall clock sees it
      log->gemm_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      log->reports.push_back(rep);
    }
    if (k == 1)
      detail::launch_argmin(ws->dots.get(), query_norms + lo, database_norms, b, n, qb.data, queries.row_stride,
                            options.exact_database, d, margin, ws->rechecked.get(), index + lo,
                            distance ? distance + lo : nullptr, stream);
    else
      detail::launch_topk(ws->dots.get(), query_norms + lo, database_norms, b, n, k, index + lo * k,
                          distance ? distance + lo * k : nullptr, stream);
    if (options.on_batch) options.on_batch(bi + 1, batches);
  }
  unsigned long long rechecked = 0;
  if (margin > 0 && log)
    TCEMU_CUDA(cudaMemcpyAsync(&rechecked, ws->rechecked.get(), sizeof(rechecked), cudaMemcpyDeviceToHost, stream));
  TCEMU_CUDA(cudaStreamSynchronize(stream));
  if (log) log->rechecked = static_cast<std::int64_t>(rechecked);
}

#define TCEMU_NEAREST_DEVICE(T)                                                                               \
  template NearestWorkspace<T>& default_nearest_workspace<T>();                                               \
  template void squared_norms_device<T>(MatrixView<const T>, T*, Stream);                                     \
  template void nearest_device<T>(MatrixView<const T>, MatrixView<const T>, int, std::int32_t*, double*,      \
                                  const NearestOptions&, NearestLog*, const T*, const T*, Stream,             \
                                  NearestWorkspace<T>*);
TCEMU_NEAREST_DEVICE(float)
TCEMU_NEAREST_DEVICE(double)
#undef TCEMU_NEAREST_DEVICE

}  // namespace tcemu::cuda
