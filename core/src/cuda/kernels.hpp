#pragma once
// Host-callable launchers of the CUDA backend's passes and combine kernels (definitions in passes/ and dispatch/).
// Conventions: an operand is seen as `lines` x `k` (rows of op(A), or columns of op(B) through the
// transpose), element (l, kk) at data[l * line_stride + kk * k_stride]. Split outputs are "TN" panels:
// per line, the parts listed in a sequence one after another, each padded with zeros from k to kp, so
// line l, sequence position q, index kk lies at out[l * (nseq * kp) + q * kp + kk]; cuBLAS reads such
// a panel as a column-major (nseq*kp) x lines matrix (lda = nseq*kp, op T for A, op N for B).
#include <cuda_runtime.h>

#include <cstdint>

#include "tcemu/scheme.hpp"
#include "tcemu/schemes/all.hpp"

namespace tcemu::cuda::detail {

/// Multiprocessors of the current device (cached).
int device_sms();

/// Range-profile totals of one operand, accumulated with atomics. Non-negative doubles are ordered
/// like their bit patterns, so max/min use 64-bit integer atomics on the bits.
struct ProfileTotals {
  unsigned long long max_bits;          ///< max |x| over finite values
  unsigned long long min_nonzero_bits;  ///< min nonzero |x| (+Inf bits when none)
  unsigned long long min_line_max_bits; ///< min nonzero line maximum (+Inf when none)
  unsigned long long max_spread_bits;   ///< max over nonzero lines of log2(line max / mean |x|), >= 0
  unsigned long long zeros, subnormals, nonfinite;
  unsigned long long max_spread_nz_bits; ///< as max_spread_bits with the mean over the nonzero |x| only
};

/// Device pointers the profile accumulates into (lines entries each for the per-line arrays).
struct ProfileArgs {
  ProfileTotals* totals = nullptr;
  unsigned long long* line_max_bits = nullptr;  ///< per line: max finite |x| (double bits)
  double* line_sum = nullptr;                   ///< per line: sum of finite nonzero |x|
  int* line_nnz = nullptr;                      ///< per line: number of finite nonzero |x|
  int* line_exp = nullptr;                      ///< per line: ozaki_line_exponent(line max)
};

/// Bytes of device memory a ProfileArgs for `lines` lines needs (totals first, 256-byte aligned).
std::size_t profile_bytes(std::int64_t lines);
/// Carves ProfileArgs out of `base` (profile_bytes(lines) bytes).
ProfileArgs profile_layout(void* base, std::int64_t lines);
/// Resets totals and per-line arrays (async on `stream`).
void profile_reset(const ProfileArgs& p, std::int64_t lines, cudaStream_t stream);
/// After the tile pass: folds per-line statistics into the totals and computes line exponents.
void profile_finalize(const ProfileArgs& p, std::int64_t lines, std::int64_t k, cudaStream_t stream);

/// Storage format of split parts.
enum class Store { none, f16, bf16, f32, f64 };

/// Storage of a part type's values in the split panels (Store::none for INT8: Ozaki and MixPert
/// write their own slices).
constexpr Store store_for(PartType p) {
  switch (p) {
    case PartType::fp16: return Store::f16;
    case PartType::bf16: return Store::bf16;
    case PartType::tf32:
    case PartType::fp32: return Store::f32;
    case PartType::fp64: return Store::f64;
    case PartType::int8: return Store::none;
  }
  return Store::none;
}

/// What the element-wise split pass writes: parts p = seq[0..nseq) of split::split_element(kind, x)
/// (Store::f64: the value itself as double; Store::none: nothing, profile only).
struct SplitSpec {
  SchemeKind kind = schemes::native_kind(PartType::fp32);
  Store store = Store::none;
  int nseq = 0;
  signed char seq[16] = {};
  /// fp16x2-aligned only: per line split::ozaki_line_exponent of its max |x| (the profile's
  /// line_exp), and the operand's scale exponent sigma (split::aligned_scale_exp).
  const int* line_exp = nullptr;
  int scale_exp = 0;
};

/// Element-wise split (and/or range profile when prof.totals != nullptr) of one operand into a TN
/// panel with row length kp (>= k; a multiple of 4 unless store is none), for parts stored as S.
/// T = float or double. Instantiations: split_float.cu (none, f64), split_f16.cu, split_bf16.cu,
/// split_f32.cu (FP32 data, one kernel per split rule), split_double.cu (FP64 data).
template <class T, Store S>
void split_operand_store(const T* data, std::int64_t lines, std::int64_t k, std::int64_t line_stride,
                         std::int64_t k_stride, const SplitSpec& spec, void* out, std::int64_t kp,
                         const ProfileArgs& prof, cudaStream_t stream);

/// split_operand_store for spec.store.
template <class T>
void split_operand(const T* data, std::int64_t lines, std::int64_t k, std::int64_t line_stride,
                   std::int64_t k_stride, const SplitSpec& spec, void* out, std::int64_t kp,
                   const ProfileArgs& prof, cudaStream_t stream) {
  switch (spec.store) {
    case Store::none:
      return split_operand_store<T, Store::none>(data, lines, k, line_stride, k_stride, spec, out, kp, prof, stream);
    case Store::f16:
      return split_operand_store<T, Store::f16>(data, lines, k, line_stride, k_stride, spec, out, kp, prof, stream);
    case Store::bf16:
      return split_operand_store<T, Store::bf16>(data, lines, k, line_stride, k_stride, spec, out, kp, prof, stream);
    case Store::f32:
      return split_operand_store<T, Store::f32>(data, lines, k, line_stride, k_stride, spec, out, kp, prof, stream);
    case Store::f64:
      return split_operand_store<T, Store::f64>(data, lines, k, line_stride, k_stride, spec, out, kp, prof, stream);
  }
}

/// Ozaki slicing of one operand: per line, for each k chunk c (chunk length kc, padded to kcp), the s
/// slices one after another: slice p (0-based) of element kk = c*kc + l lands at
/// out[line * (nchunks*s*kcp) + c * (s*kcp) + q * kcp + l] with q = p, or q = s-1-p when `reversed`
/// (B is stored reversed so that the i+j groups are contiguous windows of both panels).
template <class T>
void ozaki_slice_operand(const T* data, std::int64_t lines, std::int64_t k, std::int64_t line_stride,
                         std::int64_t k_stride, const int* line_exp, int s, bool reversed,
                         std::int64_t kc, std::int64_t kcp, std::int64_t nchunks, std::int8_t* out,
                         cudaStream_t stream);

/// C(i, j) = alpha * sum_{g = ngroups-1 .. 0} W(acc_g(i, j)) * scale_g + beta * C(i, j), column-major
/// m x n accumulators (leading dimension ldacc) `group_stride` elements apart: group 0 is the FP32
/// (RN) sum of its n0 chunk accumulators at buffers 0..n0-1 (k cut into chunks, see paths_cuda.cpp),
/// group g >= 1 is buffer n0 + g - 1. W = double when Acc is double, else T (the host backend's
/// combine); C is not read when beta == 0. ngroups <= 8. C(i, j) = c[i * c_rs + j * c_cs].
/// ngroups == 0 gives C = beta * C.
template <class Acc, class T>
void combine_groups(const Acc* acc, std::int64_t group_stride, std::int64_t ldacc, int ngroups, int n0,
                    const double* scales, std::int64_t m, std::int64_t n, T alpha, T beta, T* c,
                    std::int64_t c_rs, std::int64_t c_cs, cudaStream_t stream);

/// Ozaki accumulation: nbuf INT32 results (column-major m x n, leading dimension ldacc, buffer b at
/// acc + b * buf_stride) of group index g_of[b] = i+j (2..s+1; buffers of one group are summed exactly
/// in 64-bit integers), then sum = sum over g from s+1 down to 2 of 2^(-7g) * S_g in FP64,
/// C(i, j) = alpha * 2^(ea[i] + eb[j]) * sum + beta * C(i, j) (computed in double, C not read when
/// beta == 0). nbuf <= kMaxOzakiBuffers.
inline constexpr int kMaxOzakiBuffers = 256;
template <class T>
void ozaki_accumulate(const std::int32_t* acc, std::int64_t buf_stride, std::int64_t ldacc, int nbuf,
                      const unsigned char* g_of, int s, const int* ea, const int* eb, std::int64_t m,
                      std::int64_t n, T alpha, T beta, T* c, std::int64_t c_rs, std::int64_t c_cs,
                      cudaStream_t stream);

/// Complex combine: C = alpha * (re + i im) + beta * C, re/im column-major m x n (ld ldacc), C a
/// strided complex view (element strides in complex elements), C not read when beta == 0.
template <class T>
void complex_combine(const T* re, const T* im, std::int64_t ldacc, std::int64_t m, std::int64_t n,
                     T alpha_re, T alpha_im, T beta_re, T beta_im, T* c, std::int64_t c_rs,
                     std::int64_t c_cs, cudaStream_t stream);

/// Real embedding of a complex k x n operand (complex_embed.cu): b is the interleaved storage of
/// B(j, c) at complex offset j * b_rs + c * b_cs (any strides); writes the column-major 2k x 2n real
/// matrix br (leading dimension ldbr >= 2k) with Br[2j, 2c] = Re B, Br[2j+1, 2c] = -Im B,
/// Br[2j, 2c+1] = Im B, Br[2j+1, 2c+1] = Re B (exact copies and sign flips).
/// Rows of a complex m x k operand as real rows (complex_embed.cu): a is the interleaved storage of
/// A(i, l) at complex offset i * a_rs + l * a_cs (any strides); writes the row-major m x 2k real
/// matrix x (leading dimension ldx >= 2k) with x[i ldx + 2l] = Re A(i, l), x[i ldx + 2l + 1] = Im A(i, l)
/// (exact copies): the X operand of int8-crt's complex embedding (common/complex_crt.hpp).
template <class T>
void embed_complex_rows(const T* a, std::int64_t m, std::int64_t k, std::int64_t a_rs, std::int64_t a_cs, T* x,
                        std::int64_t ldx, cudaStream_t stream);

template <class T>
void embed_complex_operand(const T* b, std::int64_t k, std::int64_t n, std::int64_t b_rs,
                           std::int64_t b_cs, T* br, std::int64_t ldbr, cudaStream_t stream);

}  // namespace tcemu::cuda::detail
