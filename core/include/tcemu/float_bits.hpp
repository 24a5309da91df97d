#pragma once
/// \file float_bits.hpp
/// Bit-exact rounding of FP32 values to the Tensor Core input formats (FP16, BF16, TF32).
///
/// Everything here works on the IEEE-754 bit patterns with integer arithmetic only, so the result does
/// not depend on the compiler's `_Float16` support, the FPU rounding mode or flush-to-zero settings, and
/// the same functions run on the host and inside CUDA kernels (the host backend is the reference for
/// the device kernels). Results are returned as FP32 values that are exactly representable in the
/// narrow format (FP16/BF16/TF32 ⊂ FP32), plus FP16 encode/decode for storing parts as 16-bit words.
///
/// One exception, for speed: in *device* code the FP16 conversions fp16_bits_rn / fp16_bits_rz /
/// to_fp16_rn / to_fp16_rz use the hardware conversion (cvt.rn/.rz.f16.f32 through cuda_fp16.h,
/// without .ftz) for every non-NaN input, which is IEEE-754 RN-even / RZ with FP16 subnormals and the
/// same overflow rule as the bit-level code, so the results are bit-identical; NaN inputs get the
/// bit-level encoder's NaN. The bit-level versions stay available everywhere as *_bitlevel, and the
/// GPU self-test (core/src/cuda/passes/split_selftest.cuh) compares the two on all 2^32 FP32 bit patterns.
#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#include <cuda_fp16.h>
#define TCEMU_HD __host__ __device__ __forceinline__
#else
#define TCEMU_HD inline
#endif

namespace tcemu::bits {

/// Bit pattern of an FP32 value.
TCEMU_HD std::uint32_t f2u(float x) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(x);
#else
  std::uint32_t u;
  std::memcpy(&u, &x, 4);
  return u;
#endif
}

/// FP32 value of a bit pattern.
TCEMU_HD float u2f(std::uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float x;
  std::memcpy(&x, &u, 4);
  return x;
#endif
}

/// True for ±Inf and NaN.
TCEMU_HD bool is_nonfinite(float x) { return (f2u(x) & 0x7f800000u) == 0x7f800000u; }

/// Round an FP32 value to `m` explicit mantissa bits (0 < m < 23) with round-to-nearest, ties to even,
/// keeping FP32's 8-bit exponent: m = 10 gives TF32, m = 7 gives BF16. FP32 subnormals round on the
/// same bit grid (as the formats' own subnormals do). Values that round past FLT_MAX become ±Inf;
/// Inf and NaN pass through unchanged. (Not CUDA's cvt.rna, which rounds ties away from zero.)
TCEMU_HD float round_mantissa_rn(float x, int m) {
  std::uint32_t u = f2u(x);
  if ((u & 0x7f800000u) == 0x7f800000u) return x;
  const int drop = 23 - m;
  const std::uint32_t lsb = (u >> drop) & 1u;
  u += ((1u << (drop - 1)) - 1u) + lsb;
  u &= ~((1u << drop) - 1u);
  return u2f(u);
}

/// Round an FP32 value toward zero (truncate) to `m` explicit mantissa bits; never overflows.
TCEMU_HD float round_mantissa_rz(float x, int m) {
  std::uint32_t u = f2u(x);
  if ((u & 0x7f800000u) == 0x7f800000u) return x;
  const int drop = 23 - m;
  u &= ~((1u << drop) - 1u);
  return u2f(u);
}

/// TF32 (1+8+10 bits) nearest to x, ties to even.
TCEMU_HD float to_tf32_rn(float x) { return round_mantissa_rn(x, 10); }
/// BF16 (1+8+7 bits) nearest to x, ties to even.
TCEMU_HD float to_bf16_rn(float x) { return round_mantissa_rn(x, 7); }

/// Encode x as IEEE binary16 with round-to-nearest-even, including FP16 subnormals (quantum 2^-24);
/// |x| >= 65520 becomes ±Inf, NaN stays NaN (quiet, payload 0x200, sign kept), Inf stays Inf.
/// Bit-level integer code on host and device: the reference for fp16_bits_rn's device fast path.
TCEMU_HD std::uint16_t fp16_bits_rn_bitlevel(float x) {
  std::uint32_t u = f2u(x);
  const std::uint16_t sign = static_cast<std::uint16_t>((u >> 16) & 0x8000u);
  u &= 0x7fffffffu;
  if (u >= 0x7f800000u) return sign | (u > 0x7f800000u ? 0x7e00u : 0x7c00u);
  if (u >= 0x477ff000u) return sign | 0x7c00u;  // >= 65520: rounds past 65504
  if (u >= 0x38800000u) {                        // >= 2^-14: FP16 normal
    u -= 0x38000000u;                            // rebias exponent 127 -> 15
    u += 0x0fffu + ((u >> 13) & 1u);
    return sign | static_cast<std::uint16_t>(u >> 13);
  }
  if (u <= 0x33000000u) return sign;  // <= 2^-25 (the tie at 2^-25 goes to even = 0)
  const std::uint32_t e = u >> 23;
  const std::uint32_t mant = (u & 0x7fffffu) | 0x800000u;
  const std::uint32_t shift = 126u - e;  // value / 2^-24 = mant * 2^(e-126)
  std::uint32_t q = mant >> shift;
  const std::uint32_t rem = mant & ((1u << shift) - 1u);
  const std::uint32_t half = 1u << (shift - 1);
  if (rem > half || (rem == half && (q & 1u))) ++q;
  return sign | static_cast<std::uint16_t>(q);
}

/// Encode x as binary16 rounding toward zero (truncation / "bit-cut"); |x| >= 65536 saturates to
/// ±65504 (RZ never produces Inf from a finite value); FP16 subnormals are kept, smaller values -> ±0;
/// NaN -> quiet NaN (payload 0x200, sign kept), Inf stays Inf. Bit-level integer code on host and
/// device: the reference for fp16_bits_rz's device fast path.
TCEMU_HD std::uint16_t fp16_bits_rz_bitlevel(float x) {
  std::uint32_t u = f2u(x);
  const std::uint16_t sign = static_cast<std::uint16_t>((u >> 16) & 0x8000u);
  u &= 0x7fffffffu;
  if (u >= 0x7f800000u) return sign | (u > 0x7f800000u ? 0x7e00u : 0x7c00u);
  if (u >= 0x47800000u) return sign | 0x7bffu;
  if (u >= 0x38800000u) return sign | static_cast<std::uint16_t>((u - 0x38000000u) >> 13);
  if (u < 0x33800000u) return sign;  // < 2^-24
  const std::uint32_t e = u >> 23;
  const std::uint32_t mant = (u & 0x7fffffu) | 0x800000u;
  return sign | static_cast<std::uint16_t>(mant >> (126u - e));
}

/// Decode binary16 to FP32 (exact; NaN payloads kept). Bit-level integer code on host and device.
TCEMU_HD float fp16_to_float(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t e = (h >> 10) & 0x1fu;
  std::uint32_t mant = h & 0x3ffu;
  if (e == 0x1fu) return u2f(sign | 0x7f800000u | (mant << 13));
  if (e != 0) return u2f(sign | ((e + 112u) << 23) | (mant << 13));
  if (mant == 0) return u2f(sign);
  // subnormal: normalise
  int shift = 0;
  while ((mant & 0x400u) == 0) {
    mant <<= 1;
    ++shift;
  }
  mant &= 0x3ffu;
  return u2f(sign | ((113u - shift) << 23) | (mant << 13));
}

/// FP16 value nearest to x (ties to even), returned as FP32; bit-level code on host and device.
TCEMU_HD float to_fp16_rn_bitlevel(float x) { return fp16_to_float(fp16_bits_rn_bitlevel(x)); }
/// FP16 value obtained by truncating x toward zero, returned as FP32; bit-level code on host and device.
TCEMU_HD float to_fp16_rz_bitlevel(float x) { return fp16_to_float(fp16_bits_rz_bitlevel(x)); }

/// What the bit-level FP16 encoders return for a NaN x: the quiet NaN 0x7e00 with x's sign.
TCEMU_HD std::uint16_t fp16_nan_bits(float x) {
  return static_cast<std::uint16_t>(((f2u(x) >> 16) & 0x8000u) | 0x7e00u);
}
/// fp16_to_float(fp16_nan_bits(x)): the FP32 quiet NaN 0x7fc00000 with x's sign.
TCEMU_HD float fp16_nan_as_float(float x) { return u2f((f2u(x) & 0x80000000u) | 0x7fc00000u); }

/// Encode x as IEEE binary16 with round-to-nearest-even; the same bits as fp16_bits_rn_bitlevel for
/// every input. Device code: the hardware conversion (cvt.rn.f16.f32: IEEE RN-even, FP16 subnormals,
/// overflow to ±Inf from 65520 on), and fp16_nan_bits for NaN (the hardware writes 0x7fff), picked by
/// a select on `x != x`; host code: the bit-level encoder.
TCEMU_HD std::uint16_t fp16_bits_rn(float x) {
#if defined(__CUDA_ARCH__)
  const std::uint16_t h = __half_as_ushort(__float2half_rn(x));
  return x != x ? fp16_nan_bits(x) : h;
#else
  return fp16_bits_rn_bitlevel(x);
#endif
}

/// Encode x as binary16 rounding toward zero; the same bits as fp16_bits_rz_bitlevel for every
/// input. Device code: the hardware conversion (cvt.rz.f16.f32: IEEE RZ, FP16 subnormals, finite
/// overflow to ±65504) and fp16_nan_bits for NaN; host code: the bit-level encoder.
TCEMU_HD std::uint16_t fp16_bits_rz(float x) {
#if defined(__CUDA_ARCH__)
  const std::uint16_t h = __half_as_ushort(__float2half_rz(x));
  return x != x ? fp16_nan_bits(x) : h;
#else
  return fp16_bits_rz_bitlevel(x);
#endif
}

/// FP16 value nearest to x (ties to even), returned as FP32; the same bits as to_fp16_rn_bitlevel
/// for every input. Device code: hardware round trip FP32 -> FP16 (RN) -> FP32 (exact), and
/// fp16_nan_as_float for NaN; host code: the bit-level path.
TCEMU_HD float to_fp16_rn(float x) {
#if defined(__CUDA_ARCH__)
  const float r = __half2float(__float2half_rn(x));
  return x != x ? fp16_nan_as_float(x) : r;
#else
  return to_fp16_rn_bitlevel(x);
#endif
}

/// FP16 value obtained by truncating x toward zero, returned as FP32; the same bits as
/// to_fp16_rz_bitlevel for every input. Device code: hardware round trip FP32 -> FP16 (RZ) -> FP32,
/// and fp16_nan_as_float for NaN; host code: the bit-level path.
TCEMU_HD float to_fp16_rz(float x) {
#if defined(__CUDA_ARCH__)
  const float r = __half2float(__float2half_rz(x));
  return x != x ? fp16_nan_as_float(x) : r;
#else
  return to_fp16_rz_bitlevel(x);
#endif
}

}  // namespace tcemu::bits
