#pragma once
/// \file schemes/crt.hpp
/// int8-crt[:N]: Ozaki scheme II on INT8 Tensor Cores (Ozaki, Uchino, Imamura, arXiv 2504.08009;
/// error analysis Uchino, Ozaki, Imamura, arXiv 2602.02549). Each row of op(A) / column of op(B) is
/// scaled by a power of two and rounded to the nearest integer, the integers are reduced into N symmetric
/// INT8 residues mod the pairwise coprime moduli p_1..p_N (crt::kModuli), the N residue products
/// run exactly in INT32, each is reduced mod p_l and C is reconstructed through the Chinese remainder
/// theorem in FP64 (tcemu/crt.hpp, docs/crt.md). N products per GEMM, linear in the bits (Ozaki I:
/// quadratic). Without ":N" the backend picks per call the smallest N whose rigorous bound
/// (crt::certify_int8 for k <= 2^16, crt::certify beyond) is at most u |A||B| entrywise for the caller's target (u = 2^-53 fp64, 2^-24 fp32);
/// inputs needing more than 20 moduli and NaN/Inf run natively.
/// Complex operands (complex_gemm_host / cuda::complex_gemm_device, std::complex or Kokkos::complex of
/// float / double): ONE real int8-crt GEMM on the real embedding X = [Re x, Im x] (m x 2k, re/im
/// interleaved), Y = [[Re y, Im y], [-Im y, Re y]] per element (2k x 2n): the 4M form (4N mnk INT8
/// multiply-adds) with one scale per row / column pair, one certificate and one reconstruction per
/// output component, so the certified bound is, before alpha / beta and with u_t as above,
///   |err Re C_ij| <= u_t (|Re x||Re y| + |Im x||Im y|)_ij + 2u |Re C_ij|,
///   |err Im C_ij| <= u_t (|Re x||Im y| + |Im x||Re y|)_ij + 2u |Im C_ij|
/// (within a classical complex GEMM's worst-case bound). 3M in the residue domain would give the same
/// integers at 3N mnk but is not implemented (docs/crt.md, "Complex operands"); a floating-point 3M
/// would not keep the bound. Host and GPU agree bit for bit.
#include <cmath>
#include <string>

#include "tcemu/crt.hpp"
#include "tcemu/error.hpp"
#include "tcemu/schemes/descriptor.hpp"

namespace tcemu::schemes {

/// The moduli count range of int8-crt:N (the table of crt::kModuli).
inline constexpr int kCrtMinModuli = crt::kMinModuli;
inline constexpr int kCrtMaxModuli = crt::kMaxModuli;

struct Int8Crt {
  static constexpr SchemeDescriptor desc = [] {
    SchemeDescriptor d;
    d.name = "int8-crt";
    d.family = ImplFamily::crt;
    d.target_per_call = true;
    d.part = PartType::int8;
    d.parts = 0;     // N residues per element, chosen per call
    d.products = 0;  // N INT8 products
    d.split = SplitRule::crt_residues;
    d.min_exp = -1074;
    d.max_abs = kInf;
    d.precision_bits = 24;        // certified per call: error <= 2^-24 |A||B| + 2u|AB|
    d.precision_bits_fp64 = 53;   // ... 2^-53 |A||B| + 2u|AB|
    d.accuracy = Accuracy::full_bits;
    d.range_text = "finite, certified N <= 20";
    d.error_bound = "certified per call: u |A||B| + 2u |AB| entrywise (docs/crt.md)";
    d.source = "Ozaki scheme II (Ozaki, Uchino, Imamura, arXiv 2504.08009)";
    d.range = RangeRule::nonfinite_only;
    d.cost_parts_fp32 = 8;   // the certified N on uniform / phi <= 1 data (docs/crt.md)
    d.cost_parts_fp64 = 16;
    // auto's FP64 cost model times N = 14 and 20 (the per-modulus terms) and, in calibrate.cpp, N per
    // call against the certified N given (the certificate's own cost); the FP32 target is not timed,
    // so auto picks int8-crt for FP64 targets only.
    d.calibrate_fp64[0] = 14;
    d.calibrate_fp64[1] = 20;
    d.param_min = kCrtMinModuli;
    d.param_max = kCrtMaxModuli;
    d.param_symbol = "N";
    d.param_name = "modulus count";
    d.param_names = "<N> (N = 2..20)";
    d.per_call_parts = "N";
    d.per_call_products = "N";
    d.per_call_bits = "certified";
    // Not in `--scheme all` yet: the GPU certificate now costs 8-9.5 ms at 8192^3 (was 1 s; docs/crt.md),
    // but N per call still runs at about 0.57x DGEMM there and the host backend's reference loops are
    // O(N mnk): putting it in the apps' `all` runs is the lead's call (issue 21).
    d.in_all = false;
    return d;
  }();
  using ElementSplit = NoElementSplit;
  using LineSplit = NoLineSplit;
  static constexpr SchemeKind split_as = SchemeKind::int8_crt;

  /// Sets `s` (this scheme's catalogue row) to N = `moduli` moduli: name "int8-crt:<N>", parts =
  /// products = N, precision_bits nominal: floor((log2 P - 2) / 2) - 8, the bits a line keeps under the
  /// Cauchy-Schwarz scaling when its 2-norm is up to 2^8 times its maximum (k <= 2^16); the actual
  /// error depends on the operands (crt::certify). Throws InvalidArgument outside 2..20.
  static void parameterize(Scheme& s, int moduli) {
    if (moduli < kCrtMinModuli || moduli > kCrtMaxModuli)
      throw InvalidArgument("int8-crt: modulus count " + std::to_string(moduli) + " is outside " +
                          std::to_string(kCrtMinModuli) + ".." + std::to_string(kCrtMaxModuli));
    double log2P = 0;
    for (int l = 0; l < moduli; ++l) log2P += std::log2(static_cast<double>(crt::kModuli[l]));
    s.name = std::string(desc.name) + ":" + std::to_string(moduli);
    s.parts = moduli;
    s.products = moduli;
    s.precision_bits = static_cast<int>(std::floor((log2P - 2) / 2)) - 8;
  }
};

}  // namespace tcemu::schemes
