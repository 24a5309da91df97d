// Measurement helpers on the device (reference_cuda.hpp): random inputs, double-double sampled
// reference, gathers, conversions and error reductions.
#include <cmath>

#include "tcemu/cuda/check.hpp"
#include "tcemu/cuda/reference_cuda.hpp"

namespace tcemu::cuda {
namespace {

__device__ __forceinline__ std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
/// Uniform in (0, 1), never 0 or 1.
__device__ __forceinline__ double unit(std::uint64_t h) {
  return (static_cast<double>(h >> 11) + 0.5) * 0x1.0p-53;
}

template <class T>
__global__ void fill_random_kernel(MatrixView<T> X, int kind, double lo, double hi, double phi,
                                   std::uint64_t seed) {
  const std::int64_t total = X.rows * X.cols;
  for (std::int64_t e = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; e < total;
       e += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t i = e / X.cols, j = e - i * X.cols;
    const std::uint64_t h1 = splitmix64(seed ^ (static_cast<std::uint64_t>(e) * 0xd1b54a32d192ed03ull));
    const double u = unit(h1);
    double v;
    if (kind == 0) {
      v = lo + (hi - lo) * u;
    } else {
      const std::uint64_t h2 = splitmix64(h1 ^ 0x632be59bd9b4e019ull);
      const std::uint64_t h3 = splitmix64(h2);
      const double g = sqrt(-2.0 * log(unit(h2))) * cospi(2.0 * unit(h3));
      v = (u - 0.5) * exp(phi * g);
    }
    T t = static_cast<T>(v);
    if (t == T(0)) t = static_cast<T>(u < 0.5 ? -0x1.0p-60 : 0x1.0p-60);  // never zero
    X(i, j) = t;
  }
}

__device__ __forceinline__ void two_sum(double a, double b, double& s, double& e) {
  s = a + b;
  const double bb = s - a;
  e = (a - (s - bb)) + (b - bb);
}
__device__ __forceinline__ void dd_add(double& hi, double& lo, double bh, double bl) {
  double s, e;
  two_sum(hi, bh, s, e);
  e += lo + bl;
  hi = s + e;
  lo = e - (hi - s);
}

template <class T>
__global__ void dd_sampled_kernel(MatrixView<const T> a, MatrixView<const T> b,
                                  const std::int64_t* rows, const std::int64_t* cols, std::int64_t count,
                                  double* out) {
  const std::int64_t e = (blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  if (e >= count) return;
  const std::int64_t i = rows[e], j = cols[e];
  double hi = 0, lo = 0;
  for (std::int64_t l = lane; l < a.cols; l += 32) {
    const double x = static_cast<double>(a(i, l)), y = static_cast<double>(b(l, j));
    const double p = x * y;
    const double pe = fma(x, y, -p);
    dd_add(hi, lo, p, pe);
  }
  for (int o = 16; o > 0; o >>= 1) {
    const double oh = __shfl_xor_sync(0xffffffffu, hi, o), ol = __shfl_xor_sync(0xffffffffu, lo, o);
    dd_add(hi, lo, oh, ol);
  }
  if (lane == 0) out[e] = hi + lo;
}

template <class T>
__global__ void gather_kernel(MatrixView<const T> c, const std::int64_t* rows, const std::int64_t* cols,
                              std::int64_t count, double* out) {
  const std::int64_t e = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x;
  if (e < count) out[e] = static_cast<double>(c(rows[e], cols[e]));
}

template <class T>
__global__ void to_double_kernel(MatrixView<const T> x, double* out, std::int64_t ld) {
  const std::int64_t total = x.rows * x.cols;
  for (std::int64_t e = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; e < total;
       e += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t j = e / x.rows, i = e - j * x.rows;
    out[j * ld + i] = static_cast<double>(x(i, j));
  }
}

template <class T>
__global__ void frob_kernel(MatrixView<const T> c, const double* r, std::int64_t ldr, double* sums) {
  const std::int64_t total = c.rows * c.cols;
  double d2 = 0, r2 = 0;
  for (std::int64_t e = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; e < total;
       e += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t j = e / c.rows, i = e - j * c.rows;
    const double ref = r[j * ldr + i];
    const double d = static_cast<double>(c(i, j)) - ref;
    d2 += d * d;
    r2 += ref * ref;
  }
  for (int o = 16; o > 0; o >>= 1) {
    d2 += __shfl_xor_sync(0xffffffffu, d2, o);
    r2 += __shfl_xor_sync(0xffffffffu, r2, o);
  }
  if (threadIdx.x % 32 == 0) {
    atomicAdd(sums, d2);
    atomicAdd(sums + 1, r2);
  }
}

template <class T>
__global__ void fill_value_kernel(MatrixView<T> x, T v) {
  const std::int64_t total = x.rows * x.cols;
  for (std::int64_t e = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; e < total;
       e += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t j = e / x.rows, i = e - j * x.rows;
    x(i, j) = v;
  }
}

template <class T>
__global__ void count_nonfinite_kernel(MatrixView<const T> x, unsigned long long* count) {
  const std::int64_t total = x.rows * x.cols;
  unsigned long long c = 0;
  for (std::int64_t e = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; e < total;
       e += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t j = e / x.rows, i = e - j * x.rows;
    if (!isfinite(static_cast<double>(x(i, j)))) ++c;
  }
  if (c) atomicAdd(count, c);
}

unsigned grid_1d(std::int64_t total) {
  const std::int64_t g = (total + 255) / 256;
  return static_cast<unsigned>(g < 1 ? 1 : (g > 8192 ? 8192 : g));
}

/// Small RAII device buffer for these helpers (they are not on the timed path).
struct DevBuf {
  void* p = nullptr;
  explicit DevBuf(std::size_t n) { TCEMU_CUDA(cudaMalloc(&p, n < 1 ? 1 : n)); }
  ~DevBuf() { cudaFree(p); }
  DevBuf(const DevBuf&) = delete;
  DevBuf& operator=(const DevBuf&) = delete;
  template <class U>
  U* as() const {
    return static_cast<U*>(p);
  }
};

}  // namespace

template <class T>
void fill_random_device(MatrixView<T> X, const Distribution& dist, std::uint64_t seed, Stream stream) {
  if (X.rows * X.cols == 0) return;
  fill_random_kernel<T><<<grid_1d(X.rows * X.cols), 256, 0, stream>>>(
      X, dist.kind == Distribution::Kind::uniform ? 0 : 1, dist.lo, dist.hi, dist.phi, seed);
  TCEMU_LAUNCHED("fill_random_kernel");
}

template <class T>
std::vector<double> reference_dd_sampled(Op opA, Op opB, MatrixView<const T> A, MatrixView<const T> B,
                                         const std::vector<std::int64_t>& rows,
                                         const std::vector<std::int64_t>& cols, Stream stream) {
  const auto a = A.apply(opA);
  const auto b = B.apply(opB);
  const std::int64_t count = static_cast<std::int64_t>(rows.size());
  if (cols.size() != rows.size()) throw InvalidArgument("reference_dd_sampled: rows/cols sizes differ");
  std::vector<double> out(rows.size());
  if (count == 0) return out;
  DevBuf dr(8 * count), dc(8 * count), dout(8 * count);
  TCEMU_CUDA(cudaMemcpyAsync(dr.p, rows.data(), 8 * count, cudaMemcpyHostToDevice, stream));
  TCEMU_CUDA(cudaMemcpyAsync(dc.p, cols.data(), 8 * count, cudaMemcpyHostToDevice, stream));
  const std::int64_t threads = 32 * count;
  dd_sampled_kernel<T><<<static_cast<unsigned>((threads + 255) / 256), 256, 0, stream>>>(
      a, b, dr.as<std::int64_t>(), dc.as<std::int64_t>(), count, dout.as<double>());
  TCEMU_LAUNCHED("dd_sampled_kernel");
  TCEMU_CUDA(cudaMemcpyAsync(out.data(), dout.p, 8 * count, cudaMemcpyDeviceToHost, stream));
  TCEMU_CUDA(cudaStreamSynchronize(stream));
  return out;
}

template <class T>
std::vector<double> gather_device(MatrixView<const T> C, const std::vector<std::int64_t>& rows,
                                  const std::vector<std::int64_t>& cols, Stream stream) {
  const std::int64_t count = static_cast<std::int64_t>(rows.size());
  std::vector<double> out(rows.size());
  if (count == 0) return out;
  DevBuf dr(8 * count), dc(8 * count), dout(8 * count);
  TCEMU_CUDA(cudaMemcpyAsync(dr.p, rows.data(), 8 * count, cudaMemcpyHostToDevice, stream));
  TCEMU_CUDA(cudaMemcpyAsync(dc.p, cols.data(), 8 * count, cudaMemcpyHostToDevice, stream));
  gather_kernel<T><<<static_cast<unsigned>((count + 255) / 256), 256, 0, stream>>>(
      C, dr.as<std::int64_t>(), dc.as<std::int64_t>(), count, dout.as<double>());
  TCEMU_LAUNCHED("gather_kernel");
  TCEMU_CUDA(cudaMemcpyAsync(out.data(), dout.p, 8 * count, cudaMemcpyDeviceToHost, stream));
  TCEMU_CUDA(cudaStreamSynchronize(stream));
  return out;
}

template <class T>
void to_double_device(MatrixView<const T> X, double* out, std::int64_t ld, Stream stream) {
  if (X.rows * X.cols == 0) return;
  to_double_kernel<T><<<grid_1d(X.rows * X.cols), 256, 0, stream>>>(X, out, ld);
  TCEMU_LAUNCHED("to_double_kernel");
}

template <class T>
double rel_frobenius_device(MatrixView<const T> C, const double* R, std::int64_t ldr, Stream stream) {
  DevBuf sums(16);
  TCEMU_CUDA(cudaMemsetAsync(sums.p, 0, 16, stream));
  frob_kernel<T><<<grid_1d(C.rows * C.cols), 256, 0, stream>>>(C, R, ldr, sums.as<double>());
  TCEMU_LAUNCHED("frob_kernel");
  double h[2] = {0, 0};
  TCEMU_CUDA(cudaMemcpyAsync(h, sums.p, 16, cudaMemcpyDeviceToHost, stream));
  TCEMU_CUDA(cudaStreamSynchronize(stream));
  return std::sqrt(h[0]) / std::sqrt(h[1]);
}

template <class T>
void fill_value_device(MatrixView<T> X, T value, Stream stream) {
  if (X.rows * X.cols == 0) return;
  fill_value_kernel<T><<<grid_1d(X.rows * X.cols), 256, 0, stream>>>(X, value);
  TCEMU_LAUNCHED("fill_value_kernel");
}

template <class T>
std::int64_t count_nonfinite_device(MatrixView<const T> X, Stream stream) {
  DevBuf cnt(8);
  TCEMU_CUDA(cudaMemsetAsync(cnt.p, 0, 8, stream));
  if (X.rows * X.cols > 0) {
    count_nonfinite_kernel<T><<<grid_1d(X.rows * X.cols), 256, 0, stream>>>(X, cnt.as<unsigned long long>());
    TCEMU_LAUNCHED("count_nonfinite_kernel");
  }
  unsigned long long h = 0;
  TCEMU_CUDA(cudaMemcpyAsync(&h, cnt.p, 8, cudaMemcpyDeviceToHost, stream));
  TCEMU_CUDA(cudaStreamSynchronize(stream));
  return static_cast<std::int64_t>(h);
}

#define TCEMU_REF(T)                                                                                \
  template void fill_random_device<T>(MatrixView<T>, const Distribution&, std::uint64_t, Stream);  \
  template std::vector<double> reference_dd_sampled<T>(Op, Op, MatrixView<const T>,                \
                                                       MatrixView<const T>,                        \
                                                       const std::vector<std::int64_t>&,           \
                                                       const std::vector<std::int64_t>&, Stream);  \
  template std::vector<double> gather_device<T>(MatrixView<const T>, const std::vector<std::int64_t>&, \
                                                const std::vector<std::int64_t>&, Stream);         \
  template void to_double_device<T>(MatrixView<const T>, double*, std::int64_t, Stream);           \
  template double rel_frobenius_device<T>(MatrixView<const T>, const double*, std::int64_t, Stream); \
  template void fill_value_device<T>(MatrixView<T>, T, Stream);                                    \
  template std::int64_t count_nonfinite_device<T>(MatrixView<const T>, Stream);
TCEMU_REF(float)
TCEMU_REF(double)
#undef TCEMU_REF

}  // namespace tcemu::cuda
