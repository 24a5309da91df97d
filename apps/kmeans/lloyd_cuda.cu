// Lloyd's k-means resident on the GPU (see lloyd_device.hpp). Kernels:
//   norms      x -> ||x||^2 (FP64 sum, rounded to T), one warp per point
//   centroids  FP64 centroids -> working precision T and ||c||^2
//   argmin     one warp per point over the k distances ||x||^2 + ||c||^2 - 2 x.c (ties: lower index)
//   dist_own   FP64 ||x - c_a||^2 per point and the block-reduced inertia (one atomic per block)
//   update     points sorted by cluster (CUB radix sort); each block sums a contiguous chunk of the
//              sorted points per dimension in FP64 registers and flushes one atomicAdd per cluster
//              boundary, so the update reads X once and issues O((n / chunk + k) d) atomics.
#include <cub/cub.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "lloyd_device.hpp"
#include "app_common/timing.hpp"
#include "tcemu/cuda/check.hpp"
#include "tcemu/cuda/gemm_cuda.hpp"
#include "tcemu/error.hpp"

namespace kmeans {
namespace {

constexpr int kWarp = 32;
constexpr int kBlock = 256;
constexpr std::int64_t kChunk = 1024;  // sorted points per update block

template <class T>
__global__ void norms_kernel(const T* x, T* xnorm, std::int64_t n, std::int64_t d) {
  const std::int64_t p = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / kWarp;
  const int lane = threadIdx.x % kWarp;
  if (p >= n) return;
  double s = 0;
  for (std::int64_t j = lane; j < d; j += kWarp) {
    const double v = x[p * d + j];
    s += v * v;
  }
  for (int o = kWarp / 2; o > 0; o /= 2) s += __shfl_down_sync(0xffffffffu, s, o);
  if (lane == 0) xnorm[p] = static_cast<T>(s);
}

template <class T>
__global__ void centroids_kernel(const double* c64, T* c, T* cnorm, std::int64_t d) {
  __shared__ double part[kBlock];
  const std::int64_t j = blockIdx.x;
  double s = 0;
  for (std::int64_t l = threadIdx.x; l < d; l += blockDim.x) {
    const T v = static_cast<T>(c64[j * d + l]);
    c[j * d + l] = v;
    s += double(v) * double(v);
  }
  part[threadIdx.x] = s;
  __syncthreads();
  for (int o = blockDim.x / 2; o > 0; o /= 2) {
    if (int(threadIdx.x) < o) part[threadIdx.x] += part[threadIdx.x + o];
    __syncthreads();
  }
  if (threadIdx.x == 0) cnorm[j] = static_cast<T>(part[0]);
}

template <class T>
__global__ void argmin_kernel(const T* dots, const T* xnorm, const T* cnorm, std::int32_t* assign,
                              int* changed, std::int64_t n, std::int64_t k, const T* x, const double* c64,
                              std::int64_t d, double margin, unsigned long long* rechecked) {
  const std::int64_t p = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / kWarp;
  const int lane = threadIdx.x % kWarp;
  if (p >= n) return;
  T best = INFINITY;
  int best_j = 0x7fffffff;
  for (std::int64_t j = lane; j < k; j += kWarp) {
    const T dist = xnorm[p] + cnorm[j] - T(2) * dots[p * k + j];
    if (dist < best) {  // per lane j increases, so strict < keeps the lowest index
      best = dist;
      best_j = int(j);
    }
  }
  for (int o = kWarp / 2; o > 0; o /= 2) {
    const T ob = __shfl_down_sync(0xffffffffu, best, o);
    const int oj = __shfl_down_sync(0xffffffffu, best_j, o);
    if (ob < best || (ob == best && oj < best_j)) {
      best = ob;
      best_j = oj;
    }
  }
  best = __shfl_sync(0xffffffffu, best, 0);
  best_j = __shfl_sync(0xffffffffu, best_j, 0);
  if (best_j == 0x7fffffff) best_j = 0;  // all distances NaN: keep cluster 0 (input is finite)
  if (margin > 0) {
    // Near-ties (as lloyd() on the host): every centroid within the margin is compared again with an
    // exact FP64 distance, the warp computing one distance at a time (warp-uniform control flow).
    const double limit = double(best) + margin * (double(xnorm[p]) + double(cnorm[best_j]));
    int within = 0;
    for (std::int64_t j = lane; j < k; j += kWarp)
      within += double(xnorm[p] + cnorm[j] - T(2) * dots[p * k + j]) <= limit;
    for (int o = kWarp / 2; o > 0; o /= 2) within += __shfl_down_sync(0xffffffffu, within, o);
    within = __shfl_sync(0xffffffffu, within, 0);
    if (within > 1) {
      double best_exact = INFINITY;
      int exact_j = best_j;
      for (std::int64_t j0 = 0; j0 < k; j0 += kWarp) {
        const std::int64_t j = j0 + lane;
        const bool cand = j < k && double(xnorm[p] + cnorm[j] - T(2) * dots[p * k + j]) <= limit;
        unsigned mask = __ballot_sync(0xffffffffu, cand);
        while (mask) {
          const int bit = __ffs(mask) - 1;
          mask &= mask - 1;
          const std::int64_t jj = j0 + bit;
          double e = 0;
          for (std::int64_t l = lane; l < d; l += kWarp) {
            const double t = double(x[p * d + l]) - c64[jj * d + l];
            e += t * t;
          }
          for (int o = kWarp / 2; o > 0; o /= 2) e += __shfl_down_sync(0xffffffffu, e, o);
          e = __shfl_sync(0xffffffffu, e, 0);
          if (e < best_exact) {  // candidates arrive in increasing j: ties keep the lower index
            best_exact = e;
            exact_j = int(jj);
          }
        }
      }
      best_j = exact_j;
      if (lane == 0) atomicAdd(rechecked, 1ull);
    }
  }
  if (lane == 0) {
    if (assign[p] != best_j) *changed = 1;
    assign[p] = best_j;
  }
}

template <class T>
__global__ void dist_own_kernel(const T* x, const double* c64, const std::int32_t* assign,
                                double* dist_own, double* inertia, std::int64_t n, std::int64_t d) {
  __shared__ double part[kBlock / kWarp];
  const std::int64_t p = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / kWarp;
  const int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp;
  double s = 0;
  if (p < n) {
    const double* c = c64 + std::int64_t(assign[p]) * d;
    for (std::int64_t j = lane; j < d; j += kWarp) {
      const double t = double(x[p * d + j]) - c[j];
      s += t * t;
    }
    for (int o = kWarp / 2; o > 0; o /= 2) s += __shfl_down_sync(0xffffffffu, s, o);
    if (lane == 0) dist_own[p] = s;
  }
  if (lane == 0) part[warp] = p < n ? s : 0.0;
  __syncthreads();
  if (threadIdx.x == 0) {
    double b = 0;
    for (int w = 0; w < kBlock / kWarp; ++w) b += part[w];
    atomicAdd(inertia, b);
  }
}

template <class T>
__global__ void update_kernel(const T* x, const std::int32_t* keys, const std::int32_t* idx,
                              double* sums, unsigned long long* counts, std::int64_t n, std::int64_t d) {
  const std::int64_t p0 = std::int64_t(blockIdx.x) * kChunk;
  const std::int64_t p1 = p0 + kChunk < n ? p0 + kChunk : n;
  for (std::int64_t j = threadIdx.x; j < d; j += blockDim.x) {
    std::int32_t cur = keys[p0];
    double acc = 0;
    for (std::int64_t p = p0; p < p1; ++p) {
      const std::int32_t key = keys[p];
      if (key != cur) {
        atomicAdd(&sums[std::int64_t(cur) * d + j], acc);
        acc = 0;
        cur = key;
      }
      acc += double(x[std::int64_t(idx[p]) * d + j]);
    }
    atomicAdd(&sums[std::int64_t(cur) * d + j], acc);
  }
  if (threadIdx.x == 0) {
    std::int32_t cur = keys[p0];
    unsigned long long len = 0;
    for (std::int64_t p = p0; p < p1; ++p) {
      if (keys[p] != cur) {
        atomicAdd(&counts[cur], len);
        len = 0;
        cur = keys[p];
      }
      ++len;
    }
    atomicAdd(&counts[cur], len);
  }
}

__global__ void means_kernel(const double* sums, const unsigned long long* counts, double* c64,
                             std::int64_t k, std::int64_t d) {
  const std::int64_t e = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e >= k * d) return;
  const unsigned long long c = counts[e / d];
  if (c > 0) c64[e] = sums[e] / double(c);
}

__global__ void iota_kernel(std::int32_t* v, std::int64_t n) {
  const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) v[i] = std::int32_t(i);
}

unsigned blocks_for(std::int64_t threads) { return unsigned((threads + kBlock - 1) / kBlock); }

}  // namespace

template <class T>
LloydResult lloyd_device(const Dataset& data, const std::vector<double>& init, const tcemu::GemmOptions& gemm,
                         const LloydOptions& opt, const Progress& progress) {
  using namespace tcemu;
  if (!tcemu::cuda::device_available()) throw DeviceError("--device cuda: no CUDA device is available");
  const std::int64_t n = data.n, d = data.d, k = opt.k;
  if (k > 0x7fffffff || n > 0x7fffffff) throw InvalidArgument("kmeans --device cuda: n and k must fit in int32");
  LloydResult r;
  r.centroids = init;
  r.assignment.assign(n, 0);
  using tcemu::app::Clock;
  using tcemu::app::seconds_since;

  tcemu::cuda::DeviceBuffer<T> x(n * d), xnorm(n), c(k * d), cnorm(k), dots(n * k);
  tcemu::cuda::DeviceBuffer<double> c64(k * d), sums(k * d), dist_own(n), inertia(1);
  tcemu::cuda::DeviceBuffer<unsigned long long> counts(k);
  tcemu::cuda::DeviceBuffer<std::int32_t> assign(n), keys(n), iota(n), order(n);
  tcemu::cuda::DeviceBuffer<int> changed(1);
  tcemu::cuda::DeviceBuffer<unsigned long long> rechecked(1);
  TCEMU_CUDA(cudaMemset(rechecked.get(), 0, sizeof(unsigned long long)));
  {
    std::vector<T> xt(data.data.begin(), data.data.end());
    TCEMU_CUDA(cudaMemcpy(x.get(), xt.data(), n * d * sizeof(T), cudaMemcpyHostToDevice));
  }
  TCEMU_CUDA(cudaMemcpy(c64.get(), init.data(), k * d * sizeof(double), cudaMemcpyHostToDevice));
  TCEMU_CUDA(cudaMemset(assign.get(), 0, n * sizeof(std::int32_t)));
  norms_kernel<T><<<blocks_for(n * kWarp), kBlock>>>(x.get(), xnorm.get(), n, d);
  TCEMU_LAUNCHED("norms");
  iota_kernel<<<blocks_for(n), kBlock>>>(iota.get(), n);
  TCEMU_LAUNCHED("iota");
  int key_bits = 1;
  while ((std::int64_t(1) << key_bits) < k) ++key_bits;
  std::size_t sort_bytes = 0;
  cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, assign.get(), keys.get(), iota.get(), order.get(), int(n), 0,
                                  key_bits);
  tcemu::cuda::DeviceBuffer<unsigned char> sort_tmp(sort_bytes);
  TCEMU_CUDA(cudaDeviceSynchronize());
  // Timed from here: uploading X and allocating are the same for every scheme and excluded.
  const auto t_start = Clock::now();

  std::vector<unsigned long long> host_counts(k);
  for (int iter = 1; iter <= opt.max_iter; ++iter) {
    centroids_kernel<T><<<unsigned(k), kBlock>>>(c64.get(), c.get(), cnorm.get(), d);
    TCEMU_LAUNCHED("centroids");
    const auto tg = Clock::now();
    const GemmReport rep = tcemu::cuda::gemm_device<T>(Op::N, Op::T, T(1), row_major<const T>(x.get(), n, d),
                                                row_major<const T>(c.get(), k, d), T(0),
                                                row_major(dots.get(), n, k), gemm, nullptr, nullptr);
    TCEMU_CUDA(cudaDeviceSynchronize());
    r.gemm_seconds += seconds_since(tg);
    r.gemm.add(rep);

    TCEMU_CUDA(cudaMemset(changed.get(), 0, sizeof(int)));
    argmin_kernel<T><<<blocks_for(n * kWarp), kBlock>>>(dots.get(), xnorm.get(), cnorm.get(), assign.get(),
                                                         changed.get(), n, k, x.get(), c64.get(), d,
                                                         opt.recheck_margin, rechecked.get());
    TCEMU_LAUNCHED("argmin");
    TCEMU_CUDA(cudaMemset(inertia.get(), 0, sizeof(double)));
    dist_own_kernel<T><<<blocks_for(n * kWarp), kBlock>>>(x.get(), c64.get(), assign.get(), dist_own.get(),
                                                           inertia.get(), n, d);
    TCEMU_LAUNCHED("dist_own");
    double h_inertia = 0;
    int h_changed = 0;
    TCEMU_CUDA(cudaMemcpy(&h_inertia, inertia.get(), sizeof(double), cudaMemcpyDeviceToHost));
    TCEMU_CUDA(cudaMemcpy(&h_changed, changed.get(), sizeof(int), cudaMemcpyDeviceToHost));
    h_changed |= iter == 1;

    const double prev = r.inertia.empty() ? INFINITY : r.inertia.back();
    r.inertia.push_back(h_inertia);
    r.iterations = iter;
    const double rel = std::isfinite(prev) ? std::fabs(prev - h_inertia) / std::max(h_inertia, 1e-300) : 1.0;
    if (progress) progress(iter, h_inertia, rel);
    if (!h_changed || rel <= opt.tol || iter == opt.max_iter) {
      r.converged = !h_changed || rel <= opt.tol;
      break;
    }
    // Update: sort points by cluster, segmented FP64 sums, means.
    TCEMU_CUDA(cub::DeviceRadixSort::SortPairs(sort_tmp.get(), sort_bytes, assign.get(), keys.get(), iota.get(),
                                             order.get(), int(n), 0, key_bits));
    TCEMU_CUDA(cudaMemset(sums.get(), 0, k * d * sizeof(double)));
    TCEMU_CUDA(cudaMemset(counts.get(), 0, k * sizeof(unsigned long long)));
    update_kernel<T><<<unsigned((n + kChunk - 1) / kChunk), kBlock>>>(x.get(), keys.get(), order.get(), sums.get(),
                                                                       counts.get(), n, d);
    TCEMU_LAUNCHED("update");
    means_kernel<<<blocks_for(k * d), kBlock>>>(sums.get(), counts.get(), c64.get(), k, d);
    TCEMU_LAUNCHED("means");
    TCEMU_CUDA(cudaMemcpy(host_counts.data(), counts.get(), k * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
    if (std::find(host_counts.begin(), host_counts.end(), 0ull) != host_counts.end()) {
      // Empty clusters take the points farthest from their centroids (as on the host).
      std::vector<double> dist(n);
      TCEMU_CUDA(cudaMemcpy(dist.data(), dist_own.get(), n * sizeof(double), cudaMemcpyDeviceToHost));
      std::vector<std::int64_t> far(n);
      std::iota(far.begin(), far.end(), 0);
      std::stable_sort(far.begin(), far.end(), [&](std::int64_t a, std::int64_t b) { return dist[a] > dist[b]; });
      for (std::int64_t j = 0; j < k; ++j) {
        if (host_counts[j] > 0) continue;
        const std::int64_t p = far[r.reseeded % n];
        std::vector<double> row(data.point(p), data.point(p) + d);
        TCEMU_CUDA(cudaMemcpy(c64.get() + j * d, row.data(), d * sizeof(double), cudaMemcpyHostToDevice));
        ++r.reseeded;
      }
    }
  }
  unsigned long long h_rechecked = 0;
  TCEMU_CUDA(cudaMemcpy(&h_rechecked, rechecked.get(), sizeof(h_rechecked), cudaMemcpyDeviceToHost));
  r.rechecked = static_cast<std::int64_t>(h_rechecked);
  // Centroids of the final assignment step, and the assignment.
  TCEMU_CUDA(cudaMemcpy(r.centroids.data(), c64.get(), k * d * sizeof(double), cudaMemcpyDeviceToHost));
  TCEMU_CUDA(cudaMemcpy(r.assignment.data(), assign.get(), n * sizeof(std::int32_t), cudaMemcpyDeviceToHost));
  r.seconds = seconds_since(t_start);
  return r;
}

template LloydResult lloyd_device<float>(const Dataset&, const std::vector<double>&, const tcemu::GemmOptions&,
                                         const LloydOptions&, const Progress&);
template LloydResult lloyd_device<double>(const Dataset&, const std::vector<double>&,
                                          const tcemu::GemmOptions&, const LloydOptions&, const Progress&);

}  // namespace kmeans
