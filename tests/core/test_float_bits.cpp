// Bit-exact rounding to FP16/BF16/TF32 against independent references: an exhaustive nearest-value
// search over all finite FP16 values, and double-precision rint() for the 8-bit-exponent formats.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "tcemu/float_bits.hpp"

using namespace tcemu::bits;

namespace {

// All non-negative finite FP16 values, ascending, with their encodings.
struct Fp16Table {
  std::vector<double> value;
  std::vector<std::uint16_t> code;
  Fp16Table() {
    for (std::uint32_t h = 0; h < 0x7c00u; ++h) {
      // Decode independently of fp16_to_float: value = (h & 0x3ff) * 2^-24 for subnormals.
      const std::uint32_t e = h >> 10, m = h & 0x3ffu;
      value.push_back(e == 0 ? std::ldexp(double(m), -24) : std::ldexp(1.0 + m / 1024.0, int(e) - 15));
      code.push_back(static_cast<std::uint16_t>(h));
    }
  }
  // Reference RN-even / RZ conversion of a finite x.
  std::uint16_t round(float x, bool rz) const {
    const double a = std::fabs(double(x));
    const std::uint16_t sign = std::signbit(x) ? 0x8000u : 0;
    if (rz) {
      if (a >= 65536.0) return sign | 0x7bffu;
      const auto it = std::upper_bound(value.begin(), value.end(), a) - 1;
      return sign | code[it - value.begin()];
    }
    if (a >= 65520.0) return sign | 0x7c00u;
    auto hi = std::lower_bound(value.begin(), value.end(), a);
    if (hi == value.end()) return sign | 0x7bffu;
    if (*hi == a) return sign | code[hi - value.begin()];
    auto lo = hi - 1;
    const double dl = a - *lo, dh = *hi - a;
    std::size_t idx = dl < dh ? lo - value.begin() : dh < dl ? hi - value.begin()
                      : ((code[lo - value.begin()] & 1u) == 0 ? lo - value.begin() : hi - value.begin());
    return sign | code[idx];
  }
};

const Fp16Table& table() {
  static const Fp16Table t;
  return t;
}

std::vector<float> probe_values() {
  std::vector<float> xs = {0.0f, -0.0f, 1.0f, -1.0f, 65504.0f, 65519.99f, 65520.0f, 65536.0f,
                           6.1035156e-05f, 5.9604645e-08f, 2.9802322e-08f, 2.98023259e-08f,
                           1e-30f, std::numeric_limits<float>::denorm_min(), 3.4e38f};
  // Every FP16 value and the midpoints to its neighbours, +- one FP32 ulp.
  const auto& t = table();
  for (std::size_t i = 0; i + 1 < t.value.size(); i += 7) {
    const float v = float(t.value[i]);
    const float mid = float(0.5 * (t.value[i] + t.value[i + 1]));
    for (float y : {v, mid, std::nextafter(mid, 0.0f), std::nextafter(mid, 1e9f)}) {
      xs.push_back(y);
      xs.push_back(-y);
    }
  }
  std::mt19937 gen(7);
  std::uniform_real_distribution<double> e(-30, 17), u(1, 2);
  for (int i = 0; i < 200000; ++i) xs.push_back(float(std::ldexp(u(gen), int(e(gen))) * (i % 2 ? 1 : -1)));
  return xs;
}

double rn_reference(float x, int m) {  // RN-even to m explicit bits with FP32's exponent range
  if (x == 0) return x;
  int e;
  std::frexp(double(x), &e);  // |x| in [2^(e-1), 2^e)
  const int q = std::max(e - 1 - m, -126 - m);  // quantum exponent (subnormals keep -126-m)
  return std::ldexp(std::nearbyint(std::ldexp(double(x), -q)), q);
}

}  // namespace

TEST(FloatBits, Fp16RoundToNearestEvenMatchesExhaustiveReference) {
  for (float x : probe_values()) {
    ASSERT_EQ(fp16_bits_rn(x), table().round(x, false)) << "x = " << x;
  }
}

TEST(FloatBits, Fp16RoundTowardZeroMatchesExhaustiveReference) {
  for (float x : probe_values()) {
    ASSERT_EQ(fp16_bits_rz(x), table().round(x, true)) << "x = " << x;
  }
}

TEST(FloatBits, Fp16DecodeIsExactForEveryCode) {
  const auto& t = table();
  for (std::size_t i = 0; i < t.value.size(); ++i) {
    ASSERT_EQ(double(fp16_to_float(t.code[i])), t.value[i]);
    ASSERT_EQ(double(fp16_to_float(t.code[i] | 0x8000u)), -t.value[i]);
  }
}

TEST(FloatBits, Fp16SpecialValues) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(fp16_bits_rn(inf), 0x7c00u);
  EXPECT_EQ(fp16_bits_rn(-inf), 0xfc00u);
  EXPECT_TRUE(std::isnan(to_fp16_rn(std::nanf(""))));
  EXPECT_TRUE(std::isinf(to_fp16_rn(65520.0f)));     // tie above 65504 rounds to even = Inf
  EXPECT_EQ(to_fp16_rn(65519.0f), 65504.0f);
  EXPECT_EQ(to_fp16_rz(1e6f), 65504.0f);              // RZ saturates
  EXPECT_EQ(to_fp16_rn(std::ldexp(1.0f, -25)), 0.0f);  // tie at half the smallest subnormal -> 0
  EXPECT_EQ(to_fp16_rn(std::nextafter(std::ldexp(1.0f, -25), 1.0f)), std::ldexp(1.0f, -24));
}

TEST(FloatBits, Tf32AndBf16RoundToNearestEvenMatchRintReference) {
  std::mt19937 gen(11);
  std::uniform_int_distribution<std::uint32_t> bitsdist(0, 0x7f7fffffu);
  for (int i = 0; i < 500000; ++i) {
    const float x = u2f(bitsdist(gen) | (i % 2 ? 0x80000000u : 0u));
    for (int m : {10, 7}) {
      const double ref = rn_reference(x, m);
      const float got = round_mantissa_rn(x, m);
      if (std::fabs(ref) > std::numeric_limits<float>::max()) {
        ASSERT_TRUE(std::isinf(got)) << x;
      } else {
        ASSERT_EQ(double(got), ref) << "x = " << x << " m = " << m;
      }
    }
  }
}

TEST(FloatBits, TiesGoToEvenNotAway) {
  // 1 + 2^-11 is a TF32 tie between 1 and 1 + 2^-10: RN-even -> 1 (cvt.rna would give 1 + 2^-10).
  EXPECT_EQ(to_tf32_rn(1.0f + std::ldexp(1.0f, -11)), 1.0f);
  EXPECT_EQ(to_tf32_rn(1.0f + 3 * std::ldexp(1.0f, -11)), 1.0f + std::ldexp(1.0f, -9));
  EXPECT_EQ(to_bf16_rn(1.0f + std::ldexp(1.0f, -8)), 1.0f);
  EXPECT_EQ(round_mantissa_rz(1.0f + 3 * std::ldexp(1.0f, -11), 10), 1.0f + std::ldexp(1.0f, -10));
}
