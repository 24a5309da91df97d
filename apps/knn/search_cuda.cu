// knn on the GPU (see search_device.hpp). Top-k: every thread of a query's block scans a strided
// slice of the distance row keeping its own sorted top-K in registers (K a compile-time bound >= k);
// then k rounds of a block-wide min over the threads' list heads merge them, ties to the smaller
// train index, so the result equals the host's std::partial_sort on (distance, index).
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "app_common/environment.hpp"
#include "search_device.hpp"
#include "tcemu/cuda/check.hpp"
#include "tcemu/cuda/gemm_cuda.hpp"
#include "tcemu/error.hpp"

namespace knn {
namespace {

constexpr int kThreads = 256;
constexpr int kWarp = 32;

__device__ __forceinline__ float add_rn(float a, float b) { return __fadd_rn(a, b); }
__device__ __forceinline__ double add_rn(double a, double b) { return __dadd_rn(a, b); }
__device__ __forceinline__ float sub_rn(float a, float b) { return __fsub_rn(a, b); }
__device__ __forceinline__ double sub_rn(double a, double b) { return __dsub_rn(a, b); }

template <class T>
__global__ void norms_kernel(const T* x, T* out, std::int64_t rows, std::int64_t d) {
  const std::int64_t r = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / kWarp;
  const int lane = threadIdx.x % kWarp;
  if (r >= rows) return;
  double s = 0;
  for (std::int64_t j = lane; j < d; j += kWarp) s += double(x[r * d + j]) * double(x[r * d + j]);
  // Same value as the host's sequential double sum only up to rounding of the sum; both round to T.
  for (int o = kWarp / 2; o > 0; o /= 2) s += __shfl_down_sync(0xffffffffu, s, o);
  if (lane == 0) out[r] = static_cast<T>(s);
}

template <class T>
__device__ __forceinline__ bool less(T a, int ia, T b, int ib) {
  return a < b || (a == b && ia < ib);
}

template <class T, int K>
__global__ void topk_kernel(const T* dots, const T* qnorm, const T* tnorm, std::int64_t n, int k,
                            std::int32_t* idx_out, double* dist_out) {
  const std::int64_t qi = blockIdx.x;
  const T* row = dots + qi * n;
  const T qn = qnorm[qi];
  T best[K];
  int best_i[K];
#pragma unroll
  for (int t = 0; t < K; ++t) {
    best[t] = INFINITY;
    best_i[t] = 0x7fffffff;
  }
  for (std::int64_t j = threadIdx.x; j < n; j += blockDim.x) {
    T v = sub_rn(add_rn(qn, tnorm[j]), T(2) * row[j]);
    if (v != v) v = INFINITY;  // NaN sorts last
    const int ji = int(j);
    if (!less(v, ji, best[K - 1], best_i[K - 1])) continue;
    // Insert into the sorted list (compile-time indices only, so it stays in registers).
#pragma unroll
    for (int t = K - 1; t > 0; --t) {
      const bool shift = less(v, ji, best[t - 1], best_i[t - 1]);
      const bool here = !shift && less(v, ji, best[t], best_i[t]);
      if (shift) {
        best[t] = best[t - 1];
        best_i[t] = best_i[t - 1];
      } else if (here) {
        best[t] = v;
        best_i[t] = ji;
      }
    }
    if (less(v, ji, best[0], best_i[0])) {
      best[0] = v;
      best_i[0] = ji;
    }
  }
  // Merge: k rounds of a block-wide min over the list heads.
  __shared__ T wv[kThreads / kWarp];
  __shared__ int wi[kThreads / kWarp];
  __shared__ int wt[kThreads / kWarp];
  __shared__ int winner;
  int head = 0;
  const int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp;
  for (int r = 0; r < k; ++r) {
    T v = INFINITY;
    int vi = 0x7fffffff;
#pragma unroll
    for (int t = 0; t < K; ++t)
      if (t == head) {
        v = best[t];
        vi = best_i[t];
      }
    int owner = threadIdx.x;
    for (int o = kWarp / 2; o > 0; o /= 2) {
      const T ov = __shfl_down_sync(0xffffffffu, v, o);
      const int oi = __shfl_down_sync(0xffffffffu, vi, o);
      const int oo = __shfl_down_sync(0xffffffffu, owner, o);
      if (less(ov, oi, v, vi)) {
        v = ov;
        vi = oi;
        owner = oo;
      }
    }
    if (lane == 0) {
      wv[warp] = v;
      wi[warp] = vi;
      wt[warp] = owner;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      T bv = wv[0];
      int bi = wi[0], bt = wt[0];
      for (int w = 1; w < kThreads / kWarp; ++w)
        if (less(wv[w], wi[w], bv, bi)) {
          bv = wv[w];
          bi = wi[w];
          bt = wt[w];
        }
      idx_out[qi * k + r] = bi == 0x7fffffff ? 0 : bi;
      dist_out[qi * k + r] = double(bv);
      winner = bt;
    }
    __syncthreads();
    if (int(threadIdx.x) == winner) ++head;
    __syncthreads();
  }
}

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
  tcemu::cuda::DeviceBuffer<T> tnorm, qnorm, dots;
  tcemu::cuda::DeviceBuffer<std::int32_t> idx;
  tcemu::cuda::DeviceBuffer<double> dist;
};

template <class T>
State<T>& state() {
  static thread_local State<T> s;
  return s;
}

template <class T, int K>
void launch_topk(const T* dots, const T* qn, const T* tn, std::int64_t b, std::int64_t n, int k,
                 std::int32_t* idx, double* dist) {
  topk_kernel<T, K><<<unsigned(b), kThreads>>>(dots, qn, tn, n, k, idx, dist);
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
  const std::int64_t batch = std::min(options.batch, q);
  const std::int64_t batches = (q + batch - 1) / batch;
  st.tnorm.resize(n);
  st.qnorm.resize(q);
  st.dots.resize(std::size_t(batch * n));
  st.idx.resize(std::size_t(batch * k));
  st.dist.resize(std::size_t(batch * k));
  norms_kernel<T><<<unsigned((n * kWarp + kThreads - 1) / kThreads), kThreads>>>(dtrain, st.tnorm.get(), n, d);
  norms_kernel<T><<<unsigned((q * kWarp + kThreads - 1) / kThreads), kThreads>>>(dqueries, st.qnorm.get(), q, d);
  TCEMU_CUDA(cudaGetLastError());
  if (log) {
    *log = SearchLog{};
    log->batches = batches;
  }
  Neighbors out;
  out.q = q;
  out.k = k;
  out.index.resize(std::size_t(q * k));
  out.sq_dist.resize(std::size_t(q * k));
  const tcemu::GemmOptions gopt = tcemu::app::gemm_options(scheme);
  for (std::int64_t bi = 0; bi < batches; ++bi) {
    const std::int64_t lo = bi * batch, b = std::min(batch, q - lo);
    const tcemu::GemmReport rep = tcemu::cuda::gemm_device<T>(
        tcemu::Op::N, tcemu::Op::T, T(1), tcemu::row_major<const T>(dqueries + lo * d, b, d),
        tcemu::row_major<const T>(dtrain, n, d), T(0), tcemu::row_major(st.dots.get(), b, n), gopt, nullptr,
        nullptr);
    if (log) {
      if (bi == 0) log->first = rep;
      log->gemm.add(rep);
    }
    const T* qn = st.qnorm.get() + lo;
    if (k <= 16) launch_topk<T, 16>(st.dots.get(), qn, st.tnorm.get(), b, n, k, st.idx.get(), st.dist.get());
    else if (k <= 32) launch_topk<T, 32>(st.dots.get(), qn, st.tnorm.get(), b, n, k, st.idx.get(), st.dist.get());
    else if (k <= 64) launch_topk<T, 64>(st.dots.get(), qn, st.tnorm.get(), b, n, k, st.idx.get(), st.dist.get());
    else launch_topk<T, 128>(st.dots.get(), qn, st.tnorm.get(), b, n, k, st.idx.get(), st.dist.get());
    TCEMU_CUDA(cudaGetLastError());
    TCEMU_CUDA(cudaMemcpy(out.index.data() + lo * k, st.idx.get(), std::size_t(b * k) * sizeof(std::int32_t),
                         cudaMemcpyDeviceToHost));
    TCEMU_CUDA(cudaMemcpy(out.sq_dist.data() + lo * k, st.dist.get(), std::size_t(b * k) * sizeof(double),
                         cudaMemcpyDeviceToHost));
    if (options.on_batch) options.on_batch(bi + 1, batches);
  }
  return out;
}

template Neighbors search_device<float>(const float*, const float*, std::int64_t, std::int64_t, std::int64_t,
                                        const tcemu::Scheme&, int, const SearchOptions&, SearchLog*);
template Neighbors search_device<double>(const double*, const double*, std::int64_t, std::int64_t,
                                         std::int64_t, const tcemu::Scheme&, int, const SearchOptions&,
                                         SearchLog*);

}  // namespace knn
