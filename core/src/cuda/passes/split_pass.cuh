#pragma once
// Element-wise split pass (split::split_element, shared with the host backend) fused with the range
// profile. Instantiated per input and storage type in split_float.cu, split_double.cu, split_f16.cu,
// split_bf16.cu and split_f32.cu (kernels.hpp); the self-test is split_selftest.cuh.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <string>
#include <type_traits>

#include "cuda/arch/st_global.cuh"
#include "cuda/passes/tile_pass.cuh"
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

/// Line-aligned parts of four elements of one line (scaled line exponent from the profile).
__device__ __forceinline__ void split_quad_aligned(SchemeKind kind, const float (&x)[4], int sigma, int line_exp,
                                                   float (&p)[3][4]) {
#pragma unroll
  for (int e = 0; e < 4; ++e) {
    const split::Parts r = split::split_aligned(kind, x[e], sigma, line_exp);
    p[0][e] = r.p[0];
    p[1][e] = r.p[1];
    p[2][e] = r.p[2];
  }
}

/// The writer kind that stands for spec.kind at run time (FP64 data with an FP32-target scheme): the
/// `auto` kind, which has no split rule of its own.
inline constexpr SchemeKind kRunTimeKind = schemes::kind_of_family(ImplFamily::automatic);

/// Number of parts of a compiled-in rule (its descriptor's part count; 3 for the run-time kind: all of
/// split::Parts).
template <SchemeKind K>
inline constexpr int kPartsOf = K == kRunTimeKind ? 3 : schemes::DescriptorOf<K>::type::desc.parts;


/// True when the split pass has a compiled writer of descriptor D for FP32 data stored as S: the
/// element-wise and line-aligned families whose part type is stored as S.
template <Store S, class D>
constexpr bool has_writer() {
  constexpr ImplFamily f = D::desc.family;
  return (f == ImplFamily::native || f == ImplFamily::one_pass || f == ImplFamily::parts ||
          f == ImplFamily::line_aligned) &&
         store_for(D::desc.part) == S;
}

/// Part positions written per pass (the catalogue's panels have at most 4; longer sequences are
/// written in several passes by split_operand_store).
inline constexpr int kMaxSeqPerPass = 4;

/// FP16 words of four values with bits::fp16_bits_rn (in device code the hardware conversion with the
/// bit-level encoder's NaN, so NaN is stored as the host writes it); only for quads with a non-finite
/// input, so kept out of line.
static __device__ __noinline__ uint2 fp16_words_exact(float v0, float v1, float v2, float v3) {
  return make_uint2(bits::fp16_bits_rn(v0) | (unsigned{bits::fp16_bits_rn(v1)} << 16),
                    bits::fp16_bits_rn(v2) | (unsigned{bits::fp16_bits_rn(v3)} << 16));
}

/// One part of a quad as stored: 2 words (FP16/BF16), 4 words (FP32). FP16 uses the packed hardware
/// conversion, exact for every value that is already an FP16 value or +-Inf (the parts of finite
/// inputs); the bit-level encoder when an input of the quad is not finite.
template <Store S>
struct Packed;
template <>
struct Packed<Store::f16> { unsigned w[2]; };
template <>
struct Packed<Store::bf16> { unsigned w[2]; };
template <>
struct Packed<Store::f32> { unsigned w[4]; };

template <Store S>
__device__ __forceinline__ Packed<S> pack_part(const float (&v)[4], bool finite) {
  Packed<S> r;
  if constexpr (S == Store::f16) {
    if (finite) {
      const __half2 h01 = __floats2half2_rn(v[0], v[1]);
      const __half2 h23 = __floats2half2_rn(v[2], v[3]);
      r.w[0] = *reinterpret_cast<const unsigned*>(&h01);
      r.w[1] = *reinterpret_cast<const unsigned*>(&h23);
    } else {
      const uint2 u = fp16_words_exact(v[0], v[1], v[2], v[3]);
      r.w[0] = u.x;
      r.w[1] = u.y;
    }
  } else if constexpr (S == Store::bf16) {  // the upper halves of the FP32 words
    r.w[0] = __byte_perm(bits::f2u(v[0]), bits::f2u(v[1]), 0x7632);
    r.w[1] = __byte_perm(bits::f2u(v[2]), bits::f2u(v[3]), 0x7632);
  } else {
#pragma unroll
    for (int e = 0; e < 4; ++e) r.w[e] = bits::f2u(v[e]);
  }
  return r;
}

// Plain (weak, write-back) vector stores (arch/st_global.cuh).
using arch::st_v2;
using arch::st_v4;

/// One 8- or 16-byte store of a packed part.
template <Store S>
__device__ __forceinline__ void store_packed(typename StoreType<S>::type* dst, const Packed<S>& p) {
  if constexpr (S == Store::f32) {
    st_v4(dst, p.w[0], p.w[1], p.w[2], p.w[3]);
  } else {
    st_v2(dst, p.w[0], p.w[1]);
  }
}

/// Writes parts seq[0..nseq) (nseq <= kMaxSeqPerPass) of each element into the TN panel (see
/// kernels.hpp): the quad's parts are packed once, then one vector store per position, the sequence
/// read with compile-time indices (no stack frame). K: the split rule, compiled in (a descriptor's
/// split_as); kRunTimeKind stands for spec.kind at run time.
template <Store S, SchemeKind K>
struct SplitWriter {
  using P = typename StoreType<S>::type;
  // Unrolled for the branch-free BF16/TF32 rules. The FP16 rules are branch-free in device code too
  // (hardware conversion, float_bits.hpp) but stay rolled: unrolled, the transposing FP16 kernels
  // spill 8 bytes on sm_90a (80 registers); the profile-only and FP64 writers stay rolled as well,
  // their per-quad work is small (no spills in the transposing kernel).
  static constexpr bool kUnrollQuads = (S == Store::bf16 || S == Store::f32) && K != kRunTimeKind;
  std::int64_t span;  // kp
  std::int64_t k;
  std::int64_t pitch;  // (all positions of the panel) * kp
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
        for (int q = 0; q < kMaxSeqPerPass; ++q) {
          if (q >= spec.nseq) break;
          st_v2(dst + q * span, a.x, a.y);
          st_v2(dst + q * span + 2, b.x, b.y);
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
        constexpr int NP = kPartsOf<K>;
        float p[3][4];
        if constexpr (is_line_aligned(K)) {
          split_quad_aligned(K, xf, spec.scale_exp, spec.line_exp[line], p);
        } else if constexpr (K == kRunTimeKind) {
          if (is_line_aligned(spec.kind)) {
            split_quad_aligned(spec.kind, xf, spec.scale_exp, spec.line_exp[line], p);
          } else {
            const Quad12 q = split_quad_any(spec.kind, xf[0], xf[1], xf[2], xf[3]);
#pragma unroll
            for (int i = 0; i < 3; ++i)
#pragma unroll
              for (int e = 0; e < 4; ++e) p[i][e] = q.p[i][e];
          }
        } else {
          split_quad_k<K>(xf, p);
        }
        Packed<S> pk[NP];
#pragma unroll
        for (int i = 0; i < NP; ++i) pk[i] = pack_part<S>(p[i], finite);
#pragma unroll
        for (int q = 0; q < kMaxSeqPerPass; ++q) {
          if (q >= spec.nseq) break;
          Packed<S> v = pk[0];
          const int s = spec.seq[q];
#pragma unroll
          for (int i = 1; i < NP; ++i)
#pragma unroll
            for (int w = 0; w < static_cast<int>(sizeof(v.w) / 4); ++w) v.w[w] = s == i ? pk[i].w[w] : v.w[w];
          store_packed<S>(dst + q * span, v);
        }
      }
    }
  }
};

/// Split pass of one operand whose parts are stored as S (see split_operand in kernels.hpp): picks
/// the writer for spec.kind. FP32 data has a kernel per rule; FP64 data (FP32-target schemes, rare)
/// shares one kernel per storage type with the rule chosen at run time. `o` points at the first
/// position this pass writes, `pitch` is the panel's row pitch.
template <class T, Store S>
void split_operand_store_pass(const T* data, std::int64_t lines, std::int64_t k, std::int64_t line_stride,
                              std::int64_t k_stride, const SplitSpec& spec,
                              typename StoreType<S>::type* o, std::int64_t kp, std::int64_t pitch,
                              const ProfileArgs& prof, cudaStream_t stream) {
  auto run = [&](auto writer) {
    launch_tile_pass(data, lines, line_stride, k_stride, writer, prof, true, stream);
  };
  auto unsupported = [&] {
    throw InvalidArgument(std::string("tcemu cuda split: scheme kind ") +
                          std::to_string(static_cast<int>(spec.kind)) + " has no parts of this storage type");
  };
  if constexpr (S == Store::none) {  // profile only: whole quads, nothing stored
    run(SplitWriter<S, schemes::native_kind(PartType::fp32)>{(kp + 3) / 4 * 4, k, 0, spec, nullptr});
  } else if constexpr (S == Store::f64) {
    run(SplitWriter<S, schemes::native_kind(PartType::fp64)>{kp, k, pitch, spec, o});
  } else if constexpr (!std::is_same_v<T, float>) {
    run(SplitWriter<S, kRunTimeKind>{kp, k, pitch, spec, o});
  } else {
    // One writer per registered split rule whose parts are stored as S (schemes sharing a split,
    // split_as, share its writer).
    switch (spec.kind) {
#define TCEMU_SPLIT_WRITER_CASE(e, D)                                                  \
  case SchemeKind::e:                                                                  \
    if constexpr (has_writer<S, D>()) return run(SplitWriter<S, D::split_as>{kp, k, pitch, spec, o}); \
    break;
      TCEMU_SCHEME_REGISTRY(TCEMU_SPLIT_WRITER_CASE)
#undef TCEMU_SPLIT_WRITER_CASE
    }
    unsupported();
  }
}

template <class T, Store S>
void split_operand_store(const T* data, std::int64_t lines, std::int64_t k, std::int64_t line_stride,
                         std::int64_t k_stride, const SplitSpec& spec, void* out, std::int64_t kp,
                         const ProfileArgs& prof, cudaStream_t stream) {
  using P = typename StoreType<S>::type;
  if (spec.nseq > kMaxSeqPerPass) {  // not in the catalogue: several passes of at most 4 positions
    for (int q0 = 0; q0 < spec.nseq; q0 += kMaxSeqPerPass) {
      SplitSpec sub = spec;
      sub.nseq = spec.nseq - q0 < kMaxSeqPerPass ? spec.nseq - q0 : kMaxSeqPerPass;
      for (int q = 0; q < sub.nseq; ++q) sub.seq[q] = spec.seq[q0 + q];
      // Only the first pass profiles; the panel pitch stays that of all positions.
      split_operand_store_pass<T, S>(data, lines, k, line_stride, k_stride, sub,
                                     static_cast<P*>(out) + q0 * kp, kp, spec.nseq * kp,
                                     q0 == 0 ? prof : ProfileArgs{}, stream);
    }
    return;
  }
  split_operand_store_pass<T, S>(data, lines, k, line_stride, k_stride, spec, static_cast<P*>(out), kp,
                                 spec.nseq * kp, prof, stream);
}

}  // namespace tcemu::cuda::detail

#define TCEMU_INSTANTIATE_SPLIT_STORE(T, S)                                                       \
  template void tcemu::cuda::detail::split_operand_store<T, tcemu::cuda::detail::Store::S>(       \
      const T*, std::int64_t, std::int64_t, std::int64_t, std::int64_t,                          \
      const tcemu::cuda::detail::SplitSpec&, void*, std::int64_t,                                \
      const tcemu::cuda::detail::ProfileArgs&, cudaStream_t);
