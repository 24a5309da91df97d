#pragma once
// Element-wise split pass (split::split_element, shared with the host backend) fused with the range
// profile. Instantiated per input type in split_float.cu / split_double.cu.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "cuda/tile_pass.cuh"
#include "tcemu/split.hpp"

namespace tcemu::cuda::detail {

template <Store S>
struct StoreType;
template <>
struct StoreType<Store::none> { using type = unsigned char; };
template <>
struct StoreType<Store::f16> { using type = std::uint16_t; };
template <>
struct StoreType<Store::bf16> { using type = std::uint16_t; };
template <>
struct StoreType<Store::f32> { using type = float; };
template <>
struct StoreType<Store::f64> { using type = double; };

/// Encodes a part value (exactly representable in the storage format) as stored.
template <Store S>
__device__ __forceinline__ typename StoreType<S>::type encode(float v) {
  if constexpr (S == Store::f16) return bits::fp16_bits_rn(v);  // exact: v is an FP16 value
  else if constexpr (S == Store::bf16) return static_cast<std::uint16_t>(bits::f2u(v) >> 16);
  else if constexpr (S == Store::f32) return v;
  else return 0;
}

/// Part i of p without a run-time index into the array (which would put it in local memory).
__device__ __forceinline__ float pick(const split::Parts& p, int i) {
  return i == 0 ? p.p[0] : (i == 1 ? p.p[1] : p.p[2]);
}

/// Writes parts seq[0..nseq) of each element into the TN panel (see kernels.hpp).
template <Store S>
struct SplitWriter {
  using P = typename StoreType<S>::type;
  std::int64_t span;  // kp
  std::int64_t k;
  SplitSpec spec;
  P* out;

  __device__ std::int64_t source(std::int64_t ko) const { return ko < k ? ko : -1; }
  __device__ void operator()(std::int64_t line, std::int64_t ko, double x, bool valid) const {
    if constexpr (S == Store::none) {
      return;
    } else {
      P* dst = out + line * (spec.nseq * span) + ko;
      if constexpr (S == Store::f64) {
        for (int q = 0; q < spec.nseq; ++q) dst[q * span] = valid ? x : 0.0;
      } else {
        // FP32-target schemes see FP64 data rounded to FP32 first (as the host does).
        const split::Parts p = split::split_element(spec.kind, valid ? static_cast<float>(x) : 0.f);
        for (int q = 0; q < spec.nseq; ++q) dst[q * span] = encode<S>(pick(p, spec.seq[q]));
      }
    }
  }
};

template <class T>
void split_operand(const T* data, std::int64_t lines, std::int64_t k, std::int64_t line_stride,
                        std::int64_t k_stride, const SplitSpec& spec, void* out, std::int64_t kp,
                        const ProfileArgs& prof, cudaStream_t stream) {
  auto run = [&](auto writer) {
    launch_tile_pass(data, lines, line_stride, k_stride, writer, prof, stream);
  };
  switch (spec.store) {
    case Store::none: run(SplitWriter<Store::none>{kp, k, spec, nullptr}); break;
    case Store::f16:
      run(SplitWriter<Store::f16>{kp, k, spec, static_cast<std::uint16_t*>(out)});
      break;
    case Store::bf16:
      run(SplitWriter<Store::bf16>{kp, k, spec, static_cast<std::uint16_t*>(out)});
      break;
    case Store::f32: run(SplitWriter<Store::f32>{kp, k, spec, static_cast<float*>(out)}); break;
    case Store::f64: run(SplitWriter<Store::f64>{kp, k, spec, static_cast<double*>(out)}); break;
  }
}

}  // namespace tcemu::cuda::detail

#define TCEMU_INSTANTIATE_SPLIT(T)                                                               \
  template void tcemu::cuda::detail::split_operand<T>(                                           \
      const T*, std::int64_t, std::int64_t, std::int64_t, std::int64_t,                          \
      const tcemu::cuda::detail::SplitSpec&, void*, std::int64_t,                                \
      const tcemu::cuda::detail::ProfileArgs&, cudaStream_t);
