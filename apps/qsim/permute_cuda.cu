// The hand-written tiled permutation kernel (permute_cuda.hpp): the kernel qsim's CUDA path used
// before the simulation step moved to Kokkos (simulate_engine.hpp), reading the flat PermutationPlan;
// still the GPU's default, measured faster than the Kokkos team kernel.
#include <cuda_runtime.h>

#include <algorithm>
#include <string>

#include "permute_cuda.hpp"
#include "qubit_layout.hpp"
#include "tcemu/error.hpp"

namespace qsim::cuda_kernels {

namespace {

template <class C>
__global__ void __launch_bounds__(256) tiled_permute_kernel(const C* __restrict__ src, C* __restrict__ dst,
                                                            const std::uint32_t* __restrict__ plan, int m,
                                                            std::uint64_t tiles) {
  __shared__ std::uint32_t t[4 * 256], base[4 * 256], dst_off[1024], src_off[1024];
  __shared__ std::uint16_t w2r[1024];
  __shared__ C tile[1024];
  const int count = 1 << m;
  for (int i = threadIdx.x; i < 4 * 256; i += blockDim.x) {
    t[i] = plan[PermutationPlan::kTables + i];
    base[i] = plan[PermutationPlan::kBase + i];
  }
  for (int i = threadIdx.x; i < count; i += blockDim.x) {
    dst_off[i] = plan[PermutationPlan::kDstOffset + i];
    src_off[i] = plan[PermutationPlan::kSrcOffset + i];
    w2r[i] = static_cast<std::uint16_t>(plan[PermutationPlan::kDstToSrc + i]);
  }
  __syncthreads();
  for (std::uint64_t b = blockIdx.x; b < tiles; b += gridDim.x) {
    const std::uint32_t db = base[b & 255] | base[256 + ((b >> 8) & 255)] | base[512 + ((b >> 16) & 255)] |
                             base[768 + ((b >> 24) & 255)];
    const std::uint32_t sb = t[db & 255] | t[256 + ((db >> 8) & 255)] | t[512 + ((db >> 16) & 255)] | t[768 + ((db >> 24) & 255)];
    for (int r = threadIdx.x; r < count; r += blockDim.x) tile[r] = src[std::uint64_t(sb | src_off[r])];
    __syncthreads();
    for (int w = threadIdx.x; w < count; w += blockDim.x) dst[std::uint64_t(db | dst_off[w])] = tile[w2r[w]];
    __syncthreads();
  }
}

}  // namespace

void permute_tiled(const void* src, void* dst, int element_bytes, const std::uint32_t* plan, int tile_bits,
                   std::uint64_t tiles, CUstream_st* stream) {
  const unsigned grid = static_cast<unsigned>(std::min<std::uint64_t>(tiles, 132u * 8));
  if (element_bytes == 8)
    tiled_permute_kernel<float2><<<grid, 256, 0, stream>>>(static_cast<const float2*>(src), static_cast<float2*>(dst),
                                                           plan, tile_bits, tiles);
  else
    tiled_permute_kernel<double2><<<grid, 256, 0, stream>>>(static_cast<const double2*>(src), static_cast<double2*>(dst),
                                                            plan, tile_bits, tiles);
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) throw tcemu::DeviceError(std::string("qsim: tiled_permute_kernel launch failed: ") + cudaGetErrorString(e));
}

}  // namespace qsim::cuda_kernels
