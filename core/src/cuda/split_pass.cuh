#pragma once
// Element-wise split pass (split::split_element, shared with the host backend) fused with the range
// profile. Instantiated per input type in split_float.cu / split_double.cu.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <string>
#include <type_traits>

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

/// Splits four elements with the rule of the compile-time kind K (split_element folds to one rule).
template <SchemeKind K>
__device__ __forceinline__ void split_quad_k(const float (&x)[4], float (&p)[3][4]) {
#pragma unroll
  for (int e = 0; e < 4; ++e) {
    const split::Parts r = split::split_element(K, x[e]);
    p[0][e] = r.p[0];
    p[1][e] = r.p[1];
    p[2][e] = r.p[2];
  }
}

/// Parts of four elements for a kind known only at run time (FP64 data with an FP32-target scheme):
/// one out-of-line copy of split_element's switch per translation unit instead of one per quad.
struct Quad12 {
  float p[3][4];
};
static __device__ __noinline__ Quad12 split_quad_any(SchemeKind kind, float x0, float x1, float x2,
                                                     float x3) {
  Quad12 q;
  const float x[4] = {x0, x1, x2, x3};
#pragma unroll
  for (int e = 0; e < 4; ++e) {
    const split::Parts r = split::split_element(kind, x[e]);
    q.p[0][e] = r.p[0];
    q.p[1][e] = r.p[1];
    q.p[2][e] = r.p[2];
  }
  return q;
}

/// Stores four part values (each exactly representable in the storage format) at dst (aligned to
/// 4 elements). FP16: the packed hardware conversion, exact for every finite or infinite value; the
/// bit-level encoder (NaN as the host writes it) when an input of the quad is not finite.
template <Store S>
__device__ __forceinline__ void store_quad(typename StoreType<S>::type* dst, const float (&v)[4],
                                           bool finite) {
  if constexpr (S == Store::f16) {
    uint2 u;
    if (finite) {
      const __half2 h01 = __floats2half2_rn(v[0], v[1]);
      const __half2 h23 = __floats2half2_rn(v[2], v[3]);
      u.x = *reinterpret_cast<const unsigned*>(&h01);
      u.y = *reinterpret_cast<const unsigned*>(&h23);
    } else {
      u.x = bits::fp16_bits_rn(v[0]) | (unsigned{bits::fp16_bits_rn(v[1])} << 16);
      u.y = bits::fp16_bits_rn(v[2]) | (unsigned{bits::fp16_bits_rn(v[3])} << 16);
    }
    *reinterpret_cast<uint2*>(dst) = u;
  } else if constexpr (S == Store::bf16) {
    uint2 u;  // the upper halves of the FP32 words (the parts are BF16 values)
    u.x = __byte_perm(bits::f2u(v[0]), bits::f2u(v[1]), 0x7632);
    u.y = __byte_perm(bits::f2u(v[2]), bits::f2u(v[3]), 0x7632);
    *reinterpret_cast<uint2*>(dst) = u;
  } else if constexpr (S == Store::f32) {
    *reinterpret_cast<float4*>(dst) = make_float4(v[0], v[1], v[2], v[3]);
  }
}

/// Writes parts seq[0..nseq) of each element into the TN panel (see kernels.hpp): one vector store
/// per part and quad, the sequence read with compile-time indices (no stack frame). K: the split
/// rule, compiled in; SchemeKind::automatic stands for spec.kind at run time.
template <Store S, SchemeKind K>
struct SplitWriter {
  using P = typename StoreType<S>::type;
  std::int64_t span;  // kp
  std::int64_t k;
  std::int64_t pitch;  // nseq * kp
  SplitSpec spec;
  P* out;

  __device__ __forceinline__ unsigned quad(std::int64_t ko, std::int64_t& kk0) const {
    kk0 = ko;
    const std::int64_t r = k - ko;
    return r >= 4 ? 0xFu : (r <= 0 ? 0u : (1u << r) - 1u);
  }
  __device__ __forceinline__ std::int64_t source(std::int64_t ko) const { return ko < k ? ko : -1; }

  template <class T>
  __device__ __forceinline__ void write(std::int64_t line, std::int64_t ko, const T (&x)[4]) const {
    if constexpr (S == Store::none) {
      return;
    } else {
      P* dst = out + line * pitch + ko;
      if constexpr (S == Store::f64) {
        const double2 a = make_double2(static_cast<double>(x[0]), static_cast<double>(x[1]));
        const double2 b = make_double2(static_cast<double>(x[2]), static_cast<double>(x[3]));
#pragma unroll
        for (int q = 0; q < 16; ++q) {
          if (q >= spec.nseq) break;
          reinterpret_cast<double2*>(dst + q * span)[0] = a;
          reinterpret_cast<double2*>(dst + q * span)[1] = b;
        }
      } else {
        // FP32-target schemes see FP64 data rounded to FP32 first (as the host does).
        float xf[4];
        bool finite = true;
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          xf[e] = static_cast<float>(x[e]);
          finite &= fabsf(xf[e]) <= 3.402823466e38f;
        }
        float p[3][4];
        if constexpr (K == SchemeKind::automatic) {
          const Quad12 q = split_quad_any(spec.kind, xf[0], xf[1], xf[2], xf[3]);
#pragma unroll
          for (int i = 0; i < 3; ++i)
#pragma unroll
            for (int e = 0; e < 4; ++e) p[i][e] = q.p[i][e];
        } else {
          split_quad_k<K>(xf, p);
        }
#pragma unroll
        for (int q = 0; q < 16; ++q) {
          if (q >= spec.nseq) break;
          const int s = spec.seq[q];
          float v[4];
#pragma unroll
          for (int e = 0; e < 4; ++e) v[e] = s == 0 ? p[0][e] : (s == 1 ? p[1][e] : p[2][e]);
          store_quad<S>(dst + q * span, v, finite);
        }
      }
    }
  }
};

/// Split pass of one operand whose parts are stored as S (see split_operand in kernels.hpp): picks
/// the writer for spec.kind. FP32 data has a kernel per rule; FP64 data (FP32-target schemes, rare)
/// shares one kernel per storage type with the rule chosen at run time.
template <class T, Store S>
void split_operand_store(const T* data, std::int64_t lines, std::int64_t k, std::int64_t line_stride,
                         std::int64_t k_stride, const SplitSpec& spec, void* out, std::int64_t kp,
                         const ProfileArgs& prof, cudaStream_t stream) {
  using P = typename StoreType<S>::type;
  P* o = static_cast<P*>(out);
  const std::int64_t pitch = spec.nseq * kp;
  auto run = [&](auto writer) {
    launch_tile_pass(data, lines, line_stride, k_stride, writer, prof, true, stream);
  };
  auto unsupported = [&] {
    throw InvalidArgument(std::string("tcemu cuda split: scheme kind ") +
                          std::to_string(static_cast<int>(spec.kind)) + " has no parts of this storage type");
  };
  if constexpr (S == Store::none) {  // profile only: whole quads, nothing stored
    run(SplitWriter<S, SchemeKind::fp32>{(kp + 3) / 4 * 4, k, 0, spec, nullptr});
  } else if constexpr (S == Store::f64) {
    run(SplitWriter<S, SchemeKind::fp64>{kp, k, pitch, spec, o});
  } else if constexpr (!std::is_same_v<T, float>) {
    run(SplitWriter<S, SchemeKind::automatic>{kp, k, pitch, spec, o});
  } else if constexpr (S == Store::f16) {
    switch (spec.kind) {
      case SchemeKind::fp16x2: return run(SplitWriter<S, SchemeKind::fp16x2>{kp, k, pitch, spec, o});
      case SchemeKind::fp16: return run(SplitWriter<S, SchemeKind::fp16>{kp, k, pitch, spec, o});
      case SchemeKind::fp16x2_markidis:
        return run(SplitWriter<S, SchemeKind::fp16x2_markidis>{kp, k, pitch, spec, o});
      case SchemeKind::fp16x2_egemm: return run(SplitWriter<S, SchemeKind::fp16x2_egemm>{kp, k, pitch, spec, o});
      case SchemeKind::fp16x2_legemm:
        return run(SplitWriter<S, SchemeKind::fp16x2_legemm>{kp, k, pitch, spec, o});
      default: unsupported();
    }
  } else if constexpr (S == Store::bf16) {
    switch (spec.kind) {
      case SchemeKind::bf16x3:
      case SchemeKind::bf16x9: return run(SplitWriter<S, SchemeKind::bf16x3>{kp, k, pitch, spec, o});
      case SchemeKind::bf16: return run(SplitWriter<S, SchemeKind::bf16>{kp, k, pitch, spec, o});
      default: unsupported();
    }
  } else {
    switch (spec.kind) {
      case SchemeKind::tf32x2: return run(SplitWriter<S, SchemeKind::tf32x2>{kp, k, pitch, spec, o});
      case SchemeKind::tf32: return run(SplitWriter<S, SchemeKind::tf32>{kp, k, pitch, spec, o});
      case SchemeKind::fp32: return run(SplitWriter<S, SchemeKind::fp32>{kp, k, pitch, spec, o});
      default: unsupported();
    }
  }
}

}  // namespace tcemu::cuda::detail

#define TCEMU_INSTANTIATE_SPLIT_STORE(T, S)                                                       \
  template void tcemu::cuda::detail::split_operand_store<T, tcemu::cuda::detail::Store::S>(       \
      const T*, std::int64_t, std::int64_t, std::int64_t, std::int64_t,                          \
      const tcemu::cuda::detail::SplitSpec&, void*, std::int64_t,                                \
      const tcemu::cuda::detail::ProfileArgs&, cudaStream_t);
