#pragma once
// Launchers of int8-crt's GPU passes (Ozaki scheme II, tcemu/crt.hpp; dispatch/crt_path.cpp runs
// them). Operands as in kernels.hpp: `lines` x k, element (l, kk) at data[l * line_stride + kk *
// k_stride]. Every pass computes what host/crt.cpp computes, with the same operations
// (tcemu/crt_arith.hpp), so that the result is the host's bit for bit.
#include <cuda_runtime.h>

#include <cstdint>

#include "tcemu/crt.hpp"
#include "tcemu/crt_arith.hpp"

namespace tcemu::cuda::detail {

/// Per-line data of the Cauchy-Schwarz scaling rule (host/crt.cpp's LineRule): for an active
/// (nonzero) line c = ceil(log2 s2) and base = 16 - E; inactive lines have c = base = 0 and
/// active = 0. `nonfinite` counts the operand's NaN/Inf (one counter, accumulated atomically).
struct CrtLines {
  int* c = nullptr;
  int* base = nullptr;
  int* active = nullptr;
  unsigned long long* nonfinite = nullptr;
  unsigned long long* scratch = nullptr;  ///< 3 * lines entries for crt_line_rule (lines contiguous)
  /// Optional (nullptr: not computed): s1 = sum_l ceil_mag(x_l, 16 - E) per line, the exact integer
  /// of crt_arith::norm1_bound (crt::certify_int8).
  unsigned long long* s1 = nullptr;
};

/// Line statistics of one operand under the Cauchy-Schwarz rule: max |x| -> E, then s2 = sum
/// ceil(|x| 2^(16-E))^2 (exact in uint64; order independent), NaN/Inf counted. *out.nonfinite must
/// be zeroed before; out.scratch (2 * lines entries) is used when the lines are contiguous.
template <class T>
void crt_line_rule(const T* data, std::int64_t lines, std::int64_t k, std::int64_t line_stride,
                   std::int64_t k_stride, const CrtLines& out, cudaStream_t stream);

/// out's lines 2s and 2s + 1 (c, base, active, s1) = in's line s, s < lines: the statistics of the
/// complex real embedding's columns 2s and 2s + 1, which hold the same magnitudes as the complex
/// column s read as interleaved reals (crt_magnitudes' layout 2).
void crt_pair_lines(const CrtLines& in, std::int64_t lines, const CrtLines& out, cudaStream_t stream);

/// The split of the scaling's budget between x and y (crt_arith::split_d; host/crt.cpp's Rules): how
/// many of the source operand's active lines have an odd c, and whether the source is x. The
/// exponents of an operand's lines at N moduli take Lb_side = Lb + shift (Lb = floor(log2 P)).
struct CrtSplit {
  unsigned long long odd = 0, active = 0;
  bool x_is_source = true;
  int shift_x(int Lb) const { return crt::arith::split_shift(Lb, odd, active, x_is_source); }
  int shift_y(int Lb) const { return crt::arith::split_shift(Lb, odd, active, !x_is_source); }
  /// Lb_side of x's / y's lines at n_moduli: floor(log2 P) plus the operand's shift.
  int Lb_x(int n_moduli) const {
    const int Lb = crt::constants(n_moduli).bits - 1;
    return Lb + shift_x(Lb);
  }
  int Lb_y(int n_moduli) const {
    const int Lb = crt::constants(n_moduli).bits - 1;
    return Lb + shift_y(Lb);
  }
  /// The split of crt_split_counts' counters (counts[0]: odd, counts[1]: active, as copied to the host).
  static CrtSplit of_counts(const unsigned long long* counts, bool x_is_source) {
    CrtSplit s;
    s.odd = counts[0];
    s.active = counts[1];
    s.x_is_source = x_is_source;
    return s;
  }
};

/// The certificates' constants per N in [kMinModuli, kMaxModuli] (crt_certificate,
/// crt_certificate_int8): each operand's Lb_side (CrtSplit) and the bound's part that no operand
/// scales, crt_arith::entry_fixed_error(recon_error(N), k), for products of length k.
struct CrtBoundConstants {
  int Lb_x[crt::kMaxModuli + 1];
  int Lb_y[crt::kMaxModuli + 1];
  double fixed[crt::kMaxModuli + 1];
};
inline CrtBoundConstants crt_bound_constants(std::int64_t k, const CrtSplit& split) {
  CrtBoundConstants K{};
  for (int N = crt::kMinModuli; N <= crt::kMaxModuli; ++N) {
    K.Lb_x[N] = split.Lb_x(N);
    K.Lb_y[N] = split.Lb_y(N);
    K.fixed[N] = crt::arith::entry_fixed_error(crt::constants(N).recon_error, k);
  }
  return K;
}

/// counts[0] += the number of active lines with an odd c, counts[1] += the number of active lines
/// (atomicAdd, one per warp): crt_arith::split_d's inputs for the split's source.
void crt_split_counts(const CrtLines& in, std::int64_t lines, unsigned long long* counts, cudaStream_t stream);

/// e[l] = crt_arith::scale_exponent(Lb_side, c[l], base[l]) for active lines, 0 otherwise (Lb_side =
/// floor(log2 P) + the operand's CrtSplit shift).
void crt_line_exponents(const CrtLines& in, std::int64_t lines, int Lb_side, int* e, cudaStream_t stream);

/// Residue panels of one operand: for modulus l < n_moduli, line i, k chunk c (of kc positions,
/// padded with zeros to kcp, a multiple of 16), position j: out[l * panel + i * (nchunks * kcp) + c *
/// kcp + j] = residue(rint(x 2^e[i]), p_l) as int8, panel = lines * nchunks * kcp. One pass over
/// the operand writes all n_moduli panels.
template <class T>
void crt_residues(const T* data, std::int64_t lines, std::int64_t k, std::int64_t line_stride,
                  std::int64_t k_stride, const int* e, int n_moduli, std::int64_t kc, std::int64_t kcp,
                  std::int64_t nchunks, std::int8_t* out, cudaStream_t stream);

/// Whether crt_line_rule_and_residues takes this operand: lines read along k with unit k stride, k <=
/// 8192, the data and every line 16-byte aligned, at most 2^31 - 1 lines.
template <class T>
bool crt_line_rule_fuses(const T* data, std::int64_t lines, std::int64_t k, std::int64_t line_stride,
                         std::int64_t k_stride);

/// crt_line_rule, crt_line_exponents (Lb = floor(log2 P) of n_moduli plus the operand's CrtSplit shift;
/// never the split's source, whose exponents need its whole rule first) and crt_residues (one k chunk,
/// kcp = k rounded up to 16) of one operand in one pass, for a modulus count known before the rule
/// (int8-crt:N): out, e and the n_moduli panels hold what the three would write, bit for bit, except
/// that a line holding NaN or Inf (counted in *out.nonfinite as there) gets no residues: the caller
/// falls back before the products. One read of the operand instead of two (docs/perf-notes.md,
/// "Session 27"). Throws InvalidArgument unless crt_line_rule_fuses.
template <class T>
void crt_line_rule_and_residues(const T* data, std::int64_t lines, std::int64_t k, std::int64_t line_stride,
                                std::int64_t k_stride, const CrtLines& out, int Lb, int* e, int n_moduli,
                                std::int8_t* panels, cudaStream_t stream);

/// crt_line_rule and crt_magnitudes (layout 0 or 1, kp = k rounded up to 16, panels 16-byte aligned)
/// of one operand in one pass, for crt::certify_int8 (N per call): out and the magnitude panels hold
/// what the two would write, bit for bit, except that a line holding NaN or Inf (counted in
/// *out.nonfinite) gets no panel bytes: the caller falls back. Throws InvalidArgument unless
/// crt_line_rule_fuses and the layout, kp and alignment are as stated.
template <class T>
void crt_line_rule_and_magnitudes(const T* data, std::int64_t lines, std::int64_t k, std::int64_t line_stride,
                                  std::int64_t k_stride, const CrtLines& out, std::int64_t kp, int layout,
                                  std::int8_t* panels, cudaStream_t stream);

/// Residue panels of one complex operand for 3M in the residue domain (docs/crt.md, "Complex operands
/// on the GPU: 3M"): `data` holds `lines` lines of k complex elements as 2k interleaved reals (re, im;
/// line i at data + i * line_stride, in units of T, k contiguous), exponents e as for crt_residues
/// (those of the real embedding's lines). One k chunk: kcp >= k, a multiple of 16. For modulus l,
/// line i and position j < kcp (0 past k), with panel = lines * kcp bytes:
///   out[(0 * n + l) * panel + i * kcp + j] = residue of Re (rint of re 2^e[i])
///   out[(1 * n + l) * panel + ...]           = residue of Im
///   out[(2 * n + l) * panel + ...]           = residue of Re + Im (crt_arith::sym_add_residues)
/// Throws InvalidArgument when kcp is not a multiple of 16 or below k.
template <class T>
void crt_residues_complex3m(const T* data, std::int64_t lines, std::int64_t k, std::int64_t line_stride,
                            const int* e, int n_moduli, std::int64_t kcp, std::int8_t* out, cudaStream_t stream);

/// Whether crt_line_rule_and_residues_complex3m takes these lines: k <= 512 complex elements (2k
/// interleaved reals, a warp per line), at most INT_MAX lines, every line 16-byte aligned.
template <class T>
bool crt_line_rule_and_residues_complex3m_runs(const T* data, std::int64_t lines, std::int64_t k,
                                               std::int64_t line_stride);

/// crt_line_rule over the 2k interleaved reals of each line, crt_line_exponents (into e, Lb as
/// there) and crt_residues_complex3m in one pass (N given): out, e and the panels hold what the three
/// would write, bit for bit, except that a line holding NaN or Inf (counted in *out.nonfinite) gets no
/// residues, so the caller must check the count before it uses them. One read of the operand
/// instead of two (docs/perf-notes.md, "Session 30"). Throws InvalidArgument unless
/// crt_line_rule_and_residues_complex3m_runs and kcp >= k is a multiple of 16.
template <class T>
void crt_line_rule_and_residues_complex3m(const T* data, std::int64_t lines, std::int64_t k, std::int64_t line_stride,
                                         const CrtLines& out, int Lb, int* e, int n_moduli, std::int64_t kcp,
                                         std::int8_t* panels, cudaStream_t stream);

/// Lines read through a bit map (complex_gemm_device_gathered, tcemu::cuda::BitGather): complex
/// element j of line i is the pair of T at 2 idx, idx = sum_b (bit b of row0 + i) << row_pos[b] +
/// sum_b (bit b of j) << col_pos[b], all positions distinct and below 32 (row_bits + col_bits <= 32).
/// row0: the first line's row, for row blocks.
struct GatheredLines {
  std::uint8_t row_pos[32] = {};
  std::uint8_t col_pos[32] = {};
  int row_bits = 0, col_bits = 0;
  std::int64_t row0 = 0;
};

/// Whether crt_gathered_rule_and_residues_complex3m takes lines of k complex elements from data:
/// k <= 512 and data aligned to a complex element.
template <class T>
bool crt_gathered_rule_and_residues_complex3m_runs(const T* data, std::int64_t k);

/// crt_line_rule_and_residues_complex3m on `lines` lines read through `g` (lines row0 .. row0 + lines
/// - 1 of the gathered matrix; k = 2^g.col_bits complex elements): the same statistics, exponents and
/// residue panels, bit for bit, as that pass on the matrix gathered into rows. Throws InvalidArgument
/// unless crt_gathered_rule_and_residues_complex3m_runs, k = 2^col_bits, the lines lie within
/// 2^row_bits, row_bits + col_bits <= 32 and kcp >= k is a multiple of 16.
template <class T>
void crt_gathered_rule_and_residues_complex3m(const T* data, const GatheredLines& g, std::int64_t lines,
                                              std::int64_t k, const CrtLines& out, int Lb, int* e, int n_moduli,
                                              std::int64_t kcp, std::int8_t* panels, cudaStream_t stream);

/// The certificate of crt::certify on the GPU, with host/crt.cpp's sums in its order (l ascending,
/// each product and sum rounded separately): for every entry (i, j) with a nonzero product term
/// and every N in [2, 20], whether entry_bound(...) <= tol LB_ij fails (fail[N] set to 1) and the
/// largest ratio bound / (tol LB) (max_ratio_bits[N], the bits of a non-negative double, atomicMax),
/// the exponents split as `split` says. fail and max_ratio_bits (21 entries each) must be zeroed
/// before. Cost O(m n k) in FP64.
template <class T>
void crt_certificate(const T* x, std::int64_t m, std::int64_t xs_line, std::int64_t xs_k, const T* y,
                     std::int64_t n, std::int64_t ys_line, std::int64_t ys_k, std::int64_t k, const CrtLines& lx,
                     const CrtLines& ly, const CrtSplit& split, double tol, int* fail,
                     unsigned long long* max_ratio_bits, cudaStream_t stream);

/// Magnitude panels of crt::certify_int8 (crt_arith::magnitude_levels with E = 16 - base of the
/// line, zeros for inactive lines and for the padding k <= j < kp): line i of the output holds
/// `layout` = 0: [hi | lo] (2 kp bytes), layout = 1: [hi | lo | hi] (3 kp bytes), row-major with
/// that pitch. kp is a multiple of 16. layout = 2: [hi | lo | hi] of the complex real embedding's
/// columns (common/complex_crt.hpp): `lines` output lines from lines / 2 source lines of k
/// interleaved (re, im) reals (k even), line 2s the source line s, line 2s + 1 the same with each
/// pair swapped; `in` then describes the output lines (crt_pair_lines). With kp a multiple of 16
/// and `out` 16-byte aligned the residue pass's kernels write it (16 positions per thread; layout 2
/// needs k_stride = 1), else a kernel per byte. Throws InvalidArgument for layout 2 with an odd k or
/// an odd line count.
template <class T>
void crt_magnitudes(const T* data, std::int64_t lines, std::int64_t k, std::int64_t line_stride,
                    std::int64_t k_stride, const CrtLines& in, std::int64_t kp, int layout, std::int8_t* out,
                    cudaStream_t stream);

/// The test of crt::certify_int8 for every entry (i, j) of active lines, from the INT32 products
/// hh[j * ld + i] = hx . hy and cross[j * ld + i] = hx . ly + lx . hy (column-major, ld >= m):
/// for N in [n_lo, n_hi], fail_mask bit N set when entry_bound(norm1_y, norm1_x, ea, eb,
/// entry_fixed_error(recon_error(N), k)) <= int8_certificate_rhs(...) fails (k: the product's length;
/// the exponents split as `split` says) (atomicOr on *fail_mask, zeroed before); with
/// ratio_bits != nullptr (n_lo == n_hi) also the largest bound / rhs (+inf where rhs = 0) as the
/// bits of a non-negative double (atomicMax, zeroed before). The same operations as host/crt.cpp.
void crt_certificate_int8(const std::int32_t* hh, const std::int32_t* cross, std::int64_t ld, std::int64_t m,
                          std::int64_t n, std::int64_t k, const CrtSplit& split, const CrtLines& lx,
                          const CrtLines& ly, double tol, int n_lo, int n_hi,
                          unsigned* fail_mask, unsigned long long* ratio_bits, cudaStream_t stream);

/// The candidate of crt_certificate_int8's test (same inputs and operations): *candidate = the
/// largest over warps of c, where a warp's c starts at n_lo and rises by one while some lane's entry
/// fails at c (at most n_hi + 1; atomicMax, zeroed before). Each entry is tested at its warp's c when
/// it comes, so every N in [n_lo, result) fails for some entry; the result is the smallest N that no
/// entry fails when each entry's bound, once met, stays met at larger N (crt_certify_int8 checks
/// that at the result, in its ratio pass). One test per entry instead of one per passing N.
void crt_certificate_int8_search(const std::int32_t* hh, const std::int32_t* cross, std::int64_t ld, std::int64_t m,
                                 std::int64_t n, std::int64_t k, const CrtSplit& split, const CrtLines& lx,
                                 const CrtLines& ly, double tol, int n_lo,
                                 int n_hi, unsigned* candidate, cudaStream_t stream);

/// Reconstruction: for rows [0, rows) of this block and all n columns, reduces the INT32 products
/// acc[(l * nchunks + c) * bstride + j * ldacc + i] mod p_l (chunk sums added mod p_l), rebuilds C'
/// with crt_arith's reconstruct in the fixed order, and writes C(i, j) = T(alpha 2^-(ex[i] + ey[j])
/// C' + beta C(i, j)) (beta = 0: C not read), C(i, j) at c[i * c_rs + j * c_cs].
template <class T>
void crt_reconstruct(const std::int32_t* acc, std::int64_t bstride, std::int64_t ldacc, std::int64_t nchunks,
                     const crt::Constants& K, const int* ex, const int* ey, std::int64_t rows, std::int64_t n,
                     T alpha, T beta, T* c, std::int64_t c_rs, std::int64_t c_cs, cudaStream_t stream);

/// crt_reconstruct for one k chunk from the products' int8 symmetric residues (the wgmma kernel's
/// fused reduction, kernels/crt_wgmma_s8.hpp): modulus l's residue of entry (i, j) at res[l * panel +
/// crt_s8::residue_offset(i, j, rows, n)] (128 x 256 tiles of accumulator fragments) instead of INT32
/// values: a quarter of the bytes read, no reduction, the same chains, so the same C bit for bit.
/// Throws InvalidArgument unless res is 16-byte aligned and panel a multiple of 16 of at least
/// crt_s8::residue_panel_bytes(rows, n).
template <class T>
void crt_reconstruct_residues(const std::int8_t* res, std::int64_t panel, const crt::Constants& K, const int* ex,
                              const int* ey, std::int64_t rows, std::int64_t n, T alpha, T beta, T* c,
                              std::int64_t c_rs, std::int64_t c_cs, cudaStream_t stream);

/// Where and how the 3M reconstruction writes complex C (crt_reconstruct_complex3m): C(i, j) = (re,
/// im) at c + 2 (i * c_rs + j * c_cs) (strides in complex elements). direct: alpha and beta real,
/// each part C = T(alpha v + beta C) in double (the real GEMM's write, C not read when beta = 0);
/// else the part values rounded to T, then complex_combine's operations with (ar, ai, br, bi).
template <class T>
struct ComplexOutput {
  T* c = nullptr;
  std::int64_t c_rs = 0, c_cs = 0;
  bool direct = true;
  T ar = T(1), ai = T(0), br = T(0), bi = T(0);
};

/// The reconstruction of complex int8-crt in the 3M form: for rows [0, rows) of this block and the
/// n complex columns, the residues of P1 = xr.yr, P2 = xi.yi, P3 = xs.ys at res[(part * n_moduli +
/// l) * panel + crt_s8::residue_offset(i, j, rows, n)] (part 0, 1, 2; the wgmma kernel's fused reduction)
/// give those of Re = P1 - P2 and Im = P3 - P1 - P2 (crt_arith::shifted_re_3m / shifted_im_3m),
/// reconstructed in crt_arith's fixed order with exponent ex[i] + ey[j] and written as `out` says: the
/// bits of the real embedding's reconstruction and complex combine. Throws InvalidArgument unless res
/// is 16-byte aligned and panel a multiple of 16 of at least crt_s8::residue_panel_bytes(rows, n).
template <class T>
void crt_reconstruct_complex3m(const std::int8_t* res, std::int64_t panel, const crt::Constants& K, const int* ex,
                               const int* ey, std::int64_t rows, std::int64_t n, const ComplexOutput<T>& out,
                               cudaStream_t stream);

/// The narrow 3M pass's shapes (crt_narrow_complex3m): n <= kCrtNarrowMaxN complex columns and k <=
/// kCrtNarrowMaxK. There the wgmma path's residue panels, n padded to 256 and k to 16, are up to 64
/// times the output's bytes, while the narrow pass's products cost at most 3 x 8 x 16 integer
/// multiply-adds per row and modulus (docs/perf-notes.md, "Session 30").
inline constexpr std::int64_t kCrtNarrowMaxN = 8;
inline constexpr std::int64_t kCrtNarrowMaxK = 16;
constexpr bool crt_narrow_complex3m_runs(std::int64_t n, std::int64_t k) {
  return n >= 1 && n <= kCrtNarrowMaxN && k >= 1 && k <= kCrtNarrowMaxK;
}

/// Complex int8-crt in the 3M form for narrow products, in one pass on the CUDA cores: for rows [0,
/// rows) of X (k complex elements as 2k interleaved reals, row i at x + i x_ld in units of T) and
/// the n complex columns, the residues of X's scaled integers (exponents ex[i], as
/// crt_residues_complex3m would write them), the residues of P1 = xr.yr, P2 = xi.yi and P3 = xs.ys
/// against y's panels `ry` (crt_residues_complex3m's layout for n lines, k padded to kcp), and the
/// reconstruction with exponent ex[i] + ey[j] written as `out` says, in crt_reconstruct_complex3m's
/// order: the same C, bit for bit, as that pass after the residue pass and the wgmma kernel, with
/// no residue panels of X or of the products. out.c points at row 0 of this block. Throws
/// InvalidArgument unless crt_narrow_complex3m_runs(n, k), kcp >= k is a multiple of 16 and 1 <= K.n
/// <= crt::kMaxModuli.
template <class T>
void crt_narrow_complex3m(const T* x, std::int64_t rows, std::int64_t k, std::int64_t x_ld, const int* ex,
                          const std::int8_t* ry, std::int64_t kcp, const int* ey, std::int64_t n,
                          const crt::Constants& K, const ComplexOutput<T>& out, cudaStream_t stream);

}  // namespace tcemu::cuda::detail
