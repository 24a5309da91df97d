#pragma once
// Fused split-part GEMM (docs/architecture.md, "CUDA backend"): every product of a split scheme in one Tensor
// Core kernel over the split panels, with the combine in its epilogue.
//
// Why: the multi-pass path runs one cuBLAS GEMM per product group into FP32 accumulators in device
// memory and combines them in a separate pass. The fused kernel keeps one accumulator per group in
// registers, reads each part tile once per k-tile for all products that use it, and writes C once.
// It also fixes the accumulation: Hopper's Tensor Cores truncate when they add a product sum into
// the accumulator (docs/accuracy.md), so the most significant group (hi x hi) is computed into a
// zeroed register fragment and added to its FP32 accumulator with an ordinary round-to-nearest FADD
// ("promotion", as EGEMM-TC / LE-GEMM do in FP32 registers): after every MMA step of 32 bytes of k
// (mma.sync kernel) or every 128-byte k-tile (wgmma kernel).
// The lower groups are 2^-8 (BF16) to 2^-12 (FP16) smaller and accumulate inside the MMA.
//
// Kernels: wgmma_kernel.cuh on compute capability 9.0 (sm_90a): warp-specialised, a TMA producer
// warpgroup and two wgmma consumer warpgroups of 64 x 192 (two-part per-element tables) or 64 x 128,
// k-tiles in mbarrier-guarded stages, promotion per 128 bytes of k (docs/perf-notes.md sections 5, 12). fused_kernel.cuh elsewhere (sm_80
// and later) and on request (ExecutionPolicy::fused_mma = mma_sync): mma.sync, 128 x 128 block tiles, 16
// warps of 32 x 32, k-tiles of 64 bytes per row, a 3-stage cp.async pipeline into XOR-swizzled shared
// memory, ldmatrix fragments, promotion after every MMA step.
#include <cuda_runtime.h>

#include <cstdint>

#include "tcemu/execution.hpp"
#include "tcemu/scheme.hpp"

namespace tcemu {
struct BlockTile;  // tcemu/planning.hpp (kept out of the kernels' includes)
}  // namespace tcemu

namespace tcemu::cuda::detail::fused {

/// Split panels in the layout of kernels.hpp with the parts in their natural order (sequence
/// 0, 1, ..., parts-1 on both sides): line l, part q, element kk at base[l * parts * kp + q * kp + kk].
struct Panels {
  const void* x = nullptr;  ///< m lines (rows of the accumulator)
  const void* y = nullptr;  ///< n lines (columns of the accumulator)
  std::int64_t m = 0, n = 0;
  std::int64_t kp = 0;      ///< padded row length of one part (a multiple of 16 elements)
  FusedMma mma = FusedMma::automatic;  ///< ExecutionPolicy::fused_mma
};

/// Output: C(i, j) = c[i * c_rs + j * c_cs] = alpha * (2^low_scale_exp * low + hi) + beta * C(i, j),
/// in the precision of T (beta == 0: C is not read).
template <class T>
struct Epilogue {
  T* c = nullptr;
  std::int64_t c_rs = 0, c_cs = 0;
  T alpha{}, beta{};
};

/// True when `s` has a fused kernel (fp16x2 and its three seed variants, fp16x2-aligned, tf32x2,
/// bf16x3, bf16x9) and the current device can run it (compute capability 8.0 or newer).
bool supported(const Scheme& s);

/// Which fused kernel runs `s` on this device under `mma`: "fused (wgmma)" (sm_90a, unless `mma`
/// is mma_sync) or "fused (mma.sync)". Throws InvalidArgument when `s` has no fused kernel.
const char* kernel_name(const Scheme& s, FusedMma mma);

/// Block tile (accumulator rows x columns) of the kernel that kernel_name(s, mma) names, from that
/// kernel's own configuration: wgmma 128 x tile_shape(table).bn, mma.sync 128 x 128. The planning
/// step orients C with it (orientation_for_tiles). Throws InvalidArgument when `s` has no fused kernel.
::tcemu::BlockTile block_tile(const Scheme& s, FusedMma mma);

/// Runs the fused kernel of `s` on `panels` (split with the natural part order) into the epilogue.
/// Throws InvalidArgument when `s` has no fused kernel, DeviceError on a launch failure.
template <class T>
void run(const Scheme& s, const Panels& panels, const Epilogue<T>& out, cudaStream_t stream);

}  // namespace tcemu::cuda::detail::fused
