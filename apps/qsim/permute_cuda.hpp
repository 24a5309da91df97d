#pragma once
/// \file permute_cuda.hpp
/// qsim's hand-written tiled permutation kernel (permute_cuda.cu): the GPU's default for permutations
/// that move the lowest 5 positions, kept because it is measured faster than the Kokkos team kernel
/// (simulate_engine.hpp, permute_tiled; 497 against 798 ms of permutations per 30-qubit fp32 run on
/// an H100, docs/qsim.md). TCEMU_QSIM_PERMUTE=kokkos selects the Kokkos one. Builds with
/// TCEMU_ENABLE_CUDA only.
#include <cstdint>

struct CUstream_st;

namespace qsim::cuda_kernels {

/// dst = src permuted by `plan` (device pointer to PermutationPlan::kWords words, qubit_layout.hpp)
/// tile by tile through shared memory; src and dst: device pointers to 2^n complex elements of
/// `element_bytes` (8: complex64, 16: complex128) bytes, distinct; tiles = 2^(n - tile_bits).
/// Queued on `stream`; throws tcemu::DeviceError when the launch fails.
void permute_tiled(const void* src, void* dst, int element_bytes, const std::uint32_t* plan, int tile_bits,
                   std::uint64_t tiles, CUstream_st* stream);

}  // namespace qsim::cuda_kernels
