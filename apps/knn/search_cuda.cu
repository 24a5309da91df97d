// knn on the GPU (see search_device.hpp): train points and queries uploaded once (cached between
// calls), then core's tcemu::cuda::nearest_device (norms, per batch the emulated distance GEMM and the
// fused top-k kernel); only the q x k results come back.
#include <cuda_runtime.h>

#include <string>

#include "search_device.hpp"
#include "tcemu/cuda/check.hpp"
#include "tcemu/cuda/nearest_cuda.hpp"
#include "tcemu/error.hpp"

namespace knn {
namespace {

/// Device copy of a host array, re-uploaded only when the host pointer or size changes.
template <class T>
struct Resident {
  tcemu::cuda::DeviceBuffer<T> buf;
  const T* host = nullptr;
  std::size_t size = 0;
  T* get(const T* h, std::size_t s) {
    if (h != host || s != size) {
      buf.resize(s);
      TCEMU_CUDA(cudaMemcpy(buf.get(), h, s * sizeof(T), cudaMemcpyHostToDevice));
      host = h;
      size = s;
    }
    return buf.get();
  }
};

template <class T>
struct State {
  Resident<T> train, queries;
  tcemu::cuda::DeviceBuffer<std::int32_t> idx;
  tcemu::cuda::DeviceBuffer<double> dist;
};

template <class T>
State<T>& state() {
  static thread_local State<T> s;
  return s;
}

}  // namespace

template <class T>
Neighbors search_device(const T* train, const T* queries, std::int64_t n, std::int64_t q, std::int64_t d,
                        const tcemu::Scheme& scheme, int k, const SearchOptions& options, SearchLog* log) {
  if (!tcemu::cuda::device_available()) throw tcemu::DeviceError("--device cuda: no CUDA device is available");
  if (k > kMaxDeviceK)
    throw tcemu::InvalidArgument("--k " + std::to_string(k) + ": the GPU top-k supports k <= " +
                                 std::to_string(kMaxDeviceK) + "; use --device host");
  if (n > 0x7fffffff) throw tcemu::InvalidArgument("knn --device cuda: n must fit in int32");
  State<T>& st = state<T>();
  const T* dtrain = st.train.get(train, std::size_t(n * d));
  const T* dqueries = st.queries.get(queries, std::size_t(q * d));
  st.idx.resize(std::size_t(q * k));
  st.dist.resize(std::size_t(q * k));
  tcemu::NearestLog nearest_log;
  tcemu::cuda::nearest_device<T>(tcemu::row_major(dqueries, q, d), tcemu::row_major(dtrain, n, d), k, st.idx.get(),
                                 st.dist.get(), nearest_options(scheme, options), log ? &nearest_log : nullptr);
  if (log) *log = search_log(nearest_log);
  Neighbors out;
  out.q = q;
  out.k = k;
  out.index.resize(std::size_t(q * k));
  out.sq_dist.resize(std::size_t(q * k));
  TCEMU_CUDA(cudaMemcpy(out.index.data(), st.idx.get(), std::size_t(q * k) * sizeof(std::int32_t),
                        cudaMemcpyDeviceToHost));
  TCEMU_CUDA(cudaMemcpy(out.sq_dist.data(), st.dist.get(), std::size_t(q * k) * sizeof(double),
                        cudaMemcpyDeviceToHost));
  return out;
}

template Neighbors search_device<float>(const float*, const float*, std::int64_t, std::int64_t, std::int64_t,
                                        const tcemu::Scheme&, int, const SearchOptions&, SearchLog*);
template Neighbors search_device<double>(const double*, const double*, std::int64_t, std::int64_t,
                                         std::int64_t, const tcemu::Scheme&, int, const SearchOptions&,
                                         SearchLog*);

}  // namespace knn
