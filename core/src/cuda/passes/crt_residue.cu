// int8-crt: the Cauchy-Schwarz line rule, the line exponents and the residue pass (one pass per
// operand writing all N residue panels), as host/crt.cpp computes them.
#include <algorithm>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "cuda/passes/crt_passes.hpp"
#include "cuda/passes/chunked_k.cuh"
#include "cuda/passes/tile_pass.cuh"  // dbits, device_sms, reads_along_k
#include "tcemu/crt_arith.hpp"
#include "tcemu/schemes/crt.hpp"

namespace tcemu::cuda::detail {
namespace {

constexpr int kLineThreads = 256;

/// A grid-stride kernel's block count: `want` blocks, at most 16 waves of `per_sm` resident blocks.
unsigned resident_grid(std::int64_t want, int per_sm) {
  const std::int64_t cap = std::int64_t{device_sms()} * per_sm * 16;
  return static_cast<unsigned>(want < cap ? want : cap);
}

__device__ __forceinline__ unsigned long long block_reduce(unsigned long long v, bool is_max) {
  __shared__ unsigned long long part[kLineThreads / 32];
  for (int o = 16; o > 0; o >>= 1) {
    const unsigned long long w = __shfl_xor_sync(0xffffffffu, v, o);
    v = is_max ? (w > v ? w : v) : v + w;
  }
  __syncthreads();  // part[] may still be read by a previous call
  if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = v;
  __syncthreads();
  unsigned long long r = part[0];
  for (int i = 1; i < kLineThreads / 32; ++i) r = is_max ? (part[i] > r ? part[i] : r) : r + part[i];
  return r;
}

/// The block's reduction (block_reduce) and a warp's (shuffles only; every lane gets the result),
/// the two reducers of line_stats.
struct BlockReduce {
  __device__ __forceinline__ unsigned long long operator()(unsigned long long v, bool is_max) const {
    return block_reduce(v, is_max);
  }
};
struct WarpReduce {
  __device__ __forceinline__ unsigned long long operator()(unsigned long long v, bool is_max) const {
    for (int o = 16; o > 0; o >>= 1) {
      const unsigned long long w = __shfl_xor_sync(0xffffffffu, v, o);
      v = is_max ? (w > v ? w : v) : v + w;
    }
    return v;
  }
};

/// |v|'s bits as a key whose maximum over a line has the line maximum's binade: the high word of a
/// double (sign cleared; equal high words mean equal exponents, and a subnormal's leading bit sits in
/// it unless the word is 0), all bits of a float. Keys at or above kNonfiniteKey are NaN or Inf.
__device__ __forceinline__ unsigned magnitude_key(double v) {
  return static_cast<unsigned>(__double2hiint(v)) & 0x7FFFFFFFu;
}
__device__ __forceinline__ unsigned magnitude_key(float v) { return __float_as_uint(v) & 0x7FFFFFFFu; }
template <class T>
constexpr unsigned kNonfiniteKey = sizeof(T) == 8 ? 0x7FF00000u : 0x7F800000u;

/// crt_arith::ceil_mag(v, 16 - E) of an element of a line whose maximum is below 2^E: at most 2^16,
/// so the ceiling is one conversion rounding up to a 32-bit integer (the same integer).
__device__ __forceinline__ unsigned ceil_mag16(double v, int s) {
  const unsigned q = __double2uint_ru(crt::arith::ldexp_fast(fabs(v), s));
  return q > 0u ? q : static_cast<unsigned>(v != 0);  // 1 where a nonzero v underflows
}

/// The line rule's results for one line (crt_line_rule's per-line outputs).
struct LineStats {
  bool finite, active;  // block-uniform
  int c, base;
  unsigned long long s1;
  unsigned long long nonfinite;  ///< this thread's NaN/Inf count (the block's sum is the line's)
};

/// Writes one line's results (active, c, base and, where kept, s1) into `out`; one thread per line.
__device__ __forceinline__ void store_line_stats(const CrtLines& out, std::int64_t line, const LineStats& r) {
  out.active[line] = r.active;
  out.c[line] = r.c;
  out.base[line] = r.base;
  if (out.s1 != nullptr) out.s1[line] = r.s1;
}

/// The line rule of one line held by the threads that `reduce` spans (a block: BlockReduce, or a warp:
/// WarpReduce), R elements each, zeros for positions past k: max |x| -> E through magnitude_key (one
/// 32-bit max per element; the full bits only where every key of a double line is 0), the NaN/Inf
/// count (counted only where the maximum key says there is one), then s2 = sum ceil_mag^2 and s1 = sum
/// ceil_mag at E (exact integers, so any order gives host/crt.cpp's). Uniform over those threads; every
/// one of them must call it (the block's barriers, the warp's shuffles).
template <class T, int R, class Reduce>
__device__ __forceinline__ LineStats line_stats(const T (&x)[R], bool want_s1, Reduce reduce) {
  unsigned key = 0;
#pragma unroll
  for (int i = 0; i < R; ++i) key = max(key, magnitude_key(x[i]));
  key = static_cast<unsigned>(reduce(key, true));
  LineStats r{true, false, 0, 0, 0, 0};
  if (key >= kNonfiniteKey<T>) {  // rare: count them for the operand's counter
    r.finite = false;
#pragma unroll
    for (int i = 0; i < R; ++i) r.nonfinite += magnitude_key(x[i]) >= kNonfiniteKey<T>;
    return r;
  }
  double m;
  if constexpr (sizeof(T) == 8) {
    if (key != 0) {
      m = __hiloint2double(static_cast<int>(key), 0);  // the maximum's binade (ilogb), not its value
    } else {  // zeros, or subnormals below 2^-1042 only: the full bits
      unsigned long long b = 0;
#pragma unroll
      for (int i = 0; i < R; ++i) b = max(b, dbits(fabs(static_cast<double>(x[i]))));
      m = __longlong_as_double(static_cast<long long>(reduce(b, true)));
    }
  } else {
    m = static_cast<double>(__uint_as_float(key));
  }
  if (!(m > 0)) return r;
  const int E = crt::arith::line_exponent_of_max(m);
  unsigned long long s2 = 0;
  unsigned s1 = 0;  // at most R 2^16
#pragma unroll
  for (int i = 0; i < R; ++i) {  // padding elements are 0: ceil_mag(0) = 0
    const unsigned q = ceil_mag16(static_cast<double>(x[i]), 16 - E);
    s2 += static_cast<unsigned long long>(q) * q;
    s1 += q;
  }
  s2 = reduce(s2, false);
  r.active = true;
  r.c = crt::arith::ceil_log2_u64(s2);
  r.base = 16 - E;
  if (want_s1) r.s1 = reduce(s1, false);
  return r;
}

/// line_stats over a whole block (kLineThreads threads): the rule kernels that give a line a block.
template <class T, int R>
__device__ __forceinline__ LineStats block_line_stats(const T (&x)[R], bool want_s1) {
  return line_stats(x, want_s1, BlockReduce{});
}

/// Elements per thread that line_rule_block keeps in registers between its two sweeps (k <= 8192
/// with 256 threads): the lines of the resident blocks do not stay in L2, so a second read would
/// come from memory (session 19: 0.36 ms at 8192^3 against 0.17 for one read).
constexpr int kLineCached = 32;

/// The rule of one line whose team (a block or a warp: `reduce` spans it) holds it in registers:
/// member t (0 <= t < kTeam) keeps positions t + kTeam i, i < R (zeros past k; all loads in flight
/// before the first use), then line_stats; member 0 stores the line's results, every member adds its
/// NaN/Inf count.
template <class T, int R, int kTeam, class Reduce>
__device__ __forceinline__ void cached_line_rule(const T* src, std::int64_t k, std::int64_t ks, unsigned t, std::int64_t line,
                                                 const CrtLines& out, Reduce reduce) {
  T kept[R];
#pragma unroll
  for (int i = 0; i < R; ++i) {
    const std::int64_t kk = t + std::int64_t{i} * kTeam;
    kept[i] = kk < k ? src[kk * ks] : T(0);
  }
  const LineStats r = line_stats(kept, out.s1 != nullptr, reduce);
  if (t == 0) store_line_stats(out, line, r);
  if (r.nonfinite) atomicAdd(out.nonfinite, r.nonfinite);
}

/// Lines along k (k less strided than the lines): one block per line. kCached: k <= kLineThreads x
/// kLineCached, the elements read once; else read again for s2.
template <class T, bool kCached>
__global__ void __launch_bounds__(kLineThreads) line_rule_block(const T* __restrict__ data, std::int64_t k,
                                                                std::int64_t ls, std::int64_t ks, CrtLines out) {
  const std::int64_t line = blockIdx.x;
  const T* src = data + line * ls;
  if constexpr (kCached) {
    cached_line_rule<T, kLineCached, kLineThreads>(src, k, ks, threadIdx.x, line, out, BlockReduce{});
    return;
  }
  unsigned long long mx = 0, nf = 0;
  for (std::int64_t kk = threadIdx.x; kk < k; kk += kLineThreads) {
    const double a = fabs(static_cast<double>(src[kk * ks]));
    if (!(a <= DBL_MAX)) ++nf;
    else mx = dbits(a) > mx ? dbits(a) : mx;
  }
  mx = block_reduce(mx, true);
  nf = block_reduce(nf, false);
  const double m = __longlong_as_double(static_cast<long long>(mx));
  std::uint64_t s2 = 0, s1 = 0;
  const int E = m > 0 ? crt::arith::line_exponent_of_max(m) : 0;
  if (m > 0 && nf == 0) {
    for (std::int64_t kk = threadIdx.x; kk < k; kk += kLineThreads) {
      const unsigned q = ceil_mag16(static_cast<double>(src[kk * ks]), 16 - E);
      s2 += static_cast<unsigned long long>(q) * q;
      s1 += q;
    }
  }
  s2 = block_reduce(s2, false);
  if (out.s1 != nullptr) s1 = block_reduce(s1, false);
  if (threadIdx.x == 0) {
    const bool active = m > 0 && nf == 0;
    store_line_stats(out, line,
                     LineStats{nf == 0, active, active ? crt::arith::ceil_log2_u64(s2) : 0, active ? 16 - E : 0,
                               active ? s1 : 0, nf});
    if (nf) atomicAdd(out.nonfinite, nf);
  }
}

/// Lines along k no longer than 32 R (the dispatch takes R = 4, 8, 16 or 32, the smallest that
/// holds k <= 1024): a warp per line, kLineThreads / 32 lines per block, the line's elements read
/// once into registers (lane L holds positions L + 32 i) and the rule's sums over the warp's
/// shuffles (line_stats with WarpReduce): one block per line left 30 of each thread's 32 registers
/// empty on qsim's 512-real lines and read them at 0.37 TB/s (docs/perf-notes.md, "Session 28").
template <class T, int R>
__global__ void __launch_bounds__(kLineThreads) line_rule_warp(const T* __restrict__ data, std::int64_t lines,
                                                               std::int64_t k, std::int64_t ls, std::int64_t ks,
                                                               CrtLines out) {
  const std::int64_t line = std::int64_t{blockIdx.x} * (kLineThreads / 32) + threadIdx.x / 32;
  if (line >= lines) return;  // the whole warp: lines are warp-uniform
  cached_line_rule<T, R, 32>(data + line * ls, k, ks, threadIdx.x & 31u, line, out, WarpReduce{});
}

/// The longest line line_rule_warp takes: 32 lanes x 32 elements.
constexpr std::int64_t kWarpLineMaxK = 32 * 32;

/// line_stats over one thread (a team of one: nothing to reduce).
struct ThreadReduce {
  __device__ __forceinline__ unsigned long long operator()(unsigned long long v, bool) const { return v; }
};

/// Lines along k no longer than kThreadLineMaxK: a thread per line, the line's k <= R elements in its
/// registers. A warp per line left 24 of 32 lanes idle on the 8-real lines of qsim's 2-qubit
/// blocks, 2^26 of them in a 28-qubit state (docs/perf-notes.md, "Session 30").
template <class T, int R>
__global__ void __launch_bounds__(kLineThreads) line_rule_thread(const T* __restrict__ data, std::int64_t lines,
                                                                 std::int64_t k, std::int64_t ls, std::int64_t ks,
                                                                 CrtLines out) {
  const std::int64_t line = std::int64_t{blockIdx.x} * kLineThreads + threadIdx.x;
  if (line >= lines) return;
  cached_line_rule<T, R, 1>(data + line * ls, k, ks, 0, line, out, ThreadReduce{});
}

/// The longest line line_rule_thread takes.
constexpr std::int64_t kThreadLineMaxK = 16;

/// Lines contiguous (k more strided): a thread per line and k segment, reads coalesced across the
/// threads; the segments meet through atomics on scratch arrays (max |x| as bits, s2 as a sum: both
/// order independent), and line_rule_finish derives c and base.
constexpr int kSegK = 128;  // k positions per thread

template <class T>
__global__ void __launch_bounds__(kLineThreads) line_max_seg(const T* __restrict__ data, std::int64_t lines,
                                                             std::int64_t k, std::int64_t ls, std::int64_t ks,
                                                             unsigned long long* max_bits, CrtLines out) {
  const std::int64_t line = blockIdx.x * std::int64_t{kLineThreads} + threadIdx.x;
  if (line >= lines) return;
  const std::int64_t k0 = blockIdx.y * std::int64_t{kSegK}, k1 = k0 + kSegK < k ? k0 + kSegK : k;
  const T* src = data + line * ls;
  double m = 0;
  unsigned long long nf = 0;
  for (std::int64_t kk = k0; kk < k1; ++kk) {
    const double a = fabs(static_cast<double>(src[kk * ks]));
    if (!(a <= DBL_MAX)) ++nf;
    else m = a > m ? a : m;
  }
  if (m > 0) atomicMax(max_bits + line, dbits(m));
  if (nf) atomicAdd(out.nonfinite, nf);
}

template <class T>
__global__ void __launch_bounds__(kLineThreads) line_s2_seg(const T* __restrict__ data, std::int64_t lines,
                                                            std::int64_t k, std::int64_t ls, std::int64_t ks,
                                                            const unsigned long long* max_bits,
                                                            unsigned long long* s2_sum,
                                                            unsigned long long* s1_sum) {
  const std::int64_t line = blockIdx.x * std::int64_t{kLineThreads} + threadIdx.x;
  if (line >= lines) return;
  const double m = __longlong_as_double(static_cast<long long>(max_bits[line]));
  if (!(m > 0)) return;
  const int E = crt::arith::line_exponent_of_max(m);
  const std::int64_t k0 = blockIdx.y * std::int64_t{kSegK}, k1 = k0 + kSegK < k ? k0 + kSegK : k;
  const T* src = data + line * ls;
  unsigned long long s2 = 0;
  unsigned s1 = 0;  // at most kSegK 2^16
  for (std::int64_t kk = k0; kk < k1; ++kk) {
    const unsigned q = ceil_mag16(static_cast<double>(src[kk * ks]), 16 - E);
    s2 += static_cast<unsigned long long>(q) * q;
    s1 += q;
  }
  if (s2) atomicAdd(s2_sum + line, static_cast<unsigned long long>(s2));
  if (s1) atomicAdd(s1_sum + line, static_cast<unsigned long long>(s1));
}

__global__ void line_rule_finish(std::int64_t lines, const unsigned long long* max_bits,
                                 const unsigned long long* s2_sum, const unsigned long long* s1_sum,
                                 CrtLines out) {
  const std::int64_t line = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x;
  if (line >= lines) return;
  const double m = __longlong_as_double(static_cast<long long>(max_bits[line]));
  const bool active = m > 0;  // NaN/Inf lines: the caller falls back before using these
  out.active[line] = active;
  out.c[line] = active ? crt::arith::ceil_log2_u64(s2_sum[line]) : 0;
  out.base[line] = active ? 16 - crt::arith::line_exponent_of_max(m) : 0;
  if (out.s1 != nullptr) out.s1[line] = active ? s1_sum[line] : 0;
}

/// crt_magnitudes: one thread per output byte position j < kp of a line (grid-stride).
template <class T>
__global__ void magnitudes_kernel(const T* __restrict__ data, std::int64_t lines, std::int64_t k, std::int64_t ls,
                                  std::int64_t ks, CrtLines in, std::int64_t kp, int layout,
                                  std::int8_t* __restrict__ out) {
  const std::int64_t total = lines * kp, pitch = (layout == 0 ? 2 : 3) * kp;
  for (std::int64_t t = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; t < total;
       t += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t line = t / kp, j = t - line * kp;
    // layout 2: output line 2s + 1 reads source line s with each (re, im) pair swapped
    const std::int64_t src = layout == 2 ? line >> 1 : line, pos = layout == 2 ? j ^ (line & 1) : j;
    int hi = 0, lo = 0;
    if (j < k && in.active[line])
      crt::arith::magnitude_levels(static_cast<double>(data[src * ls + pos * ks]), 16 - in.base[line], hi, lo);
    std::int8_t* o = out + line * pitch + j;
    o[0] = static_cast<std::int8_t>(hi);
    o[kp] = static_cast<std::int8_t>(lo);
    if (layout != 0) o[2 * kp] = static_cast<std::int8_t>(hi);
  }
}

__global__ void pair_lines_kernel(CrtLines in, std::int64_t lines, CrtLines out) {
  const std::int64_t t = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x;
  if (t >= 2 * lines) return;
  const std::int64_t s = t >> 1;
  out.c[t] = in.c[s];
  out.base[t] = in.base[s];
  out.active[t] = in.active[s];
  out.s1[t] = in.s1[s];
}

__global__ void line_exponents_kernel(CrtLines in, std::int64_t lines, int Lb_side, int* e) {
  const std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x;
  if (i < lines) e[i] = in.active[i] ? crt::arith::scale_exponent(Lb_side, in.c[i], in.base[i]) : 0;
}

__global__ void split_counts_kernel(CrtLines in, std::int64_t lines, unsigned long long* counts) {
  const std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x;
  const bool active = i < lines && in.active[i] != 0;
  const bool odd = active && (in.c[i] & 1) != 0;
  const unsigned a = __ballot_sync(0xffffffffu, active), o = __ballot_sync(0xffffffffu, odd);
  if ((threadIdx.x & 31) == 0) {
    if (o) atomicAdd(counts, static_cast<unsigned long long>(__popc(o)));
    if (a) atomicAdd(counts + 1, static_cast<unsigned long long>(__popc(a)));
  }
}

/// The FP64 groups of a real residue pass (crt_arith::residue_pass_split): at most kFp64Groups of at
/// most kFp64GroupMax moduli; the rest, at most kMaxIntModuli, through the integer limbs.
constexpr int kFp64GroupMax = crt::arith::kResidueFp64GroupMax;
constexpr int kFp64Groups = crt::arith::kResidueFp64Groups;
constexpr int kMaxIntModuli = crt::arith::kResidueIntModuliMax;

/// One group of the residue pass's FP64 moduli (crt_arith::reduce_by_group, residue_word_fp64):
/// moduli first .. first + size - 1 of the table (odd, 2 <= size <= kFp64GroupMax), their product M
/// (exact, below 2^48) and RN(1 / M), each modulus and RN(1 / p) as doubles: copies of the writer's
/// mod[first + j], indexed here by the unrolled j so that they stay constant-bank operands (mod[] at a
/// run-time first would be an indexed parameter load per use).
struct Fp64Group {
  double M, inv_M;
  double p[kFp64GroupMax], inv_p[kFp64GroupMax];
  int first, size;
};

/// What the residue kernels need: the panel layout (k chunks of kc padded to kcp, span = nchunks
/// kcp positions per line, panel = lines x span bytes per modulus), the line exponents, the modulus
/// count and tables, the output. Complex operands in the 3M form (crt_residues_complex3m): the
/// positions are the interleaved (re, im) of span / 2 complex elements, each panel holds lines x
/// span / 2 bytes, and three panel sets (re, im, re + im) lie part_stride bytes apart.
struct CrtResidueWriter {
  std::int64_t span;  // nchunks * kcp
  ChunkedK chunks;
  std::int64_t panel;
  const int* e;
  int n;
  std::int8_t* out;
  std::int64_t part_stride;  // complex 3M: bytes between the re, im and re + im panel sets
  crt::arith::ModulusF64 mod[crt::kMaxModuli];    // residue()'s constants (scaled integers beyond 2^84)
  crt::arith::ModulusU32 mod_u[crt::kMaxModuli];  // Barrett and limb constants (crt_arith::modulus_u32)
  /// Moduli [0, n_int) through the integer limbs (the IMAD pipe; n_int <= kMaxIntModuli), [n_int, n)
  /// through `groups` FP64 groups (the FP64 pipe, idle otherwise); both give the canonical residue,
  /// so the split changes no byte (plan_fp64_groups). Real operands and complex 3M alike (the latter
  /// since session 30: docs/perf-notes.md).
  int n_int;
  int groups;
  Fp64Group group[kFp64Groups];
  /// Real operands: groups of 16 whose largest scaled integer is below this take the split above
  /// (reduce_by_group holds for |v| < 2^51 M, its result below 2^48 for |v| < 2^84): 2^84 capped by
  /// 2^51 times the smallest group product; beyond, every modulus through write_wide.
  double fp64_limit;

  /// Every modulus's residues of a quad: the real pass's fallback for groups at or above fp64_limit
  /// (write_residues16; not reached with the table's moduli). Below 2^84 five integer limbs per
  /// element and Barrett per modulus (crt_arith::residue_wide); beyond, residue().
  __device__ __forceinline__ void write_wide(std::int8_t* dst, const double (&v)[4], double amax) const {
    if (amax < 0x1p84) {
      crt::arith::WideLimbs a[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) a[i] = crt::arith::wide_limbs(v[i]);
      for (int l = 0; l < n; ++l) {
        const crt::arith::ModulusU32 m = mod_u[l];
        std::uint32_t b[4];
#pragma unroll
        for (int e = 0; e < 4; ++e) b[e] = static_cast<std::uint32_t>(crt::arith::residue_wide(a[e], m)) & 0xFFu;
        *reinterpret_cast<std::uint32_t*>(dst + l * panel) = b[0] | (b[1] << 8) | (b[2] << 16) | (b[3] << 24);
      }
    } else {
      for (int l = 0; l < n; ++l) {
        char4 r;
        r.x = static_cast<signed char>(crt::arith::residue(v[0], mod[l]));
        r.y = static_cast<signed char>(crt::arith::residue(v[1], mod[l]));
        r.z = static_cast<signed char>(crt::arith::residue(v[2], mod[l]));
        r.w = static_cast<signed char>(crt::arith::residue(v[3], mod[l]));
        *reinterpret_cast<char4*>(dst + l * panel) = r;
      }
    }
  }
};

constexpr int kResiduePositions = 16;
constexpr int kResidueThreads = 256;
/// Resident blocks per SM the pass kernels are compiled for (__launch_bounds__): 2 (16 warps, up to 128
/// registers). Tried at 3 (80 registers): the integer-only lines kernel gained 5.5 % from the warps,
/// but with the FP64 groups beside the limbs the compiler rematerialises the limbs per modulus (139
/// instructions per modulus of 16 elements against 89), and the transposing kernel of then (shared-memory
/// tiles) lost 4.7 % (docs/perf-notes.md "Session 24").
constexpr int kLinesBlocksPerSm = 2;
constexpr int kColumnsBlocksPerSm = 2;

/// Stores H residue bytes as one H-byte store (H = 16, 8, 4 or 2; dst H-byte aligned).
template <int H>
__device__ __forceinline__ void store_bytes(std::int8_t* dst, const int (&b)[H]) {
  auto pack = [&](int q) {
    return (static_cast<std::uint32_t>(b[4 * q]) & 0xFFu) | ((static_cast<std::uint32_t>(b[4 * q + 1]) & 0xFFu) << 8) |
           ((static_cast<std::uint32_t>(b[4 * q + 2]) & 0xFFu) << 16) | (static_cast<std::uint32_t>(b[4 * q + 3]) << 24);
  };
  if constexpr (H == 16) *reinterpret_cast<uint4*>(dst) = make_uint4(pack(0), pack(1), pack(2), pack(3));
  else if constexpr (H == 8) *reinterpret_cast<uint2*>(dst) = make_uint2(pack(0), pack(1));
  else if constexpr (H == 4) *reinterpret_cast<std::uint32_t*>(dst) = pack(0);
  else *reinterpret_cast<std::uint16_t*>(dst) =
      static_cast<std::uint16_t>((static_cast<std::uint32_t>(b[0]) & 0xFFu) | ((static_cast<std::uint32_t>(b[1]) & 0xFFu) << 8));
}

/// Writes the residues r[0..R) of modulus l for the R panel positions from `pos` of one line
/// (`line_out` = the line's start in panel 0; pos % R == 0). Real: one R-byte store in panel l.
/// kComplex3M: the R positions are R / 2 complex elements (re, im interleaved); their re, im and
/// re + im residues (crt_arith::sym_add_residues) go to panels l of the three sets, R / 2 bytes each.
template <bool kComplex3M, int R>
__device__ __forceinline__ void store_run(const CrtResidueWriter& w, std::int8_t* line_out, std::int64_t pos, int l,
                                          const int (&r)[R], const crt::arith::ModulusU32& m) {
  if constexpr (!kComplex3M) {
    store_bytes<R>(line_out + pos + l * w.panel, r);
  } else {
    constexpr int H = R / 2;
    int re[H], im[H], sum[H];
#pragma unroll
    for (int e = 0; e < H; ++e) {
      re[e] = r[2 * e];
      im[e] = r[2 * e + 1];
      sum[e] = crt::arith::sym_add_residues(re[e], im[e], m);
    }
    std::int8_t* dst = line_out + pos / 2 + l * w.panel;
    store_bytes<H>(dst, re);
    store_bytes<H>(dst + w.part_stride, im);
    store_bytes<H>(dst + 2 * w.part_stride, sum);
  }
}

/// crt_arith's reduction of one element's limbs: residue_limbs (three limbs, below 2^63) or
/// residue_wide (five limbs, below 2^84).
__device__ __forceinline__ int limb_residue(const crt::arith::Limbs23& a, const crt::arith::ModulusU32& m) {
  return crt::arith::residue_limbs(a, m);
}
__device__ __forceinline__ int limb_residue(const crt::arith::WideLimbs& a, const crt::arith::ModulusU32& m) {
  return crt::arith::residue_wide(a, m);
}

/// The integer residues of P consecutive panel positions (a: their elements' limbs) for moduli l <
/// n_used (kBound >= n_used: the unrolled loop's length; the constants are constant-bank operands).
/// Real: packed quad by quad as the residues come (store_run's packing after all 16 residues measured
/// 2 % slower: docs/perf-notes.md, "Session 17"), one P-byte store per panel at dst (span and panel
/// multiples of 16: aligned); complex 3M: store_run's three from position pos.
template <bool kComplex3M, int kBound, int P, class Limbs>
__device__ __forceinline__ void limb_modulus_loop(const CrtResidueWriter& w, const Limbs (&a)[P], int n_used,
                                                  std::int8_t* dst, std::int8_t* line_out, std::int64_t pos) {
  static_assert(P == 16 || P == 8, "16 or 8 positions");
#pragma unroll
  for (int l = 0; l < kBound; ++l) {
    if (l < n_used) {
      const crt::arith::ModulusU32 m = w.mod_u[l];
      if constexpr (!kComplex3M) {
        std::uint32_t word[P / 4];
#pragma unroll
        for (int q = 0; q < P / 4; ++q) {
          std::uint32_t b[4];
#pragma unroll
          for (int e = 0; e < 4; ++e) b[e] = static_cast<std::uint32_t>(limb_residue(a[4 * q + e], m)) & 0xFFu;
          word[q] = b[0] | (b[1] << 8) | (b[2] << 16) | (b[3] << 24);
        }
        if constexpr (P == 16)
          *reinterpret_cast<uint4*>(dst + l * w.panel) = make_uint4(word[0], word[1], word[2], word[3]);
        else
          *reinterpret_cast<uint2*>(dst + l * w.panel) = make_uint2(word[0], word[1]);
      } else {
        int r[P];
#pragma unroll
        for (int i = 0; i < P; ++i) r[i] = limb_residue(a[i], m);
        store_run<true>(w, line_out, pos, l, r, m);
      }
    }
  }
}

/// The integer-limb residues (crt_arith::residue_limbs, scaled integers below 2^63) of the 16
/// positions for moduli l < n_used (limb_modulus_loop).
template <bool kComplex3M, int kBound>
__device__ __forceinline__ void limb_residues16(const CrtResidueWriter& w, const double (&v)[kResiduePositions],
                                                int n_used, std::int8_t* dst, std::int8_t* line_out,
                                                std::int64_t ko0) {
  crt::arith::Limbs23 a[kResiduePositions];
#pragma unroll
  for (int i = 0; i < kResiduePositions; ++i) a[i] = crt::arith::limbs23(static_cast<long long>(v[i]));
  limb_modulus_loop<kComplex3M, kBound>(w, a, n_used, dst, line_out, ko0);
}

/// The wide-limb residues (crt_arith::residue_wide, exact below 2^84; taken by a whole warp where one
/// of its lanes holds a scaled integer from 2^63: N >= 17 on lines with few large elements, phi = 4,
/// and N >= 18 at every phi) for moduli l < n_used. At phi = 4 nearly every warp holds such a group,
/// so this is not a rare branch: two halves of 8 positions (8 x 5 limb registers),
/// each through limb_modulus_loop (one 8-byte store per panel). One copy of the code: the half's
/// values picked from registers by selects (a run-time index into v would move it to local memory).
template <bool kComplex3M, int kBound>
__device__ __forceinline__ void wide_residues16(const CrtResidueWriter& w, const double (&v)[kResiduePositions],
                                                int n_used, std::int8_t* dst, std::int8_t* line_out,
                                                std::int64_t ko0) {
#pragma unroll 1
  for (int h = 0; h < 2; ++h) {
    crt::arith::WideLimbs a[8];
#pragma unroll
    for (int i = 0; i < 8; ++i) a[i] = crt::arith::wide_limbs(h == 0 ? v[i] : v[8 + i]);
    limb_modulus_loop<kComplex3M, kBound>(w, a, n_used, dst + 8 * h, line_out, ko0 + 8 * h);
  }
}

/// The FP64 groups' residues of the 16 positions (|v| < w.fp64_limit): per group one reduction by M per
/// element (crt_arith::reduce_by_group), then per modulus three FP64 operations and an add per element
/// (residue_word_fp64, whose low word is the symmetric residue). Real operands: the low bytes packed by
/// byte permutes, one 16-byte store at dst; complex 3M: store_run's Re, Im and Re + Im panels of the
/// line from position pos.
template <bool kComplex3M>
__device__ __forceinline__ void fp64_residues16(const CrtResidueWriter& w, const double (&v)[kResiduePositions],
                                                std::int8_t* dst, std::int8_t* line_out, std::int64_t pos) {
#pragma unroll
  for (int g = 0; g < kFp64Groups; ++g) {
    if (g < w.groups) {
      const Fp64Group& G = w.group[g];
      double r[kResiduePositions];
#pragma unroll
      for (int i = 0; i < kResiduePositions; ++i) r[i] = crt::arith::reduce_by_group(v[i], G.M, G.inv_M);
#pragma unroll
      for (int j = 0; j < kFp64GroupMax; ++j) {
        if (j < G.size) {
          if constexpr (!kComplex3M) {
            std::uint32_t word[4];
#pragma unroll
            for (int q = 0; q < 4; ++q) {
              std::uint32_t b[4];
#pragma unroll
              for (int e = 0; e < 4; ++e) b[e] = crt::arith::residue_word_fp64(r[4 * q + e], G.p[j], G.inv_p[j]);
              word[q] = __byte_perm(__byte_perm(b[0], b[1], 0x0040), __byte_perm(b[2], b[3], 0x0040), 0x5410);
            }
            *reinterpret_cast<uint4*>(dst + (G.first + j) * w.panel) = make_uint4(word[0], word[1], word[2], word[3]);
          } else {
            int res[kResiduePositions];
#pragma unroll
            for (int i = 0; i < kResiduePositions; ++i)
              res[i] = static_cast<int>(crt::arith::residue_word_fp64(r[i], G.p[j], G.inv_p[j]));
            store_run<true>(w, line_out, pos, G.first + j, res, w.mod_u[G.first + j]);
          }
        }
      }
    }
  }
}

/// The residues of the 16 panel positions ko0..ko0+15 of `line` (ko0 % 16 == 0; x: their elements, 0 for
/// padding), scaled by 2^s (s: the line's exponent, e[line]) and rounded to nearest
/// (crt_arith::scaled_integer). Below w.fp64_limit (every group
/// of the table's distributions): moduli [n_int, n) on the FP64 pipe (fp64_residues16), [0, n_int) on the
/// integer limbs (limb_residues16 where the warp's groups are all below 2^63, else wide_residues16),
/// whose loops are unrolled to kMaxIntModuli only (code size: the kernel's instruction fetch stalled at 20). Groups at or above
/// fp64_limit: every modulus per quad through write_wide / residue(). Not reached with the table's moduli: the scaled integers stay below
/// 2^(floor((Lb - 31) / 2) + 16), about 2^(4N), while fp64_limit is at least 2^74 (N = 6, 12, 13) and 2^84
/// from N = 17 on; kept for completeness.
template <bool kComplex3M, class T>
__device__ __forceinline__ void write_residues16(const CrtResidueWriter& w, std::int64_t line, int s, std::int64_t ko0,
                                                 const T (&x)[kResiduePositions]) {
  const bool pow2_ok = s >= -1022 && s <= 1023;  // then x 2^s as a product: ldexp's value
  const double scale = __longlong_as_double(static_cast<long long>(pow2_ok ? s + 1023 : 1023) << 52);
  double v[kResiduePositions], amax = 0;
#pragma unroll
  for (int i = 0; i < kResiduePositions; ++i) {
    v[i] = pow2_ok ? rint(static_cast<double>(x[i]) * scale) : crt::arith::scaled_integer(static_cast<double>(x[i]), s);
    amax = fmax(amax, fabs(v[i]));
  }
  std::int8_t* dst = w.out + line * w.span + ko0;  // real operands: this group's bytes in panel 0
  [[maybe_unused]] std::int8_t* const line_out = w.out + line * (w.span / 2);  // complex 3M: the line in panel 0
  if (amax < w.fp64_limit) {  // the FP64 groups beside the integer limbs
    fp64_residues16<kComplex3M>(w, v, dst, line_out, ko0);
    // Warp-uniform: where one lane needs the wide limbs, the warp takes them (exact for every |v| <
    // 2^84, so the same bytes) rather than running both loops one after the other, as a per-lane
    // branch did on nearly every warp at N >= 17, phi = 4 (docs/perf-notes.md, "Session 35").
    if (__all_sync(__activemask(), amax < 0x1p63))
      limb_residues16<kComplex3M, kMaxIntModuli>(w, v, w.n_int, dst, line_out, ko0);
    else
      wide_residues16<kComplex3M, kMaxIntModuli>(w, v, w.n_int, dst, line_out, ko0);
    return;
  }
#pragma unroll 1
  for (int q = 0; q < 4; ++q) {
    double vq[4];
#pragma unroll
    for (int e = 0; e < 4; ++e) vq[e] = q == 0 ? v[e] : q == 1 ? v[4 + e] : q == 2 ? v[8 + e] : v[12 + e];
    if constexpr (!kComplex3M) {
      w.write_wide(dst + 4 * q, vq, fmax(fmax(fabs(vq[0]), fabs(vq[1])), fmax(fabs(vq[2]), fabs(vq[3]))));
    } else {
      for (int l = 0; l < w.n; ++l) {
        int r[4];
#pragma unroll
        for (int e = 0; e < 4; ++e) r[e] = crt::arith::residue(vq[e], w.mod[l]);
        store_run<true>(w, line_out, ko0 + 4 * q, l, r, w.mod_u[l]);
      }
    }
  }
}

/// The output policies of the two pass kernels below. Each holds the panel layout (span positions
/// per line, the k chunks) and writes the 16 panel positions ko0..ko0+15 of one line from their
/// elements x (0 for padding): ResidueSink the N residue panels (write_residues16), MagnitudeSink the
/// certificate's magnitude panels.
template <bool kComplex3M>
struct ResidueSink : CrtResidueWriter {
  template <class T>
  __device__ __forceinline__ void write16(std::int64_t line, std::int64_t ko0, const T (&x)[kResiduePositions]) const {
    write_residues16<kComplex3M>(*this, line, e[line], ko0, x);
  }
};

/// crt_arith::magnitude_levels of 16 elements of `line` with E = 16 - base[line]; zeros for an
/// inactive line (and for the zeros of the padding).
template <class T>
__device__ __forceinline__ void levels16(bool on, int E, const T (&x)[kResiduePositions], int (&hi)[kResiduePositions],
                                         int (&lo)[kResiduePositions]) {
#pragma unroll
  for (int i = 0; i < kResiduePositions; ++i) {
    hi[i] = 0;
    lo[i] = 0;
    if (on) crt::arith::magnitude_levels(static_cast<double>(x[i]), E, hi[i], lo[i]);
  }
}
template <class T>
__device__ __forceinline__ void line_levels16(const int* base, const int* active, std::int64_t line,
                                              const T (&x)[kResiduePositions], int (&hi)[kResiduePositions],
                                              int (&lo)[kResiduePositions]) {
  levels16(active[line] != 0, 16 - base[line], x, hi, lo);
}

/// [hi | lo] (copies = 2) or [hi | lo | hi] (copies = 3) of 16 positions from o, the parts span bytes
/// apart: one 16-byte store each (o and span multiples of 16).
__device__ __forceinline__ void store_levels16(std::int8_t* o, std::int64_t span, int copies,
                                               const int (&hi)[kResiduePositions], const int (&lo)[kResiduePositions]) {
  store_bytes<kResiduePositions>(o, hi);
  store_bytes<kResiduePositions>(o + span, lo);
  if (copies == 3) store_bytes<kResiduePositions>(o + 2 * span, hi);
}

/// crt_magnitudes' layouts 0 ([hi | lo], copies = 2) and 1 ([hi | lo | hi], copies = 3): span = kp
/// (a multiple of 16), one chunk.
struct MagnitudeSink {
  std::int64_t span;
  ChunkedK chunks;
  const int* base;
  const int* active;
  int copies;
  std::int8_t* out;

  template <class T>
  __device__ __forceinline__ void write16(std::int64_t line, std::int64_t ko0, const T (&x)[kResiduePositions]) const {
    write_levels16(line, active[line] != 0, 16 - base[line], ko0, x);
  }
  /// The 16 positions' levels of `line` at E (zeros unless `on`).
  template <class T>
  __device__ __forceinline__ void write_levels16(std::int64_t line, bool on, int E, std::int64_t ko0,
                                                 const T (&x)[kResiduePositions]) const {
    int hi[kResiduePositions], lo[kResiduePositions];
    levels16(on, E, x, hi, lo);
    store_levels16(out + line * (copies * span) + ko0, span, copies, hi, lo);
  }
};

/// crt_magnitudes' layout 2 (the complex real embedding's y): the pass runs over the source lines s
/// (k interleaved (re, im) reals each) and writes output lines 2s ([hi | lo | hi] of the positions
/// as read) and 2s + 1 (each (re, im) pair swapped) from the same 16 elements; span = kp.
struct MagnitudePairSink {
  std::int64_t span;
  ChunkedK chunks;
  const int* base;
  const int* active;
  std::int8_t* out;

  template <class T>
  __device__ __forceinline__ void write16(std::int64_t s, std::int64_t ko0, const T (&x)[kResiduePositions]) const {
    T swapped[kResiduePositions];
#pragma unroll
    for (int i = 0; i < kResiduePositions; ++i) swapped[i] = x[i ^ 1];
    int hi[kResiduePositions], lo[kResiduePositions];
    line_levels16(base, active, 2 * s, x, hi, lo);
    store_levels16(out + 2 * s * (3 * span) + ko0, span, 3, hi, lo);
    line_levels16(base, active, 2 * s + 1, swapped, hi, lo);
    store_levels16(out + (2 * s + 1) * (3 * span) + ko0, span, 3, hi, lo);
  }
};

/// The 16 consecutive elements at src (16-byte aligned) into x[0..15]: 16-byte loads, all in flight.
template <class T>
__device__ __forceinline__ void load16_vec(const T* src, T* x) {
  if constexpr (sizeof(T) == 8) {
#pragma unroll
    for (int i = 0; i < kResiduePositions / 2; ++i) {
      const double2 q = __ldg(reinterpret_cast<const double2*>(src) + i);
      x[2 * i] = q.x;
      x[2 * i + 1] = q.y;
    }
  } else {
#pragma unroll
    for (int i = 0; i < kResiduePositions / 4; ++i) {
      const float4 q = __ldg(reinterpret_cast<const float4*>(src) + i);
      x[4 * i] = q.x;
      x[4 * i + 1] = q.y;
      x[4 * i + 2] = q.z;
      x[4 * i + 3] = q.w;
    }
  }
}

/// The pass for operands read along k (k less strided than the lines): one thread per line
/// and 16 consecutive panel positions, consecutive threads on consecutive groups of one line, no
/// shared memory and no barrier. Every thread has its 16 loads in flight (16-byte vectors where
/// aligned) before it uses one, then the sink's write16 (residues: 512 contiguous bytes per warp and
/// modulus).
template <class T, class Sink>
__global__ void __launch_bounds__(kResidueThreads, kLinesBlocksPerSm)
    residue_lines_kernel(const T* __restrict__ data, std::int64_t lines, std::int64_t ls, std::int64_t ks,
                         bool vec, Sink w) {
  const std::int64_t groups = w.span / kResiduePositions;
  const std::int64_t items = lines * groups;
  for (std::int64_t it = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; it < items;
       it += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t line = it / groups, g = it - line * groups;
    const std::int64_t ko0 = g * kResiduePositions;
    const T* src = data + line * ls;
    T x[kResiduePositions];
    if (vec && w.chunks.one_chunk && ko0 + kResiduePositions <= w.chunks.k) {
      load16_vec(src + ko0, x);
    } else {
#pragma unroll
      for (int i = 0; i < kResiduePositions; ++i) {
        const std::int64_t kk = w.chunks.source(ko0 + i);
        x[i] = kk >= 0 ? __ldg(src + kk * ks) : T(0);
      }
    }
    w.write16(line, ko0, x);
  }
}

/// The pass for operands whose lines are contiguous (lines less strided than k, e.g. a column-major
/// op(A)): each thread reads its 16 positions of one line straight from memory, as the lines kernel
/// does, with the lanes of a warp on kColumnsWarpLines consecutive lines (lane = 2 group + line): a
/// warp covers 2 lines x 256 positions and a block of 8 warps 16 lines x 256 positions. Each store
/// instruction writes 2 runs of 256 contiguous bytes per modulus; each load instruction reads 16 runs
/// of 2 elements, whose sectors the block's other warps read too (through L1). No shared memory and no
/// barrier. Measured against 8 and 4 lines per warp (runs of 64 and 128 bytes: 1.3 % more DRAM writes
/// with 64) and 1 (docs/perf-notes.md, "Session 26").
constexpr int kColumnsWarpLines = 2;
constexpr int kColumnsTileLines = 8 * kColumnsWarpLines;                                  // per block
constexpr int kColumnsTilePositions = 32 / kColumnsWarpLines * kResiduePositions;         // per block

template <class T, class Sink>
__global__ void __launch_bounds__(kResidueThreads, kColumnsBlocksPerSm)
    residue_columns_kernel(const T* __restrict__ data, std::int64_t lines, std::int64_t ls, std::int64_t ks,
                           Sink w) {
  static_assert(kResidueThreads == 256, "8 warps per block");
  const std::int64_t line_tiles = (lines + kColumnsTileLines - 1) / kColumnsTileLines;
  const std::int64_t tiles = line_tiles * ((w.span + kColumnsTilePositions - 1) / kColumnsTilePositions);
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const int group = lane / kColumnsWarpLines, my_line = warp * kColumnsWarpLines + lane % kColumnsWarpLines;
  for (std::int64_t id = blockIdx.x; id < tiles; id += gridDim.x) {
    const std::int64_t line = (id % line_tiles) * kColumnsTileLines + my_line;
    const std::int64_t ko0 = (id / line_tiles) * kColumnsTilePositions + group * kResiduePositions;
    if (line >= lines || ko0 >= w.span) continue;
    const T* src = data + line * ls;
    T x[kResiduePositions];
#pragma unroll
    for (int i = 0; i < kResiduePositions; ++i) {  // all loads in flight before the first use
      const std::int64_t kk = w.chunks.source(ko0 + i);
      x[i] = kk >= 0 ? __ldg(src + kk * ks) : T(0);
    }
    w.write16(line, ko0, x);
  }
}

/// Groups of 16 positions per thread of line_rule_pass_kernel: 2 x 16 x 256 threads = 8192 positions.
constexpr int kFusedGroups = 2;
constexpr std::int64_t kFusedMaxPositions = std::int64_t{kFusedGroups} * kResiduePositions * kLineThreads;

/// line_rule_pass_kernel's outputs once a line's rule is known. FusedResidues: the line's exponent
/// (crt_line_exponents' value, into e_out) and its N residue panels (write_residues16 at it); with
/// kComplex3M the line's interleaved re / im reals and their Re, Im and Re + Im panels.
template <bool kComplex3M>
struct FusedResidues {
  ResidueSink<kComplex3M> w;
  int Lb;  ///< Lb_side: floor(log2 P) plus the operand's CrtSplit shift
  int* e_out;
  __device__ __forceinline__ std::int64_t k() const { return w.chunks.k; }
  __device__ __forceinline__ std::int64_t span() const { return w.span; }
  __device__ __forceinline__ int exponent(const LineStats& r) const {
    return r.active ? crt::arith::scale_exponent(Lb, r.c, r.base) : 0;
  }
  __device__ __forceinline__ void line_done(std::int64_t line, int s) const { e_out[line] = s; }
  template <class T>
  __device__ __forceinline__ void write16(std::int64_t line, const LineStats&, int s, std::int64_t ko0,
                                          const T (&v)[kResiduePositions]) const {
    write_residues16<kComplex3M>(w, line, s, ko0, v);
  }
};

/// FusedMagnitudes: the certificate's magnitude panels, layouts 0 and 1 (MagnitudeSink's bytes), at
/// the line's E = 16 - base; zeros for an inactive line.
struct FusedMagnitudes {
  MagnitudeSink m;
  __device__ __forceinline__ std::int64_t k() const { return m.chunks.k; }
  __device__ __forceinline__ std::int64_t span() const { return m.span; }
  __device__ __forceinline__ int exponent(const LineStats&) const { return 0; }
  __device__ __forceinline__ void line_done(std::int64_t, int) const {}
  template <class T>
  __device__ __forceinline__ void write16(std::int64_t line, const LineStats& r, int, std::int64_t ko0,
                                          const T (&v)[kResiduePositions]) const {
    m.write_levels16(line, r.active, 16 - r.base, ko0, v);
  }
};

/// The line rule and a pass over the line in one kernel (crt_line_rule_and_residues,
/// crt_line_rule_and_magnitudes): one block per line read along k with unit stride, 16-byte aligned,
/// span <= kFusedMaxPositions. Thread t holds positions 16 (g 256 + t) .. +15 of groups g = 0, 1 in
/// registers (zeros past k) for the rule (block_line_stats: line_rule_block's results), then in shared
/// memory while the sink writes their bytes (residues at the line's exponent, or magnitude levels at
/// its E, as the lines kernel writes them). One read of the operand where the rule and the pass read it
/// twice. A line holding NaN or Inf writes its statistics (inactive) and nothing else: the caller falls
/// back.
template <class T, class Sink>
__global__ void __launch_bounds__(kLineThreads, kLinesBlocksPerSm)
    line_rule_pass_kernel(const T* __restrict__ data, std::int64_t ls, CrtLines out, Sink w) {
  extern __shared__ __align__(16) unsigned char fused_stash[];
  T* stash = reinterpret_cast<T*>(fused_stash);  // [kFusedGroups * 16][kLineThreads]: conflict-free
  const std::int64_t line = blockIdx.x, k = w.k();
  const T* src = data + line * ls;
  T x[kFusedGroups * kResiduePositions];  // group g's positions at x[16 g ..]
#pragma unroll
  for (int g = 0; g < kFusedGroups; ++g) {  // all loads in flight before the first use
    const std::int64_t ko0 = (std::int64_t{g} * kLineThreads + threadIdx.x) * kResiduePositions;
    T* xg = x + g * kResiduePositions;
    if (ko0 + kResiduePositions <= k) {
      load16_vec(src + ko0, xg);
    } else {
#pragma unroll
      for (int i = 0; i < kResiduePositions; ++i) xg[i] = ko0 + i < k ? __ldg(src + ko0 + i) : T(0);
    }
  }
  const LineStats r = block_line_stats(x, out.s1 != nullptr);
  const int s = w.exponent(r);
  if (threadIdx.x == 0) {
    store_line_stats(out, line, r);
    w.line_done(line, s);
  }
  if (r.nonfinite) atomicAdd(out.nonfinite, r.nonfinite);
  if (!r.finite) return;  // uniform over the block
#pragma unroll
  for (int i = 0; i < kFusedGroups * kResiduePositions; ++i) stash[i * kLineThreads + threadIdx.x] = x[i];
#pragma unroll 1
  for (int g = 0; g < kFusedGroups; ++g) {  // one copy of the pass's code (instruction fetch)
    const std::int64_t ko0 = (std::int64_t{g} * kLineThreads + threadIdx.x) * kResiduePositions;
    if (ko0 >= w.span()) break;
    T v[kResiduePositions];
#pragma unroll
    for (int i = 0; i < kResiduePositions; ++i) v[i] = stash[(g * kResiduePositions + i) * kLineThreads + threadIdx.x];
    w.write16(line, r, s, ko0, v);
  }
}

}  // namespace

template <class T>
void crt_line_rule(const T* data, std::int64_t lines, std::int64_t k, std::int64_t line_stride,
                   std::int64_t k_stride, const CrtLines& out, cudaStream_t stream) {
  if (lines <= 0) return;
  if (reads_along_k(line_stride, k_stride)) {
    if (k <= kThreadLineMaxK) {
      const auto grid = static_cast<unsigned>((lines + kLineThreads - 1) / kLineThreads);
      line_rule_thread<T, kThreadLineMaxK>
          <<<grid, kLineThreads, 0, stream>>>(data, lines, k, line_stride, k_stride, out);
      TCEMU_LAUNCHED("crt line_rule_thread");
    } else if (k <= kWarpLineMaxK) {
      const unsigned grid = static_cast<unsigned>((lines + kLineThreads / 32 - 1) / (kLineThreads / 32));
      auto launch = [&](auto r) {
        line_rule_warp<T, decltype(r)::value><<<grid, kLineThreads, 0, stream>>>(data, lines, k, line_stride, k_stride, out);
      };
      if (k <= 128) launch(std::integral_constant<int, 4>{});
      else if (k <= 256) launch(std::integral_constant<int, 8>{});
      else if (k <= 512) launch(std::integral_constant<int, 16>{});
      else launch(std::integral_constant<int, 32>{});
      TCEMU_LAUNCHED("crt line_rule_warp");
    } else {
      if (k <= std::int64_t{kLineThreads} * kLineCached)
        line_rule_block<T, true><<<static_cast<unsigned>(lines), kLineThreads, 0, stream>>>(data, k, line_stride, k_stride, out);
      else
        line_rule_block<T, false><<<static_cast<unsigned>(lines), kLineThreads, 0, stream>>>(data, k, line_stride, k_stride, out);
      TCEMU_LAUNCHED("crt line_rule_block");
    }
  } else {
    if (out.scratch == nullptr) throw InvalidArgument(std::string("tcemu cuda ") + schemes::Int8Crt::desc.name + ": line rule without scratch");
    unsigned long long* max_bits = out.scratch;
    unsigned long long* s2_sum = out.scratch + lines;
    unsigned long long* s1_sum = out.scratch + 2 * lines;
    TCEMU_CUDA(cudaMemsetAsync(out.scratch, 0, 3 * sizeof(unsigned long long) * lines, stream));
    const std::int64_t segs = (k + kSegK - 1) / kSegK;
    if (segs > 65535) throw InvalidArgument(std::string("tcemu cuda ") + schemes::Int8Crt::desc.name + ": k = " + std::to_string(k) + " above 2^23 with lines contiguous");
    const dim3 grid(static_cast<unsigned>((lines + kLineThreads - 1) / kLineThreads), static_cast<unsigned>(segs > 0 ? segs : 1));
    line_max_seg<T><<<grid, kLineThreads, 0, stream>>>(data, lines, k, line_stride, k_stride, max_bits, out);
    TCEMU_LAUNCHED("crt line_max_seg");
    line_s2_seg<T><<<grid, kLineThreads, 0, stream>>>(data, lines, k, line_stride, k_stride, max_bits, s2_sum, s1_sum);
    TCEMU_LAUNCHED("crt line_s2_seg");
    line_rule_finish<<<static_cast<unsigned>((lines + 255) / 256), 256, 0, stream>>>(lines, max_bits, s2_sum, s1_sum, out);
    TCEMU_LAUNCHED("crt line_rule_finish");
  }
}

void crt_line_exponents(const CrtLines& in, std::int64_t lines, int Lb_side, int* e, cudaStream_t stream) {
  if (lines <= 0) return;
  line_exponents_kernel<<<static_cast<unsigned>((lines + 255) / 256), 256, 0, stream>>>(in, lines, Lb_side, e);
  TCEMU_LAUNCHED("crt line_exponents_kernel");
}

void crt_split_counts(const CrtLines& in, std::int64_t lines, unsigned long long* counts, cudaStream_t stream) {
  if (lines <= 0) return;
  split_counts_kernel<<<static_cast<unsigned>((lines + 255) / 256), 256, 0, stream>>>(in, lines, counts);
  TCEMU_LAUNCHED("crt split_counts_kernel");
}

void crt_pair_lines(const CrtLines& in, std::int64_t lines, const CrtLines& out, cudaStream_t stream) {
  if (lines <= 0) return;
  pair_lines_kernel<<<static_cast<unsigned>((2 * lines + 255) / 256), 256, 0, stream>>>(in, lines, out);
  TCEMU_LAUNCHED("crt pair_lines_kernel");
}

namespace {

/// Whether `lines` lines from `data`, line_stride elements apart, all start 16-byte aligned (the
/// residue passes' 16-byte loads).
template <class T>
bool lines_aligned16(const T* data, std::int64_t lines, std::int64_t line_stride) {
  return reinterpret_cast<std::uintptr_t>(data) % 16 == 0 &&
         (lines == 1 || (line_stride * static_cast<std::int64_t>(sizeof(T))) % 16 == 0);
}

/// residue_lines_kernel over an operand read along k (k_stride no larger than the line stride):
/// 16-byte loads where k is unit-stride and aligned; at most 16 waves of resident blocks.
template <class T, class Sink>
void launch_lines(const T* data, std::int64_t lines, std::int64_t line_stride, std::int64_t k_stride, const Sink& w,
                  cudaStream_t stream) {
  const bool vec = k_stride == 1 && lines_aligned16(data, lines, line_stride);
  const std::int64_t items = lines * (w.span / kResiduePositions);
  const unsigned grid = resident_grid((items + kResidueThreads - 1) / kResidueThreads, kLinesBlocksPerSm);
  residue_lines_kernel<T, Sink><<<grid, kResidueThreads, 0, stream>>>(data, lines, line_stride, k_stride, vec, w);
  TCEMU_LAUNCHED("crt residue_lines_kernel");
}

/// Runs one pass of `sink` over an operand: residue_lines_kernel where k is read along the lines
/// (k less strided), else residue_columns_kernel (lines contiguous).
template <class T, class Sink>
void launch_pass(const T* data, std::int64_t lines, std::int64_t line_stride, std::int64_t k_stride, const Sink& w,
                 cudaStream_t stream) {
  if (!reads_along_k(line_stride, k_stride)) {
    const std::int64_t tiles = (lines + kColumnsTileLines - 1) / kColumnsTileLines *
                               ((w.span + kColumnsTilePositions - 1) / kColumnsTilePositions);
    const unsigned grid = resident_grid(tiles, kColumnsBlocksPerSm);
    residue_columns_kernel<T, Sink><<<grid, kResidueThreads, 0, stream>>>(data, lines, line_stride, k_stride, w);
    TCEMU_LAUNCHED("crt residue_columns_kernel");
    return;
  }
  launch_lines(data, lines, line_stride, k_stride, w, stream);
}

}  // namespace

template <class T>
void crt_magnitudes(const T* data, std::int64_t lines, std::int64_t k, std::int64_t line_stride,
                    std::int64_t k_stride, const CrtLines& in, std::int64_t kp, int layout, std::int8_t* out,
                    cudaStream_t stream) {
  if (lines <= 0 || kp <= 0) return;
  if (layout == 2 && (k % 2 != 0 || lines % 2 != 0))  // pairs of (re, im) and of output lines
    throw InvalidArgument(std::string("tcemu cuda ") + schemes::Int8Crt::desc.name +
                          ": magnitude layout 2 needs an even k and an even line count");
  // 16 positions per thread through the residue passes' loops: 16-byte stores need kp and out aligned.
  const bool by_16 = kp % kResiduePositions == 0 && reinterpret_cast<std::uintptr_t>(out) % 16 == 0;
  if (by_16 && layout != 2) {
    launch_pass(data, lines, line_stride, k_stride,
                MagnitudeSink{kp, ChunkedK{k, k, kp, true}, in.base, in.active, layout == 0 ? 2 : 3, out}, stream);
    return;
  }
  if (by_16 && k_stride == 1) {
    // Layout 2, the embedding's column pairs: one pass over the lines / 2 complex source lines.
    launch_pass(data, lines / 2, line_stride, std::int64_t{1},
                MagnitudePairSink{kp, ChunkedK{k, k, kp, true}, in.base, in.active, out}, stream);
    return;
  }
  const std::int64_t total = lines * kp;
  const std::int64_t blocks = std::min<std::int64_t>((total + 255) / 256, 1 << 20);
  magnitudes_kernel<T><<<static_cast<unsigned>(blocks), 256, 0, stream>>>(data, lines, k, line_stride, k_stride, in,
                                                                          kp, layout, out);
  TCEMU_LAUNCHED("crt magnitudes_kernel");
}

namespace {

/// w's per-modulus tables for its n moduli: residue()'s FP64 constants and the Barrett / limb ones.
void fill_moduli(CrtResidueWriter& w) {
  for (int l = 0; l < w.n; ++l) {
    w.mod[l] = crt::arith::modulus_f64(crt::kModuli[l]);
    w.mod_u[l] = crt::arith::modulus_u32(crt::kModuli[l]);
  }
}

/// Fills w's FP64 groups from crt_arith::residue_pass_split (which moduli go where and why): each
/// group's moduli and reciprocals (from w.mod, filled before), their product M (below 2^48) and RN(1 /
/// M), and fp64_limit (2^84 capped by 2^51 times the smallest M).
void plan_fp64_groups(CrtResidueWriter& w) {
  const crt::arith::ResiduePassSplit split = crt::arith::residue_pass_split(w.n);
  if (split.n_int > kMaxIntModuli)
    throw InvalidArgument(std::string("tcemu cuda ") + schemes::Int8Crt::desc.name + ": " +
                          std::to_string(split.n_int) + " integer moduli in a residue pass, above " +
                          std::to_string(kMaxIntModuli));
  w.n_int = split.n_int;
  w.groups = split.groups;
  w.fp64_limit = 0x1p84;
  for (int g = 0; g < w.groups; ++g) {
    Fp64Group& G = w.group[g];
    G.first = split.first[g];
    G.size = split.size[g];
    G.M = 1;
    for (int j = 0; j < G.size; ++j) {
      const crt::arith::ModulusF64& m = w.mod[G.first + j];
      G.p[j] = m.p;
      G.inv_p[j] = m.inv_p;
      G.M *= m.p;
    }
    G.inv_M = 1.0 / G.M;
    w.fp64_limit = std::min(w.fp64_limit, 0x1p51 * G.M);
  }
}

/// A residue pass's writer (the layout as CrtResidueWriter says; part_stride for complex 3M's panel
/// sets, 0 for real operands) with its moduli's constants and FP64 groups filled (fill_moduli,
/// plan_fp64_groups).
template <bool kComplex3M>
ResidueSink<kComplex3M> residue_sink(std::int64_t span, ChunkedK chunks, std::int64_t panel, const int* e, int n_moduli,
                                     std::int8_t* out, std::int64_t part_stride) {
  ResidueSink<kComplex3M> w{{span, chunks, panel, e, n_moduli, out, part_stride, {}, {}, n_moduli, 0, {}, 0x1p84}};
  fill_moduli(w);
  plan_fp64_groups(w);
  return w;
}

/// Complex 3M's writer for `lines` lines of k complex elements (2k interleaved reals), one k chunk
/// padded to kcp: panels of lines x kcp bytes, the Re, Im and Re + Im sets n_moduli panels apart.
ResidueSink<true> complex3m_sink(std::int64_t lines, std::int64_t k, std::int64_t kcp, const int* e, int n_moduli,
                                 std::int8_t* out) {
  const std::int64_t panel = lines * kcp;
  return residue_sink<true>(2 * kcp, ChunkedK{2 * k, 2 * k, 2 * kcp, true}, panel, e, n_moduli, out, n_moduli * panel);
}

}  // namespace

template <class T>
void crt_residues(const T* data, std::int64_t lines, std::int64_t k, std::int64_t line_stride,
                  std::int64_t k_stride, const int* e, int n_moduli, std::int64_t kc, std::int64_t kcp,
                  std::int64_t nchunks, std::int8_t* out, cudaStream_t stream) {
  if (lines <= 0 || nchunks * kcp <= 0) return;
  const ResidueSink<false> w = residue_sink<false>(nchunks * kcp, ChunkedK{k, kc, kcp, nchunks == 1},
                                                   lines * nchunks * kcp, e, n_moduli, out, 0);
  launch_pass(data, lines, line_stride, k_stride, w, stream);
}

namespace {

/// Groups of 16 positions per lane of line_rule_pass_warp: lines of at most 32 x 16 x 2 = 1024
/// positions.
constexpr int kWarpFusedGroups = 2;
constexpr std::int64_t kWarpFusedMaxPositions = std::int64_t{32} * kResiduePositions * kWarpFusedGroups;

/// Where line_rule_pass_warp reads its lines. ContiguousLines: line i at data + i ls, its positions
/// consecutive. GatheredLines (crt_passes.hpp): complex element j of line i at the pair data[2 idx],
/// data[2 idx + 1], idx = the row offset of row0 + i plus the column offset of j (the block's column
/// offsets in shared memory, built before any warp returns; the row offset by one warp reduction).
struct ContiguousLines {
  std::int64_t ls;
  __device__ __forceinline__ void prepare(std::int64_t) const {}
  template <class T>
  __device__ __forceinline__ const T* line(const T* data, std::int64_t line) const {
    return data + line * ls;
  }
  /// The 16 positions from ko0 of a line (zeros from k on).
  template <class T>
  __device__ __forceinline__ void load16(const T* src, std::int64_t ko0, std::int64_t k, T* xg) const {
    if (ko0 + kResiduePositions <= k) {
      load16_vec(src + ko0, xg);
    } else {
#pragma unroll
      for (int i = 0; i < kResiduePositions; ++i) xg[i] = ko0 + i < k ? __ldg(src + ko0 + i) : T(0);
    }
  }
};

/// GatheredLines' column offsets of the block's lines (k / 2 <= kWarpFusedMaxPositions / 2 complex
/// elements), one table per thread block.
__device__ __forceinline__ std::uint32_t* gathered_column_offsets() {
  __shared__ std::uint32_t offsets[kWarpFusedMaxPositions / 2];
  return offsets;
}

/// A line of GatheredLines: its base and row offset (complex elements).
template <class T>
struct GatheredLine {
  const T* data;
  std::uint32_t row_offset;
};

struct GatheredLinesReader {
  GatheredLines g;
  /// The column offsets of the line's k / 2 complex elements into shared memory (every thread of the
  /// block, then a barrier: called before any warp returns).
  __device__ __forceinline__ void prepare(std::int64_t k) const {
    std::uint32_t* col = gathered_column_offsets();
    for (int j = static_cast<int>(threadIdx.x); j < k / 2; j += static_cast<int>(blockDim.x)) {
      std::uint32_t o = 0;
      for (int b = 0; b < g.col_bits; ++b) o |= ((static_cast<std::uint32_t>(j) >> b) & 1u) << g.col_pos[b];
      col[j] = o;
    }
    __syncthreads();
  }
  /// Lane b deposits bit b of the row index; one OR over the warp (the whole warp calls this).
  template <class T>
  __device__ __forceinline__ GatheredLine<T> line(const T* data, std::int64_t line) const {
    const int lane = static_cast<int>(threadIdx.x & 31u);
    const auto r = static_cast<std::uint32_t>(g.row0 + line);
    const std::uint32_t bit = lane < g.row_bits ? ((r >> lane) & 1u) << g.row_pos[lane] : 0u;
    return {data, __reduce_or_sync(0xffffffffu, bit)};
  }
  template <class T>
  __device__ __forceinline__ void load16(const GatheredLine<T>& src, std::int64_t ko0, std::int64_t k, T* xg) const {
    using T2 = std::conditional_t<sizeof(T) == 8, double2, float2>;
    const std::uint32_t* col = gathered_column_offsets();
    const T2* pairs = reinterpret_cast<const T2*>(src.data);
    if (ko0 + kResiduePositions <= k) {  // complex elements ko0 / 2 .. + 7, all loads in flight
#pragma unroll
      for (int t = 0; t < kResiduePositions / 2; ++t) {
        const T2 q = __ldg(pairs + (src.row_offset + col[ko0 / 2 + t]));
        xg[2 * t] = q.x;
        xg[2 * t + 1] = q.y;
      }
    } else {
#pragma unroll
      for (int i = 0; i < kResiduePositions; ++i) {
        const std::int64_t p = ko0 + i;
        xg[i] = p < k ? __ldg(src.data + 2 * std::uint64_t{src.row_offset + col[p / 2]} + (p & 1)) : T(0);
      }
    }
  }
};

/// line_rule_pass_kernel for lines of at most kWarpFusedMaxPositions: a warp per line (8 lines per
/// block), lane L holding positions 16 (32 g + L) .. + 15 of groups g < 2 for the rule (line_stats
/// over the warp's shuffles: the same statistics), then reading each group again (from L1: the warp
/// has just read it) for the sink. A block per line left three quarters of its threads idle on
/// qsim's 1,024-real lines (line_rule_warp's reason, docs/perf-notes.md "Session 28"). `at` says
/// where the lines are (ContiguousLines, or GatheredLinesReader: a bit permutation read in place).
template <class T, class Sink, class Lines>
__global__ void __launch_bounds__(kLineThreads, kLinesBlocksPerSm)
    line_rule_pass_warp(const T* __restrict__ data, std::int64_t lines, Lines at, CrtLines out, Sink w) {
  at.prepare(w.k());
  const std::int64_t line = std::int64_t{blockIdx.x} * (kLineThreads / 32) + threadIdx.x / 32;
  if (line >= lines) return;  // the whole warp: lines are warp-uniform
  const int lane = static_cast<int>(threadIdx.x & 31u);
  const std::int64_t k = w.k();
  const auto src = at.line(data, line);
  auto load_group = [&](int g, T* xg) {
    at.load16(src, (std::int64_t{g} * 32 + lane) * kResiduePositions, k, xg);
  };
  LineStats r;
  {
    T x[kWarpFusedGroups * kResiduePositions];
#pragma unroll
    for (int g = 0; g < kWarpFusedGroups; ++g) load_group(g, x + g * kResiduePositions);
    r = line_stats(x, out.s1 != nullptr, WarpReduce{});
  }
  const int s = w.exponent(r);
  if (lane == 0) {
    store_line_stats(out, line, r);
    w.line_done(line, s);
  }
  if (r.nonfinite) atomicAdd(out.nonfinite, r.nonfinite);
  if (!r.finite) return;  // uniform over the warp
#pragma unroll 1
  for (int g = 0; g < kWarpFusedGroups; ++g) {  // one copy of the pass's code (instruction fetch)
    const std::int64_t ko0 = (std::int64_t{g} * 32 + lane) * kResiduePositions;
    if (ko0 >= w.span()) break;
    T v[kResiduePositions];
    load_group(g, v);
    w.write16(line, r, s, ko0, v);
  }
}

/// line_rule_pass_kernel over `lines` lines, a block per line, its stash in dynamic shared memory.
template <class T, class Sink>
void launch_rule_pass(const T* data, std::int64_t lines, std::int64_t line_stride, const CrtLines& out, const Sink& w,
                      cudaStream_t stream) {
  const int stash = static_cast<int>(kFusedMaxPositions * sizeof(T));
  TCEMU_CUDA(cudaFuncSetAttribute(line_rule_pass_kernel<T, Sink>, cudaFuncAttributeMaxDynamicSharedMemorySize, stash));
  line_rule_pass_kernel<T, Sink>
      <<<static_cast<unsigned>(lines), kLineThreads, stash, stream>>>(data, line_stride, out, w);
  TCEMU_LAUNCHED("crt line_rule_pass_kernel");
}

}  // namespace

template <class T>
bool crt_line_rule_fuses(const T* data, std::int64_t lines, std::int64_t k, std::int64_t line_stride,
                         std::int64_t k_stride) {
  return lines > 0 && lines <= INT_MAX && k > 0 && k_stride == 1 && (k + 15) / 16 * 16 <= kFusedMaxPositions &&
         lines_aligned16(data, lines, line_stride);
}

template <class T>
void crt_line_rule_and_residues(const T* data, std::int64_t lines, std::int64_t k, std::int64_t line_stride,
                                std::int64_t k_stride, const CrtLines& out, int Lb, int* e, int n_moduli,
                                std::int8_t* panels, cudaStream_t stream) {
  if (!crt_line_rule_fuses(data, lines, k, line_stride, k_stride))
    throw InvalidArgument(std::string("tcemu cuda ") + schemes::Int8Crt::desc.name +
                          ": the fused line rule and residue pass needs lines along k with unit stride, k <= " +
                          std::to_string(kFusedMaxPositions) + " and 16-byte aligned lines");
  const std::int64_t kcp = (k + 15) / 16 * 16;
  const ResidueSink<false> w = residue_sink<false>(kcp, ChunkedK{k, k, kcp, true}, lines * kcp, e, n_moduli, panels, 0);
  launch_rule_pass(data, lines, line_stride, out, FusedResidues<false>{w, Lb, e}, stream);
}

namespace {

/// line_rule_pass_warp with complex 3M's residue sink over `lines` lines read as `at` says (a warp per
/// line, 8 lines per block).
template <class T, class Lines>
void launch_complex3m_rule_pass(const T* data, std::int64_t lines, std::int64_t k, const Lines& at, const CrtLines& out,
                                int Lb, int* e, int n_moduli, std::int64_t kcp, std::int8_t* panels,
                                cudaStream_t stream) {
  const ResidueSink<true> w = complex3m_sink(lines, k, kcp, e, n_moduli, panels);
  const auto grid = static_cast<unsigned>((lines + kLineThreads / 32 - 1) / (kLineThreads / 32));
  line_rule_pass_warp<T, FusedResidues<true>, Lines><<<grid, kLineThreads, 0, stream>>>(data, lines, at, out,
                                                                                       FusedResidues<true>{w, Lb, e});
  TCEMU_LAUNCHED("crt line_rule_pass_warp (complex 3M)");
}

}  // namespace

template <class T>
bool crt_line_rule_and_residues_complex3m_runs(const T* data, std::int64_t lines, std::int64_t k,
                                               std::int64_t line_stride) {
  return k >= 1 && 2 * k <= kWarpFusedMaxPositions && crt_line_rule_fuses(data, lines, 2 * k, line_stride, 1);
}

template <class T>
void crt_line_rule_and_residues_complex3m(const T* data, std::int64_t lines, std::int64_t k, std::int64_t line_stride,
                                         const CrtLines& out, int Lb, int* e, int n_moduli, std::int64_t kcp,
                                         std::int8_t* out_panels, cudaStream_t stream) {
  if (lines <= 0) return;
  if (!crt_line_rule_and_residues_complex3m_runs(data, lines, k, line_stride) || kcp % 16 != 0 || kcp < k)
    throw InvalidArgument(std::string("tcemu cuda ") + schemes::Int8Crt::desc.name +
                          ": the fused complex line rule and residue pass needs 16-byte aligned lines of k <= " +
                          std::to_string(kWarpFusedMaxPositions / 2) + " complex elements and kcp >= k a multiple of "
                          "16, got k = " + std::to_string(k) + ", kcp = " + std::to_string(kcp));
  launch_complex3m_rule_pass(data, lines, k, ContiguousLines{line_stride}, out, Lb, e, n_moduli, kcp, out_panels,
                             stream);
}

template <class T>
bool crt_gathered_rule_and_residues_complex3m_runs(const T* data, std::int64_t k) {
  return k >= 1 && 2 * k <= kWarpFusedMaxPositions && reinterpret_cast<std::uintptr_t>(data) % (2 * sizeof(T)) == 0;
}

template <class T>
void crt_gathered_rule_and_residues_complex3m(const T* data, const GatheredLines& g, std::int64_t lines,
                                              std::int64_t k, const CrtLines& out, int Lb, int* e, int n_moduli,
                                              std::int64_t kcp, std::int8_t* out_panels, cudaStream_t stream) {
  if (lines <= 0) return;
  if (!crt_gathered_rule_and_residues_complex3m_runs(data, k) || kcp % 16 != 0 || kcp < k || lines > INT_MAX ||
      g.col_bits < 0 || g.row_bits < 0 || g.col_bits + g.row_bits > 32 || (std::int64_t{1} << g.col_bits) != k ||
      g.row0 < 0 || g.row0 + lines > (std::int64_t{1} << g.row_bits))
    throw InvalidArgument(std::string("tcemu cuda ") + schemes::Int8Crt::desc.name +
                          ": the gathered complex line rule and residue pass needs k = 2^col_bits <= " +
                          std::to_string(kWarpFusedMaxPositions / 2) + " complex elements, rows within 2^row_bits, "
                          "at most 32 index bits and kcp >= k a multiple of 16, got k = " + std::to_string(k) +
                          ", kcp = " + std::to_string(kcp));
  launch_complex3m_rule_pass(data, lines, k, GatheredLinesReader{g}, out, Lb, e, n_moduli, kcp, out_panels, stream);
}

template <class T>
void crt_line_rule_and_magnitudes(const T* data, std::int64_t lines, std::int64_t k, std::int64_t line_stride,
                                  std::int64_t k_stride, const CrtLines& out, std::int64_t kp, int layout,
                                  std::int8_t* panels, cudaStream_t stream) {
  if (!crt_line_rule_fuses(data, lines, k, line_stride, k_stride) || (layout != 0 && layout != 1) ||
      kp != (k + 15) / 16 * 16 || reinterpret_cast<std::uintptr_t>(panels) % 16 != 0)
    throw InvalidArgument(std::string("tcemu cuda ") + schemes::Int8Crt::desc.name +
                          ": the fused line rule and magnitude pass needs lines along k with unit stride, k <= " +
                          std::to_string(kFusedMaxPositions) + ", 16-byte alignment, layout 0 or 1 and kp = k "
                          "rounded up to 16");
  const MagnitudeSink m{kp, ChunkedK{k, k, kp, true}, out.base, out.active, layout == 0 ? 2 : 3, panels};
  launch_rule_pass(data, lines, line_stride, out, FusedMagnitudes{m}, stream);
}

template <class T>
void crt_residues_complex3m(const T* data, std::int64_t lines, std::int64_t k, std::int64_t line_stride,
                            const int* e, int n_moduli, std::int64_t kcp, std::int8_t* out, cudaStream_t stream) {
  if (lines <= 0 || kcp <= 0) return;
  if (kcp % 16 != 0 || kcp < k)
    throw InvalidArgument(std::string("tcemu cuda ") + schemes::Int8Crt::desc.name +
                          ": complex residue panels need kcp >= k and a multiple of 16, got kcp = " + std::to_string(kcp));
  const ResidueSink<true> w = complex3m_sink(lines, k, kcp, e, n_moduli, out);
  launch_lines(data, lines, line_stride, 1, w, stream);  // the interleaved pairs along k
}

#define TCEMU_CRT_RESIDUE(T)                                                                              \
  template void crt_line_rule<T>(const T*, std::int64_t, std::int64_t, std::int64_t, std::int64_t,       \
                                 const CrtLines&, cudaStream_t);                                          \
  template void crt_residues<T>(const T*, std::int64_t, std::int64_t, std::int64_t, std::int64_t,        \
                                const int*, int, std::int64_t, std::int64_t, std::int64_t, std::int8_t*, \
                                cudaStream_t);                                                            \
  template bool crt_line_rule_fuses<T>(const T*, std::int64_t, std::int64_t, std::int64_t, std::int64_t);    \
  template void crt_line_rule_and_residues<T>(const T*, std::int64_t, std::int64_t, std::int64_t, std::int64_t, \
                                              const CrtLines&, int, int*, int, std::int8_t*, cudaStream_t);     \
  template void crt_line_rule_and_magnitudes<T>(const T*, std::int64_t, std::int64_t, std::int64_t, std::int64_t, \
                                                const CrtLines&, std::int64_t, int, std::int8_t*, cudaStream_t); \
  template void crt_residues_complex3m<T>(const T*, std::int64_t, std::int64_t, std::int64_t, const int*, int, \
                                          std::int64_t, std::int8_t*, cudaStream_t);                     \
  template bool crt_line_rule_and_residues_complex3m_runs<T>(const T*, std::int64_t, std::int64_t, std::int64_t); \
  template void crt_line_rule_and_residues_complex3m<T>(const T*, std::int64_t, std::int64_t, std::int64_t,       \
                                                        const CrtLines&, int, int*, int, std::int64_t,            \
                                                        std::int8_t*, cudaStream_t);                             \
  template bool crt_gathered_rule_and_residues_complex3m_runs<T>(const T*, std::int64_t);                          \
  template void crt_gathered_rule_and_residues_complex3m<T>(const T*, const GatheredLines&, std::int64_t,          \
                                                            std::int64_t, const CrtLines&, int, int*, int,         \
                                                            std::int64_t, std::int8_t*, cudaStream_t);             \
  template void crt_magnitudes<T>(const T*, std::int64_t, std::int64_t, std::int64_t, std::int64_t,      \
                                  const CrtLines&, std::int64_t, int, std::int8_t*, cudaStream_t);
TCEMU_CRT_RESIDUE(float)
TCEMU_CRT_RESIDUE(double)
#undef TCEMU_CRT_RESIDUE

}  // namespace tcemu::cuda::detail
