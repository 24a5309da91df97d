#pragma once
/// \file crt.hpp
/// Ozaki scheme II on INT8: FP64/FP32 GEMM through the Chinese remainder theorem (CRT), host
/// reference. Ozaki, Uchino, Imamura, "Ozaki Scheme II: A GEMM-oriented emulation of floating-point
/// matrix multiplication using an integer modular technique", arXiv 2504.08009 (below "[OUI25]");
/// error analysis: Uchino, Ozaki, Imamura, arXiv 2602.02549 ("[UOI26]"); the step names below follow
/// [OUI25] (equation numbers are not quoted: not checked against the paper). docs/crt.md has the method,
/// the bound and the exact order of operations that a GPU implementation must reproduce bit for bit.
///
/// The method, for C = alpha * op(A) * op(B) + beta * C with op(A) m x k and op(B) k x n:
///  1. scaling: row i of op(A) is multiplied by 2^ea[i] and column j of op(B)
///     by 2^eb[j], then rounded to the nearest integers A', B' (ties to even), with |A'||B'| <=
///     2^(Lb-1) < P/2 entrywise, P = p_1 ... p_N the product of the first N moduli of kModuli and
///     Lb = floor(log2 P) (rules: Scaling);
///  2. residues: A'_l = A' mod p_l, B'_l = B' mod p_l as symmetric residues in
///     [-128, 127] stored as int8, all N of them written in one pass over each operand;
///  3. N exact INT8 x INT8 -> INT32 products A'_l B'_l over k chunks of at most 2^17 (exact in
///     INT32, see kChunk), each reduced mod p_l;
///  4. reconstruction: S = sum_l w_l r_l with w_l = (P/p_l) * ((P/p_l)^-1
///     mod p_l), C' = S - P * round(S / P), in FP64 with double-double constants, in a fixed order
///     (reconstruct());
///  5. C = alpha * 2^-(ea[i] + eb[j]) * C' + beta * C.
///
/// Everything but step 4's last roundings is integer-exact, so results are bitwise reproducible and
/// independent of how k is chunked or the products are blocked.
#include <cstdint>
#include <string>

#include "tcemu/error.hpp"
#include "tcemu/matrix.hpp"

namespace tcemu::crt {

/// Number of moduli in the table, and the smallest N the scheme accepts.
inline constexpr int kMaxModuli = 20;
inline constexpr int kMinModuli = 2;

/// The moduli, as GEMMul8 chooses them: 256 first, then the largest integers <= 255 that are
/// coprime to every modulus before them (255 = 3*5*17, 253 = 11*23, 247 = 13*19 and 217 = 7*31 are
/// composite but coprime to the rest). The first N are used with N moduli. log2 P grows by about 7.8
/// bits per modulus: 15.99 (N = 2), 31.95 (4), 79.24 (10), 117.78 (15), 155.37 (20).
inline constexpr int kModuli[kMaxModuli] = {256, 255, 253, 251, 247, 241, 239, 233, 229, 227,
                                            223, 217, 211, 199, 197, 193, 191, 181, 179, 173};

/// Greatest common divisor (constexpr, for the static_assert below).
constexpr int gcd(int a, int b) { return b == 0 ? a : gcd(b, a % b); }

/// True when the first `n` moduli are pairwise coprime, descending, and in [2, 256].
constexpr bool moduli_pairwise_coprime(int n = kMaxModuli) {
  for (int i = 0; i < n; ++i) {
    if (kModuli[i] < 2 || kModuli[i] > 256) return false;
    if (i > 0 && kModuli[i] >= kModuli[i - 1]) return false;
    for (int j = i + 1; j < n; ++j)
      if (gcd(kModuli[i], kModuli[j]) != 1) return false;
  }
  return true;
}
static_assert(moduli_pairwise_coprime(), "tcemu::crt::kModuli must be pairwise coprime");

/// Longest k chunk of one INT8 product: with residues in [-128, 127] and odd p, |sum| <= 2^17 *
/// 127^2 < 2^31, exact in INT32; for p = 256 a sum may reach 2^31 and wrap, which leaves it
/// unchanged mod 256 (2^32 = 0 mod 256). Longer k is cut into chunks whose residues are added mod p.
inline constexpr std::int64_t kChunk = std::int64_t{1} << 17;

/// How the power-of-two scales are chosen (both rigorous: |A'||B'| <= 2^(Lb-1) < P/2 entrywise for
/// the rounded integers; crt_arith::scale_exponent).
enum class Scaling {
  /// GEMMul8's "fast mode": |A'||B'|_ij <= ||A'_i||_2 ||B'_j||_2 (Cauchy-Schwarz); each line
  /// scaled so that its 2-norm is <= 2^((floor(log2 P) - 1) / 2). No extra GEMM.
  cauchy_schwarz,
  /// GEMMul8's "accurate mode": one INT8 GEMM of the magnitudes rounded up to 6 bits per line,
  /// G = ceil(|A| 2^(6-Ea)) ceil(|B| 2^(6-Eb)) >= 2^(12-Ea-Eb) |A||B|; row i scaled by its largest
  /// G_ij, column j by its largest G_ij. Tighter than cauchy_schwarz where |A||B| is far below the
  /// norm product; on the tested distributions it certified the same N (docs/crt.md), and lines with
  /// many tiny entries fare worse (each counts as at least 1/64 of the line maximum).
  accurate,
};

/// Accuracy target of the choice of N: the unit roundoff of the native GEMM to match.
enum class Target { fp64, fp32 };

/// Unit roundoff of a target: 2^-53 (fp64) or 2^-24 (fp32).
constexpr double unit_roundoff(Target t) { return t == Target::fp64 ? 0x1p-53 : 0x1p-24; }

/// "Scheme, scaling rule" names for messages: "cauchy-schwarz" / "accurate".
std::string to_string(Scaling rule);

/// Reconstruction constants of one N (computed exactly with a 256-bit integer at first use).
struct Constants {
  int n = 0;             ///< number of moduli
  int bits = 0;          ///< L: 2^(L-1) <= P < 2^L
  int grid = 0;          ///< g = max(0, L + 8 + ceil(log2 N) - 53): w_hi[l] are multiples of 2^g
  double P_hi = 0;       ///< P rounded to nearest double
  double P_lo = 0;       ///< P - P_hi rounded to nearest double
  double inv_P = 0;      ///< 1 / P_hi rounded to nearest
  double w_hi[kMaxModuli] = {};  ///< w_l rounded toward zero to a multiple of 2^g (exact double)
  double w_lo[kMaxModuli] = {};  ///< w_l - w_hi[l] rounded to nearest (0 <= . < 2^g)
  int w_mod[kMaxModuli] = {};    ///< (P/p_l)^-1 mod p_l, in [1, p_l)
  /// Absolute error bound of reconstruct() apart from its two final roundings (<= 2u|C'| more):
  /// N * 128 * 2^g * (N + 4) * 2^-53 + 2^(L-42) * 2^-53, rounded up.
  double recon_error = 0;
};

/// The constants of N moduli, N in [kMinModuli, kMaxModuli]; throws InvalidArgument otherwise.
/// The reference stays valid for the life of the program.
const Constants& constants(int n);

/// Symmetric residue of the integer-valued double x (|x| < 2^1024) mod p in [-128, 127]: the r
/// with r = x mod p and -p/2 <= r < p/2 (r in [-128, 127] for p = 256, [-(p-1)/2, (p-1)/2] for odd
/// p). Exact for every integer-valued x: crt_arith::residue (FP64 reductions below 2^84, 32-bit
/// integers on x = M 2^E beyond), the operation the GPU path runs too.
std::int8_t residue(double x, int p);

/// rint(x * 2^e) for finite x: the scaled value rounded to the nearest integer, ties to even, exact
/// (x * 2^e must not overflow; the scaling rules keep it below 2^79).
double scaled_integer(double x, int e);

/// Reconstructs C' from the N residues r[l * stride], l = 0 .. N-1 in this
/// fixed order (a GPU must do the same to match bit for bit):
///   sx = 0; for l: sx = fma(w_hi[l], r_l, sx)      (exact: multiples of 2^g below 2^(g+53))
///   sy = 0; for l: sy = fma(w_lo[l], r_l, sy)
///   q  = rint(sx * inv_P)                          (= round(S / P) whenever |C'| <= 2^(L-2))
///   c  = (fma(-P_lo, q, fma(-P_hi, q, sx)) + sy)   (the inner fma exact)
/// Returns c, with |c - C'| <= 2u|C'| + recon_error when the unique C' = S mod P in (-P/2, P/2]
/// has |C'| <= 2^(L-2) = 2^(Lb-1) (which the scaling guarantees; P/2 exceeds it by at least 2^-7 P
/// for every N of the table, docs/crt.md).
double reconstruct(const std::int8_t* r, std::int64_t stride, const Constants& k);

/// Thrown instead of computing when the caller should take the native path: a NaN or Inf in an
/// operand, or inputs whose certified N exceeds the table (`needs_more_moduli`).
class Fallback : public InvalidArgument {
 public:
  enum class Reason { nonfinite, needs_more_moduli };
  Fallback(Reason why, const std::string& what) : InvalidArgument(what), reason(why) {}
  Reason reason;
};

/// Power-of-two scale exponents of one call: row i of x = op(A) (m x k) is scaled by 2^ea[i],
/// column j of y = op(B) (k x n) by 2^eb[j], such that |rint(2^ea x)| |rint(2^eb y)| <= 2^(Lb-1)
/// entrywise, the budget split between rows and columns where every line of the operand with fewer
/// lines allows it (crt_arith::split_d, docs/crt.md "Scaling"), for the P of N moduli.
/// Zero lines get exponent 0. Finite inputs only (not checked). ea and eb must hold m and n ints.
/// Integer-exact and independent of summation order.
template <class T>
void scale_exponents(Scaling rule, int n_moduli, MatrixView<const T> x, MatrixView<const T> y, int* ea,
                     int* eb);

/// The rigorous bound that picks N. For every entry (i, j) the emulated product's error is at most
///   E_ij(N) = 2^-ea[i] Z_ij / 2 + 2^-eb[j] W_ij / 2 + 2^-(ea[i]+eb[j]) (recon_error(N) + k/4)
///   (+ 2u |C_ij|), Z_ij = sum_l [x_il != 0] |y_lj|, W_ij = sum_l |x_il| [y_lj != 0] (rounding errors
/// <= 1/2 per scaled element, their products <= 1/4 per term; derived in docs/crt.md). N is the smallest in [2, 20] with
///   E_ij(N) <= tol * (|x||y|)_ij   for every (i, j) with a nonzero product term,
/// tol = unit_roundoff(target): with 2^-53 the error stays within u|A||B| + 2u|AB|, at most DGEMM's
/// worst-case bound gamma_k |A||B| for k >= 3, and measured below plain FP64's errors (docs/crt.md);
/// fp32 likewise with 2^-24. Z, W, |x||y| are computed in FP64 with their rounding accounted for
/// (|x||y| rounded down, Z and W up). choose_moduli runs the test of certify_int8 (integer bounds,
/// the per-call choice of crt_gemm_host and the GPU path) for k <= kInt8CertificateMaxK and
/// certify's (FP64 sums) beyond. Cost O(mnk) on the host.
/// Returns 0 when even N = 20 is not enough (take the native path). Throws Fallback(nonfinite) on
/// NaN/Inf and InvalidArgument on inconsistent shapes.
template <class T>
int choose_moduli(Op opA, Op opB, MatrixView<const T> A, MatrixView<const T> B, Target target,
                  Scaling rule);
/// The same with an explicit tolerance (relative to |A||B| entrywise), tol > 0.
template <class T>
int choose_moduli_tol(Op opA, Op opB, MatrixView<const T> A, MatrixView<const T> B, double tol,
                      Scaling rule);

/// What choose_moduli certified, for reports and `--explain`.
struct Certificate {
  int moduli = 0;        ///< the smallest certified N (0: none in the table)
  double tol = 0;        ///< the tolerance, relative to (|x||y|)_ij
  /// max over entries with a nonzero product term of E_ij(N) / (tol (|x||y|)_ij) at N = moduli
  /// (<= 1 when certified; at N = kMaxModuli when moduli = 0). 0 when no entry has a nonzero term.
  double worst_ratio = 0;
  Scaling rule = Scaling::cauchy_schwarz;
  /// One line: "N = 16 moduli (log2 P = 125.4), certified bound <= 0.31 u |A||B| entrywise
  /// (u = 2^-53, cauchy-schwarz scaling)" or "no N <= 20 certified (needs ...)".
  std::string text() const;
  /// The N a run uses: `moduli`, or kMaxModuli when none is certified (range policy ignore).
  int run_moduli() const { return moduli != 0 ? moduli : kMaxModuli; }
  /// The report line of a run at run_moduli(): text(), prefixed "N = 20 moduli under range policy
  /// ignore; " when no N is certified.
  std::string report() const;
  /// Why a run that may not ignore the range declines when no N is certified: "the operands'
  /// exponent spread needs more than 20 moduli (<text()>)".
  std::string too_wide() const;
};

/// choose_moduli_tol with the worst ratio of the bound at the chosen N (same arguments, same
/// throws). Cost O(mnk).
template <class T>
Certificate certify(Op opA, Op opB, MatrixView<const T> A, MatrixView<const T> B, double tol, Scaling rule);

/// The cheap rigorous certificate: the same test as certify, E_ij(N) <= tol (|x||y|)_ij, with
/// every term replaced by a bound in the safe direction, so that it costs three INT8 GEMM-sized
/// integer products (k, then 2k long) and O((m + n) k) instead of O(mnk) FP64 work:
///  - a LOWER bound on (|x||y|)_ij (the right-hand side; a smaller value only makes the test
///    harder to pass): with Ex_i, Ey_j the line exponents (max |line| < 2^E) and the two magnitude
///    levels hx, lx of x_il and hy, ly of y_lj (crt_arith::magnitude_levels, integers in [0, 127]),
///    |x_il| >= 2^(Ex_i-14) (2^7 hx + lx) and |y_lj| >= 2^(Ey_j-14) (2^7 hy + ly), so, dropping the
///    non-negative lx ly,
///      (|x||y|)_ij >= 2^(Ex_i+Ey_j-28) G_ij,  G_ij = 2^14 (hx . hy) + 2^7 (hx . ly + lx . hy),
///    G_ij an exact integer (< 2^33 k; INT8 x INT8 -> INT32 products on a GPU: hx . hy over k and
///    [hx lx] . [ly hy] over 2k); crt_arith::int8_certificate_rhs rounds tol LB down (outside the
///    underflow corner that docs/crt.md leaves open: tol LB below about 2^-972);
///  - UPPER bounds on Z_ij = sum_l [x_il != 0] |y_lj| <= ||y_j||_1 and W_ij <= ||x_i||_1 (the left-
///    hand side grows), each 1-norm bounded by 2^(E-16) sum_l ceil(|v_l| 2^(16-E)) (an exact,
///    order-independent integer: crt_arith::norm1_bound), so host and GPU get the same N.
/// Entries whose G_ij is 0 fail the test (even where every product term is zero: conservative).
/// Every replaced term errs on the safe side, so whatever N this returns, certify's guarantee
/// (|error_ij| <= tol (|x||y|)_ij + 2u |C_ij|) holds at it (docs/crt.md); it may ask for more moduli
/// than certify (Z and W by 1-norms, |x||y| to 14 bits per element). Lines that meet only in
/// elements below 2^-14 of their maxima give G_ij = 0 and no N. Ozaki, Uchino, Imamura, arXiv
/// 2504.08009 (scheme II); the magnitude products follow the INT8 "accurate mode" estimate of Uchino,
/// Ozaki, Imamura, arXiv 2602.02549, here in the rounded-down direction. Same arguments and throws
/// as certify; `worst_ratio` is this bound's.
/// Longest k for which crt_gemm_host and the GPU path choose N per call with certify_int8 (its INT32
/// products 2k 127^2 stay below 2^31); longer k take certify (O(mnk) FP64).
inline constexpr std::int64_t kInt8CertificateMaxK = std::int64_t{1} << 16;

template <class T>
Certificate certify_int8(Op opA, Op opB, MatrixView<const T> A, MatrixView<const T> B, double tol,
                         Scaling rule);

/// What crt_gemm_host did.
struct CrtStats {
  int moduli = 0;             ///< N used
  Scaling rule = Scaling::cauchy_schwarz;
  std::int64_t chunks = 0;    ///< k chunks per INT8 product (ceil(k / chunk))
  std::int64_t int8_gemms = 0;  ///< INT8 GEMMs run: N (+1 for Scaling::accurate)
  Certificate certificate;      ///< what certified N (moduli = 0 only; else certificate.moduli = 0)
};

/// C = alpha * op(A) * op(B) + beta * C by Ozaki scheme II with N = `moduli` moduli (0: the
/// smallest N certified by certify_int8 for k <= kInt8CertificateMaxK, by certify beyond; target
/// fp64 for double and fp32 for float; the GPU path makes the same choice).
/// Shapes: op(A) m x k, op(B) k x n, C m x n, any strides (MatrixView). beta == 0 ignores C's old
/// values (NaN included). k = 0 gives C = beta * C; m = 0 or n = 0 does nothing. `chunk` (1 ..
/// kChunk) is the k length of one INT32 accumulation; the result does not depend on it.
/// Throws InvalidArgument on inconsistent shapes or moduli outside {0} u [2, 20] or a bad chunk,
/// Fallback(nonfinite) when op(A) or op(B) holds a NaN or Inf, Fallback(needs_more_moduli) when
/// moduli = 0 and no N in the table is certified. Bitwise reproducible: plain loops, integer-exact
/// products, reconstruct()'s fixed order. T = double or float.
template <class T>
void crt_gemm_host(Op opA, Op opB, T alpha, MatrixView<const T> A, MatrixView<const T> B, T beta,
                   MatrixView<T> C, int moduli, Scaling rule, CrtStats* stats = nullptr,
                   std::int64_t chunk = kChunk);

}  // namespace tcemu::crt
