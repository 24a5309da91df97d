// Kernels of tcemu::cuda::nearest_device (tcemu/cuda/nearest_cuda.hpp): squared norms, the k = 1
// argmin with the FP64 near-tie re-ranking (one warp per query), and the k > 1 top-k (one block per
// query). Distances are (||x||^2 + ||y||^2) - 2 x.y with explicit round-to-nearest adds, so no FMA
// contraction makes them differ from the host's.
#include "nearest_kernels.hpp"

#include "tcemu/cuda/check.hpp"
#include "tcemu/cuda/nearest_cuda.hpp"

namespace tcemu::cuda::detail {
namespace {

constexpr int kThreads = 256;
constexpr int kWarp = 32;
constexpr int kNone = 0x7fffffff;  // index of an empty slot: larger than every database index

__device__ __forceinline__ float add_rn(float a, float b) { return __fadd_rn(a, b); }
__device__ __forceinline__ double add_rn(double a, double b) { return __dadd_rn(a, b); }
__device__ __forceinline__ float sub_rn(float a, float b) { return __fsub_rn(a, b); }
__device__ __forceinline__ double sub_rn(double a, double b) { return __dsub_rn(a, b); }

/// The distance as computed in T (may be NaN).
template <class T>
__device__ __forceinline__ T distance(T qn, T dn, T dot) {
  return sub_rn(add_rn(qn, dn), T(2) * dot);
}

/// (a, ia) before (b, ib) in the result order: by distance, then by index.
template <class T>
__device__ __forceinline__ bool less(T a, int ia, T b, int ib) {
  return a < b || (a == b && ia < ib);
}

template <class T>
__global__ void norms_kernel(const T* x, std::int64_t ld, T* out, std::int64_t rows, std::int64_t d) {
  const std::int64_t r = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / kWarp;
  const int lane = threadIdx.x % kWarp;
  if (r >= rows) return;
  double s = 0;
  for (std::int64_t j = lane; j < d; j += kWarp) s += double(x[r * ld + j]) * double(x[r * ld + j]);
  for (int o = kWarp / 2; o > 0; o /= 2) s += __shfl_down_sync(0xffffffffu, s, o);
  if (lane == 0) out[r] = static_cast<T>(s);
}

template <class T>
__global__ void argmin_kernel(const T* dots, const T* qnorm, const T* dnorm, std::int64_t b, std::int64_t n,
                              const T* queries, std::int64_t qld, const double* exact_db, std::int64_t d,
                              double margin, unsigned long long* rechecked, std::int32_t* index,
                              double* distance_out) {
  const std::int64_t p = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / kWarp;
  const int lane = threadIdx.x % kWarp;
  if (p >= b) return;
  const T* row = dots + p * n;
  const T qn = qnorm[p];
  T best = INFINITY;
  int best_j = kNone;
  for (std::int64_t j = lane; j < n; j += kWarp) {
    T v = distance(qn, dnorm[j], row[j]);
    if (v != v) v = INFINITY;  // NaN sorts last
    if (less(v, int(j), best, best_j)) {
      best = v;
      best_j = int(j);
    }
  }
  for (int o = kWarp / 2; o > 0; o /= 2) {
    const T ob = __shfl_down_sync(0xffffffffu, best, o);
    const int oj = __shfl_down_sync(0xffffffffu, best_j, o);
    if (less(ob, oj, best, best_j)) {
      best = ob;
      best_j = oj;
    }
  }
  best = __shfl_sync(0xffffffffu, best, 0);
  best_j = __shfl_sync(0xffffffffu, best_j, 0);
  if (margin > 0) {
    // Near-ties: every point within the margin is compared again with an exact FP64 distance, the
    // warp computing one distance at a time (warp-uniform control flow).
    const double limit = double(best) + margin * (double(qn) + double(dnorm[best_j]));
    int within = 0;
    for (std::int64_t j = lane; j < n; j += kWarp) within += double(distance(qn, dnorm[j], row[j])) <= limit;
    for (int o = kWarp / 2; o > 0; o /= 2) within += __shfl_down_sync(0xffffffffu, within, o);
    within = __shfl_sync(0xffffffffu, within, 0);
    if (within > 1) {
      const T* x = queries + p * qld;
      double best_exact = INFINITY;
      int exact_j = best_j;
      for (std::int64_t j0 = 0; j0 < n; j0 += kWarp) {
        const std::int64_t j = j0 + lane;
        const bool cand = j < n && double(distance(qn, dnorm[j], row[j])) <= limit;
        unsigned mask = __ballot_sync(0xffffffffu, cand);
        while (mask) {
          const int bit = __ffs(mask) - 1;
          mask &= mask - 1;
          const std::int64_t jj = j0 + bit;
          double e = 0;
          for (std::int64_t l = lane; l < d; l += kWarp) {
            const double t = double(x[l]) - exact_db[jj * d + l];
            e += t * t;
          }
          for (int o = kWarp / 2; o > 0; o /= 2) e += __shfl_down_sync(0xffffffffu, e, o);
          e = __shfl_sync(0xffffffffu, e, 0);
          if (e < best_exact) {  // candidates arrive in increasing j: ties keep the smaller index
            best_exact = e;
            exact_j = int(jj);
          }
        }
      }
      if (exact_j != best_j) {
        best_j = exact_j;
        best = distance(qn, dnorm[best_j], row[best_j]);
        if (best != best) best = INFINITY;
      }
      if (lane == 0) atomicAdd(rechecked, 1ull);
    }
  }
  if (lane == 0) {
    index[p] = best_j;
    if (distance_out) distance_out[p] = double(best);
  }
}

template <class T, int K>
__global__ void topk_kernel(const T* dots, const T* qnorm, const T* dnorm, std::int64_t n, int k,
                            std::int32_t* idx_out, double* dist_out) {
  const std::int64_t qi = blockIdx.x;
  const T* row = dots + qi * n;
  const T qn = qnorm[qi];
  T best[K];
  int best_i[K];
#pragma unroll
  for (int t = 0; t < K; ++t) {
    best[t] = INFINITY;
    best_i[t] = kNone;
  }
  // Every thread keeps the sorted top-K of a strided slice of the row in registers.
  for (std::int64_t j = threadIdx.x; j < n; j += blockDim.x) {
    T v = distance(qn, dnorm[j], row[j]);
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
    int vi = kNone;
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
      idx_out[qi * k + r] = bi == kNone ? 0 : bi;
      if (dist_out) dist_out[qi * k + r] = double(bv);
      winner = bt;
    }
    __syncthreads();
    if (int(threadIdx.x) == winner) ++head;
    __syncthreads();
  }
}

unsigned warp_blocks(std::int64_t rows) { return unsigned((rows * kWarp + kThreads - 1) / kThreads); }

template <class T, int K>
void topk_with(const T* dots, const T* qn, const T* dn, std::int64_t b, std::int64_t n, int k, std::int32_t* idx,
               double* dist, Stream stream) {
  topk_kernel<T, K><<<unsigned(b), kThreads, 0, stream>>>(dots, qn, dn, n, k, idx, dist);
}

}  // namespace

template <class T>
void launch_squared_norms(const T* x, std::int64_t ld, std::int64_t rows, std::int64_t d, T* out, Stream stream) {
  if (rows == 0) return;
  norms_kernel<T><<<warp_blocks(rows), kThreads, 0, stream>>>(x, ld, out, rows, d);
  TCEMU_LAUNCHED("nearest norms");
}

template <class T>
void launch_argmin(const T* dots, const T* qnorm, const T* dnorm, std::int64_t b, std::int64_t n,
                   const T* queries, std::int64_t qld, const double* exact_db, std::int64_t d, double margin,
                   unsigned long long* rechecked, std::int32_t* index, double* distance, Stream stream) {
  argmin_kernel<T><<<warp_blocks(b), kThreads, 0, stream>>>(dots, qnorm, dnorm, b, n, queries, qld, exact_db, d,
                                                              margin, rechecked, index, distance);
  TCEMU_LAUNCHED("nearest argmin");
}

template <class T>
void launch_topk(const T* dots, const T* qnorm, const T* dnorm, std::int64_t b, std::int64_t n, int k,
                 std::int32_t* index, double* distance, Stream stream) {
  if (k <= 16) topk_with<T, 16>(dots, qnorm, dnorm, b, n, k, index, distance, stream);
  else if (k <= 32) topk_with<T, 32>(dots, qnorm, dnorm, b, n, k, index, distance, stream);
  else if (k <= 64) topk_with<T, 64>(dots, qnorm, dnorm, b, n, k, index, distance, stream);
  else topk_with<T, kNearestMaxK>(dots, qnorm, dnorm, b, n, k, index, distance, stream);
  TCEMU_LAUNCHED("nearest top-k");
}

#define TCEMU_NEAREST_KERNELS(T)                                                                              \
  template void launch_squared_norms<T>(const T*, std::int64_t, std::int64_t, std::int64_t, T*, Stream);      \
  template void launch_argmin<T>(const T*, const T*, const T*, std::int64_t, std::int64_t, const T*,          \
                                 std::int64_t, const double*, std::int64_t, double, unsigned long long*,      \
                                 std::int32_t*, double*, Stream);                                             \
  template void launch_topk<T>(const T*, const T*, const T*, std::int64_t, std::int64_t, int, std::int32_t*,  \
                               double*, Stream);
TCEMU_NEAREST_KERNELS(float)
TCEMU_NEAREST_KERNELS(double)
#undef TCEMU_NEAREST_KERNELS

}  // namespace tcemu::cuda::detail
