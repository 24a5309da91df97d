// int8-crt: one pass over the N INT32 residue products (reduce mod p_l, chunk sums added mod p_l) or
// over the wgmma kernel's int8 residues (its fused reduction, in its fragment layout), reconstruct C'
// in crt_arith's fixed order, undo the scaling, alpha / beta, write C: the host reference's
// operations one for one (crt_gemm_host's `write`: alpha v + (beta == 0 ? 0 : beta C) in
// double, with __dmul_rn / __dadd_rn so that nothing is fused).
#include "cuda/kernels/crt_wgmma_s8.hpp"
#include "cuda/passes/crt_passes.hpp"
#include "cuda/passes/crt_recon_common.cuh"
#include "tcemu/cuda/check.hpp"
#include "tcemu/crt_arith.hpp"
#include "tcemu/schemes/crt.hpp"

#include <cstdint>
#include <string>

namespace tcemu::cuda::detail {
namespace {

struct ReconConstants {
  int n;
  crt::arith::ModulusF64 mod[crt::kMaxModuli];
  double w_hi[crt::kMaxModuli], w_lo[crt::kMaxModuli];
  double P_hi, P_lo, inv_P;
};

template <class T>
__global__ void __launch_bounds__(256)
    reconstruct_kernel(const std::int32_t* __restrict__ acc, std::int64_t bstride, std::int64_t ldacc,
                       std::int64_t nchunks, ReconConstants K, const int* __restrict__ ex,
                       const int* __restrict__ ey, std::int64_t rows, std::int64_t n, double alpha, double beta,
                       T* c, std::int64_t c_rs, std::int64_t c_cs) {
  const std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x;  // row: coalesced INT32 reads
  if (i >= rows) return;
  for (std::int64_t j = blockIdx.y; j < n; j += gridDim.y) {
    // crt_arith::reconstruct's two fma chains (sx over l ascending, then sy over l ascending) run
    // interleaved here: the same operations in the same order per chain, so the same bits, and no
    // run-time-indexed residue array in local memory.
    const std::int64_t at = j * ldacc + i;
    double sx = 0, sy = 0;
    for (int l = 0; l < K.n; ++l) {
      // The chunk sums (each |v| < 2^30: GPU chunks of 2^16) add exactly in FP64; one reduction
      // gives the unique symmetric residue, the one the host reaches chunk by chunk.
      double sum = 0;
      for (std::int64_t ch = 0; ch < nchunks; ++ch) sum += static_cast<double>(__ldg(acc + (l * nchunks + ch) * bstride + at));
      const double r = crt::arith::sym_mod_small(sum, K.mod[l]);
      sx = fma(K.w_hi[l], r, sx);
      sy = fma(K.w_lo[l], r, sy);
    }
    const double cp = crt::arith::reconstruct_from_sums(sx, sy, K.P_hi, K.P_lo, K.inv_P);
    const double v = crt::arith::ldexp_fast(cp, -(ex[i] + ey[j]));
    T& out = c[i * c_rs + j * c_cs];
    const double old = beta == 0 ? 0.0 : __dmul_rn(beta, static_cast<double>(out));
    out = static_cast<T>(__dadd_rn(__dmul_rn(alpha, v), old));
  }
}

/// One k chunk (every INT32 product |v| <= 2^30), 4 consecutive rows per thread: the NMAX >= n
/// products of the 4 rows are loaded as int4 (16 bytes) before any is used, so n 16-byte loads per
/// thread are in flight; each is reduced with crt_arith::shifted_residue_i32 (Barrett, no FP64
/// conversion) and folded into sx and sy in crt_arith::reconstruct's order. Needs ldacc % 4 == 0
/// and acc 16-byte aligned (the rows past `rows` up to ldacc are read, never written).
template <class T, int NMAX>
__global__ void __launch_bounds__(256)
    reconstruct_rows4_kernel(const std::int32_t* __restrict__ acc, std::int64_t bstride, std::int64_t ldacc, int n,
                             ReconConstants4 K, const int* __restrict__ ex, const int* __restrict__ ey,
                             std::int64_t rows, std::int64_t ncols, double alpha, double beta, T* c,
                             std::int64_t c_rs, std::int64_t c_cs, bool vec_c) {
  const std::int64_t i0 = 4 * (blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x);
  if (i0 >= rows) return;
  int exr[4];
#pragma unroll
  for (int e = 0; e < 4; ++e) exr[e] = i0 + e < rows ? ex[i0 + e] : 0;
  for (std::int64_t j = blockIdx.y; j < ncols; j += gridDim.y) {
    const std::int32_t* a = acc + j * ldacc + i0;
    int4 v[NMAX];  // the 4 rows' products of each modulus
#pragma unroll
    for (int l = 0; l < NMAX; ++l)
      if (l < n) v[l] = __ldg(reinterpret_cast<const int4*>(a + l * bstride));
    double sx[4] = {0, 0, 0, 0}, sy[4] = {0, 0, 0, 0};
#pragma unroll
    for (int l = 0; l < NMAX; ++l) {
      if (l < n) {
        crt::arith::ModulusU32 m = crt::arith::barrett_u32(K.p[l], K.magic[l]);
        m.off30 = K.off30[l];
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          const std::int32_t vl[4] = {v[l].x, v[l].y, v[l].z, v[l].w};
          const int r = static_cast<int>(crt::arith::shifted_residue_i32(vl[e], m));  // residue + half, in [0, p)
          const double rd = __hiloint2double(0x43300000, r) - K.bias[l];  // r - half, exactly
          sx[e] = fma(K.w_hi[l], rd, sx[e]);
          sy[e] = fma(K.w_lo[l], rd, sy[e]);
        }
      }
    }
    const int eyj = ey[j];
    T out[4];
    T* cp = c + i0 * c_rs + j * c_cs;
    const bool full = vec_c && i0 + 4 <= rows;
    if (beta != 0) {
      if (full) {
        if constexpr (sizeof(T) == 8) {
          const double2 o0 = reinterpret_cast<const double2*>(cp)[0], o1 = reinterpret_cast<const double2*>(cp)[1];
          out[0] = o0.x; out[1] = o0.y; out[2] = o1.x; out[3] = o1.y;
        } else {
          const float4 o = *reinterpret_cast<const float4*>(cp);
          out[0] = o.x; out[1] = o.y; out[2] = o.z; out[3] = o.w;
        }
      } else {
#pragma unroll
        for (int e = 0; e < 4; ++e) out[e] = i0 + e < rows ? cp[e * c_rs] : T(0);
      }
    }
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const double cv = crt::arith::reconstruct_from_sums(sx[e], sy[e], K.P_hi, K.P_lo, K.inv_P);
      const double val = crt::arith::ldexp_fast(cv, -(exr[e] + eyj));
      const double old = beta == 0 ? 0.0 : __dmul_rn(beta, static_cast<double>(out[e]));
      out[e] = static_cast<T>(__dadd_rn(__dmul_rn(alpha, val), old));
    }
    if (full) {
      if constexpr (sizeof(T) == 8) {
        reinterpret_cast<double2*>(cp)[0] = make_double2(out[0], out[1]);
        reinterpret_cast<double2*>(cp)[1] = make_double2(out[2], out[3]);
      } else {
        *reinterpret_cast<float4*>(cp) = make_float4(out[0], out[1], out[2], out[3]);
      }
    } else {
#pragma unroll
      for (int e = 0; e < 4; ++e)
        if (i0 + e < rows) cp[e * c_rs] = out[e];
    }
  }
}

/// The vectorised one-chunk reconstruction (reconstruct_rows4_kernel) from INT32 products.
template <class T>
void reconstruct_rows4(const std::int32_t* acc, std::int64_t bstride, std::int64_t ldacc, const crt::Constants& K,
                       const int* ex, const int* ey, std::int64_t rows, std::int64_t n, T alpha, T beta, T* c,
                       std::int64_t c_rs, std::int64_t c_cs, cudaStream_t stream) {
  const ReconConstants4 R4 = recon_constants4(K);
  const bool vec_c = c_rs == 1 && reinterpret_cast<std::uintptr_t>(c) % 16 == 0 &&
                     (n == 1 || (c_cs * static_cast<std::int64_t>(sizeof(T))) % 16 == 0);
  const std::int64_t threads = (rows + 3) / 4;
  const dim3 grid(static_cast<unsigned>((threads + 255) / 256), static_cast<unsigned>(n < 65535 ? n : 65535));
  with_nmax(K.n, [&](auto nmax) {
    reconstruct_rows4_kernel<T, decltype(nmax)::value><<<grid, 256, 0, stream>>>(
        acc, bstride, ldacc, K.n, R4, ex, ey, rows, n, static_cast<double>(alpha), static_cast<double>(beta), c, c_rs,
        c_cs, vec_c);
  });
  TCEMU_LAUNCHED("crt reconstruct_rows4_kernel");
}

/// The 4 entries of one 4-byte word of the fused reduction's residue panels (crt_s8::residue_offset's
/// layout with 128 x 256 tiles). The grid: blockIdx.x = tile (band tb = tile / tiles_n, tn = tile %
/// tiles_n), blockIdx.y = the tile's 1,024-byte piece, a thread per word w < 256 of it. Word w of the
/// tile holds bytes 4 h .. 4 h + 3 (h = w % 2) of lane L's granule s in warp slot `slot`, i.e.
/// fragment entries r = 8 s + 4 h + e (e < 4): rows i0 + 8 ((e >> 1) & 1), columns j0 + (e & 1) with
/// i0 = 128 tb + 16 slot + L / 4, j0 = 256 tn + 2 (L % 4) + 16 s + 8 h. Consecutive threads read
/// consecutive words (128 bytes per warp and modulus); each entry's write covers 32-byte runs of 4
/// rows (column-major C). `at` is the word's byte offset in the panel. This is the inverse of
/// crt_s8::residue_tile_offset and residue_fragment_offset, written in 32-bit arithmetic from m16 and
/// tiles_n: calling those 64-bit helpers per thread measured 2.7 % slower (H200, docs/perf-notes.md
/// "Session 23"); the GPU tests compare C bit for bit with the host, so the two cannot drift.
struct FragmentWord {
  std::int64_t i0, j0, at;
  bool valid;  // inside this band's rows (the last band may hold fewer than 128)
};
__device__ __forceinline__ FragmentWord fragment_word(int m16, int tiles_n) {
  const int tile = static_cast<int>(blockIdx.x), band = tile / tiles_n, tn = tile - band * tiles_n;
  const int band_rows = min(128, m16 - 128 * band);
  const int within = 4 * (static_cast<int>(blockIdx.y) * 256 + static_cast<int>(threadIdx.x));  // byte in the tile
  const int slot = within >> 12, wb = within & 4095;
  const int s = wb >> 8, lane = (wb & 255) >> 3, h = (wb & 7) >> 2;
  FragmentWord f;
  f.valid = slot * 16 < band_rows;
  f.i0 = std::int64_t{band} * 128 + slot * 16 + (lane >> 2);
  f.j0 = std::int64_t{tn} * 256 + 2 * (lane & 3) + 16 * s + 8 * h;
  f.at = std::int64_t{band} * 128 * (std::int64_t{tiles_n} * 256) + std::int64_t{tn} * band_rows * 256 + within;
  return f;
}
__device__ __forceinline__ std::int64_t fragment_row(const FragmentWord& f, int e) { return f.i0 + 8 * ((e >> 1) & 1); }
__device__ __forceinline__ std::int64_t fragment_col(const FragmentWord& f, int e) { return f.j0 + (e & 1); }

/// crt_reconstruct_residues: a thread per 4-byte word of the residue panels (fragment_word); its N
/// residue words are loaded before any is used, then each entry's two chains in crt_arith's order (the
/// same residues in the same chains as the INT32 path, so the same bits). Each residue r becomes a
/// double in two instructions: the word XOR 0x80808080 holds r + 128 in every byte, a byte permute
/// puts one byte under the exponent of 2^52, and one subtraction of 2^52 + 128 leaves r exactly
/// (instead of a shift, a sign extension, an add of half and a per-modulus bias: the kernel is
/// issue-bound). The modulus loop runs to NMAX without a branch per modulus: past n the word is 0
/// (residue 0) and recon_constants4's weights are 0, so fma(0, 0, s) leaves each sum unchanged.
template <class T, int NMAX>
__global__ void __launch_bounds__(256)
    reconstruct_fragments_kernel(const std::int8_t* __restrict__ res, std::int64_t panel, int m16, int tiles_n, int n,
                                 ReconConstants4 K, const int* __restrict__ ex, const int* __restrict__ ey,
                                 std::int64_t rows, std::int64_t ncols, double alpha, double beta, T* c,
                                 std::int64_t c_rs, std::int64_t c_cs) {
  const FragmentWord f = fragment_word(m16, tiles_n);
  if (!f.valid || f.i0 >= rows || f.j0 >= ncols) return;  // the word's first entry: its smallest row and column
  unsigned v[NMAX];
#pragma unroll
  for (int l = 0; l < NMAX; ++l)
    v[l] = l < n ? __ldg(reinterpret_cast<const unsigned*>(res + l * panel + f.at)) : 0u;
  const int exr[2] = {ex[f.i0], f.i0 + 8 < rows ? ex[f.i0 + 8] : 0};
  const int eyc[2] = {ey[f.j0], f.j0 + 1 < ncols ? ey[f.j0 + 1] : 0};
  double sx[4] = {0, 0, 0, 0}, sy[4] = {0, 0, 0, 0};
#pragma unroll
  for (int l = 0; l < NMAX; ++l) {
    const unsigned biased = v[l] ^ 0x80808080u;  // r + 128 in each byte
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const auto lo = static_cast<int>(__byte_perm(biased, 0u, 0x4440u | static_cast<unsigned>(e)));  // byte e, zero-extended
      const double rd = __hiloint2double(0x43300000, lo) - (0x1p52 + 128);  // the symmetric residue, exactly
      sx[e] = fma(K.w_hi[l], rd, sx[e]);
      sy[e] = fma(K.w_lo[l], rd, sy[e]);
    }
  }
#pragma unroll
  for (int e = 0; e < 4; ++e) {
    const std::int64_t i = fragment_row(f, e), j = fragment_col(f, e);
    if (i >= rows || j >= ncols) continue;
    const double cv = crt::arith::reconstruct_from_sums(sx[e], sy[e], K.P_hi, K.P_lo, K.inv_P);
    const double val = crt::arith::ldexp_fast(cv, -(exr[(e >> 1) & 1] + eyc[e & 1]));
    T& out = c[i * c_rs + j * c_cs];
    const double old = beta == 0 ? 0.0 : __dmul_rn(beta, static_cast<double>(out));
    out = static_cast<T>(__dadd_rn(__dmul_rn(alpha, val), old));
  }
}

/// crt_reconstruct_complex3m: a thread per 4-byte word of the panels (fragment_word); the 3 x n
/// residue words (P1, P2, P3 of each modulus) are loaded before any is used; per modulus the residues
/// of Re and Im (shifted_re_3m / shifted_im_3m's values, two entries at once: shifted_3m_lanes)
/// enter the two chains of each part in crt_arith's order, as the real embedding's columns 2j and
/// 2j + 1 would.
template <class T, int NMAX>
__global__ void __launch_bounds__(256)
    reconstruct_complex3m_kernel(const std::int8_t* __restrict__ res, std::int64_t panel, int m16, int tiles_n, int n,
                                 ReconConstants4 K, const int* __restrict__ ex, const int* __restrict__ ey,
                                 std::int64_t rows, std::int64_t ncols, ComplexOutput<T> out) {
  const FragmentWord f = fragment_word(m16, tiles_n);
  if (!f.valid || f.i0 >= rows || f.j0 >= ncols) return;
  const std::int64_t part = std::int64_t{n} * panel;
  const int* a = reinterpret_cast<const int*>(res + f.at);
  const int exr[2] = {ex[f.i0], f.i0 + 8 < rows ? ex[f.i0 + 8] : 0};
  const int eyc[2] = {ey[f.j0], f.j0 + 1 < ncols ? ey[f.j0 + 1] : 0};
  int v1[NMAX], v2[NMAX], v3[NMAX];
#pragma unroll
  for (int l = 0; l < NMAX; ++l)
    if (l < n) {
      v1[l] = __ldg(a + l * panel / 4);
      v2[l] = __ldg(a + (part + l * panel) / 4);
      v3[l] = __ldg(a + (2 * part + l * panel) / 4);
    }
  Complex3mSums sums[4];
#pragma unroll
  for (int l = 0; l < NMAX; ++l) {
    if (l < n) {
      // r + 128 in each byte; entries 2h and 2h + 1 in the 16-bit lanes of half h (shifted_3m_lanes)
      const unsigned b1 = static_cast<unsigned>(v1[l]) ^ 0x80808080u, b2 = static_cast<unsigned>(v2[l]) ^ 0x80808080u,
                     b3 = static_cast<unsigned>(v3[l]) ^ 0x80808080u;
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const unsigned sel = h == 0 ? 0x4140u : 0x4342u;
        std::uint32_t re, im;
        crt::arith::shifted_3m_lanes(__byte_perm(b1, 0u, sel), __byte_perm(b2, 0u, sel), __byte_perm(b3, 0u, sel),
                                     K.lanes[l], re, im);
        fold_3m_shifted(sums[2 * h], re & 0xFFFFu, im & 0xFFFFu, K.bias[l], K.w_hi[l], K.w_lo[l]);
        fold_3m_shifted(sums[2 * h + 1], re >> 16, im >> 16, K.bias[l], K.w_hi[l], K.w_lo[l]);
      }
    }
  }
#pragma unroll
  for (int e = 0; e < 4; ++e) {
    const std::int64_t i = fragment_row(f, e), j = fragment_col(f, e);
    if (i >= rows || j >= ncols) continue;
    write_complex3m_entry(sums[e], exr[(e >> 1) & 1] + eyc[e & 1], K.P_hi, K.P_lo, K.inv_P, out,
                          out.c + 2 * (i * out.c_rs + j * out.c_cs));
  }
}

/// The launch of a fragment kernel (fragment_word): a block per 1,024 bytes of each 128 x 256 tile,
/// and the kernel's m16 (rows rounded up to 16) and tiles_n.
struct FragmentLaunch {
  dim3 grid;
  int m16, tiles_n;
};

/// Checks the fragment readers' arguments (one line naming `what` and the problem, InvalidArgument),
/// then returns their launch.
FragmentLaunch fragment_launch(const std::int8_t* res, std::int64_t rows, std::int64_t n, std::int64_t panel,
                               const char* what) {
  if (panel < crt_s8::residue_panel_bytes(rows, n) || panel % 16 != 0 || reinterpret_cast<std::uintptr_t>(res) % 16 != 0)
    throw InvalidArgument(std::string("tcemu cuda ") + schemes::Int8Crt::desc.name + ": " + what +
                          " needs 16-byte aligned residue panels of at least residue_panel_bytes(rows, n) bytes");
  const std::int64_t tiles = (rows + 127) / 128 * ((n + 255) / 256);
  if (tiles > INT32_MAX)
    throw InvalidArgument(std::string("tcemu cuda ") + schemes::Int8Crt::desc.name + ": " + what + ": " +
                          std::to_string(rows) + " x " + std::to_string(n) + " residues exceed one launch's tile grid");
  return {dim3(static_cast<unsigned>(tiles), 32), static_cast<int>((rows + 15) / 16 * 16),
          static_cast<int>((n + 255) / 256)};
}

}  // namespace

template <class T>
void crt_reconstruct_complex3m(const std::int8_t* res, std::int64_t panel, const crt::Constants& K, const int* ex,
                               const int* ey, std::int64_t rows, std::int64_t n, const ComplexOutput<T>& out,
                               cudaStream_t stream) {
  if (rows <= 0 || n <= 0) return;
  const FragmentLaunch f = fragment_launch(res, rows, n, panel, "the complex 3M reconstruction");
  const ReconConstants4 R4 = recon_constants4(K);
  with_nmax(K.n, [&](auto nmax) {
    reconstruct_complex3m_kernel<T, decltype(nmax)::value><<<f.grid, 256, 0, stream>>>(
        res, panel, f.m16, f.tiles_n, K.n, R4, ex, ey, rows, n, out);
  });
  TCEMU_LAUNCHED("crt reconstruct_complex3m_kernel");
}

template <class T>
void crt_reconstruct_residues(const std::int8_t* res, std::int64_t panel, const crt::Constants& K, const int* ex,
                              const int* ey, std::int64_t rows, std::int64_t n, T alpha, T beta, T* c,
                              std::int64_t c_rs, std::int64_t c_cs, cudaStream_t stream) {
  if (rows <= 0 || n <= 0) return;
  const FragmentLaunch f = fragment_launch(res, rows, n, panel, "the residue reconstruction");
  const ReconConstants4 R4 = recon_constants4(K);
  with_nmax(K.n, [&](auto nmax) {
    reconstruct_fragments_kernel<T, decltype(nmax)::value><<<f.grid, 256, 0, stream>>>(
        res, panel, f.m16, f.tiles_n, K.n, R4, ex, ey, rows, n, static_cast<double>(alpha), static_cast<double>(beta), c, c_rs,
        c_cs);
  });
  TCEMU_LAUNCHED("crt reconstruct_fragments_kernel");
}

template <class T>
void crt_reconstruct(const std::int32_t* acc, std::int64_t bstride, std::int64_t ldacc, std::int64_t nchunks,
                     const crt::Constants& K, const int* ex, const int* ey, std::int64_t rows, std::int64_t n,
                     T alpha, T beta, T* c, std::int64_t c_rs, std::int64_t c_cs, cudaStream_t stream) {
  if (rows <= 0 || n <= 0) return;
  if (nchunks >= (std::int64_t{1} << 22))
    throw InvalidArgument(std::string("tcemu cuda ") + schemes::Int8Crt::desc.name + ": " + std::to_string(nchunks) + " k chunks (k >= 2^38)");
  // One k chunk (k <= 2^16, every product |v| <= 2^30) with aligned rows: the vectorised kernel.
  if (nchunks == 1 && ldacc % 4 == 0 && bstride % 4 == 0 && reinterpret_cast<std::uintptr_t>(acc) % 16 == 0) {
    reconstruct_rows4<T>(acc, bstride, ldacc, K, ex, ey, rows, n, alpha, beta, c, c_rs, c_cs, stream);
    return;
  }
  ReconConstants R{};
  R.n = K.n;
  for (int l = 0; l < K.n; ++l) {
    R.mod[l] = crt::arith::modulus_f64(crt::kModuli[l]);
    R.w_hi[l] = K.w_hi[l];
    R.w_lo[l] = K.w_lo[l];
  }
  R.P_hi = K.P_hi;
  R.P_lo = K.P_lo;
  R.inv_P = K.inv_P;
  const dim3 grid(static_cast<unsigned>((rows + 255) / 256), static_cast<unsigned>(n < 65535 ? n : 65535));
  reconstruct_kernel<T><<<grid, 256, 0, stream>>>(acc, bstride, ldacc, nchunks, R, ex, ey, rows, n,
                                                  static_cast<double>(alpha), static_cast<double>(beta), c, c_rs,
                                                  c_cs);
  TCEMU_LAUNCHED("crt reconstruct_kernel");
}

#define TCEMU_CRT_RECON(T)                                                                                    \
  template void crt_reconstruct<T>(const std::int32_t*, std::int64_t, std::int64_t, std::int64_t,             \
                                   const crt::Constants&, const int*, const int*, std::int64_t, std::int64_t, \
                                   T, T, T*, std::int64_t, std::int64_t, cudaStream_t);
TCEMU_CRT_RECON(float)
TCEMU_CRT_RECON(double)
#undef TCEMU_CRT_RECON
template void crt_reconstruct_residues<float>(const std::int8_t*, std::int64_t, const crt::Constants&, const int*,
                                              const int*, std::int64_t, std::int64_t, float, float, float*,
                                              std::int64_t, std::int64_t, cudaStream_t);
template void crt_reconstruct_residues<double>(const std::int8_t*, std::int64_t, const crt::Constants&, const int*,
                                               const int*, std::int64_t, std::int64_t, double, double, double*,
                                               std::int64_t, std::int64_t, cudaStream_t);
template void crt_reconstruct_complex3m<float>(const std::int8_t*, std::int64_t, const crt::Constants&, const int*,
                                               const int*, std::int64_t, std::int64_t, const ComplexOutput<float>&,
                                               cudaStream_t);
template void crt_reconstruct_complex3m<double>(const std::int8_t*, std::int64_t, const crt::Constants&, const int*,
                                                const int*, std::int64_t, std::int64_t, const ComplexOutput<double>&,
                                                cudaStream_t);

}  // namespace tcemu::cuda::detail
