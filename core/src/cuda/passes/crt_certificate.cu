// int8-crt: crt::certify on the GPU. Every entry's sums |x||y|, [x != 0]|y| and |x|[y != 0] in
// host/crt.cpp's order (l ascending, each product and sum rounded separately: __dmul_rn /
// __dadd_rn keep the compiler from fusing them), then the bound of every N in [2, 20]. O(m n k) in
// FP64 on the CUDA cores: it costs about three FP64 GEMMs (docs/perf-notes.md).
#include <cfloat>

#include "cuda/passes/crt_passes.hpp"
#include "cuda/passes/tile_pass.cuh"
#include "tcemu/crt_arith.hpp"
#include "tcemu/schemes/crt.hpp"

namespace tcemu::cuda::detail {
namespace {

constexpr int kTile = 16;  // 16 x 16 entries per block, k in steps of 16

struct CertConstants : CrtBoundConstants {
  double tol, grow, shrink;
};

template <class T>
__global__ void __launch_bounds__(kTile * kTile)
    certificate_kernel(const T* __restrict__ x, std::int64_t m, std::int64_t xl, std::int64_t xk,
                       const T* __restrict__ y, std::int64_t n, std::int64_t yl, std::int64_t yk, std::int64_t k,
                       CrtLines lx, CrtLines ly, CertConstants K, int* fail, unsigned long long* max_ratio_bits) {
  __shared__ double xs[kTile][kTile + 1], ys[kTile][kTile + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;  // tx: column j within the tile, ty: row i
  const std::int64_t i = blockIdx.y * std::int64_t{kTile} + ty, j = blockIdx.x * std::int64_t{kTile} + tx;
  double s = 0, z = 0, w = 0;
  bool any = false;
  for (std::int64_t k0 = 0; k0 < k; k0 += kTile) {
    // xs[r][c] = x(line blockIdx.y*16 + r, k0 + c); ys likewise for y's lines.
    {
      const std::int64_t li = blockIdx.y * std::int64_t{kTile} + ty, kk = k0 + tx;
      xs[ty][tx] = li < m && kk < k ? static_cast<double>(x[li * xl + kk * xk]) : 0.0;
      const std::int64_t lj = blockIdx.x * std::int64_t{kTile} + ty;
      ys[ty][tx] = lj < n && kk < k ? static_cast<double>(y[lj * yl + kk * yk]) : 0.0;
    }
    __syncthreads();
    const int len = k - k0 < kTile ? static_cast<int>(k - k0) : kTile;
    for (int l = 0; l < len; ++l) {
      const double fa = fabs(xs[ty][l]), fb = fabs(ys[tx][l]);
      s = __dadd_rn(s, __dmul_rn(fa, fb));
      if (fa != 0) z = __dadd_rn(z, fb);
      if (fb != 0) w = __dadd_rn(w, fa);
      any = any || (fa != 0 && fb != 0);
    }
    __syncthreads();
  }
  if (i >= m || j >= n || !any) return;
  const double LB = __dmul_rn(s, K.shrink), Z = __dmul_rn(z, K.grow), W = __dmul_rn(w, K.grow);
  const double lim = __dmul_rn(K.tol, LB);
  for (int N = crt::kMinModuli; N <= crt::kMaxModuli; ++N) {
    const int ea = lx.active[i] ? crt::arith::scale_exponent(K.Lb_x[N], lx.c[i], lx.base[i]) : 0;
    const int eb = ly.active[j] ? crt::arith::scale_exponent(K.Lb_y[N], ly.c[j], ly.base[j]) : 0;
    const double bound = crt::arith::entry_bound(Z, W, ea, eb, K.fixed[N]);
    if (!(bound <= lim)) fail[N] = 1;
    const double ratio = bound / lim;
    atomicMax(max_ratio_bits + N, dbits(ratio > 0 ? ratio : 0.0));
  }
}

}  // namespace

template <class T>
void crt_certificate(const T* x, std::int64_t m, std::int64_t xs_line, std::int64_t xs_k, const T* y,
                     std::int64_t n, std::int64_t ys_line, std::int64_t ys_k, std::int64_t k, const CrtLines& lx,
                     const CrtLines& ly, const CrtSplit& split, double tol, int* fail,
                     unsigned long long* max_ratio_bits, cudaStream_t stream) {
  if (m <= 0 || n <= 0 || k <= 0) return;
  CertConstants K{};
  static_cast<CrtBoundConstants&>(K) = crt_bound_constants(k, split);
  // host/crt.cpp's rounding factors, computed the same way.
  K.grow = 1 + (k + 2) * 0x1p-52;
  K.shrink = 1 - (k + 2) * 0x1p-52;
  K.tol = tol;
  const dim3 block(kTile, kTile), grid(static_cast<unsigned>((n + kTile - 1) / kTile),
                                       static_cast<unsigned>((m + kTile - 1) / kTile));
  if (grid.y > 65535u) throw InvalidArgument(std::string("tcemu cuda ") + schemes::Int8Crt::desc.name + ": certificate for m = " + std::to_string(m) + " > 2^20");
  certificate_kernel<T><<<grid, block, 0, stream>>>(x, m, xs_line, xs_k, y, n, ys_line, ys_k, k, lx, ly, K, fail,
                                                    max_ratio_bits);
  TCEMU_LAUNCHED("crt certificate_kernel");
}

#define TCEMU_CRT_CERT(T)                                                                                 \
  template void crt_certificate<T>(const T*, std::int64_t, std::int64_t, std::int64_t, const T*,         \
                                   std::int64_t, std::int64_t, std::int64_t, std::int64_t, const CrtLines&, \
                                   const CrtLines&, const CrtSplit&, double, int*, unsigned long long*,   \
                                   cudaStream_t);
TCEMU_CRT_CERT(float)
TCEMU_CRT_CERT(double)
#undef TCEMU_CRT_CERT

}  // namespace tcemu::cuda::detail
