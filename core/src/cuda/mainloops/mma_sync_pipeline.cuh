#pragma once
// The mma.sync kernels' main loop (kernels/fused_kernel.cuh, kernels/mixpert_kernel.cuh): block and
// warp tiling, the panel arguments, a kStages-deep cp.async ring of k-tiles in XOR-swizzled shared
// memory, and the ldmatrix fragment loads of a stage. The kernels supply the per-stage MMA step and
// the epilogue.
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/arch/cp_async.cuh"
#include "cuda/arch/ldmatrix.cuh"

namespace tcemu::cuda::detail::fused {

using arch::ldmatrix_x4;

inline constexpr int kBM = 128, kBN = 128;  // block tile (accumulator rows x columns)
inline constexpr int kRowBytes = 64;        // bytes of k per tile row and k-tile (4 chunks of 16 B)
inline constexpr int kStages = 3;
inline constexpr int kWarpsM = 4, kWarpsN = 4, kThreads = 32 * kWarpsM * kWarpsN;
inline constexpr int kMT = 2, kNT = 4;      // warp tile 32 x 32: 2 m16 tiles x 4 n8 tiles
inline constexpr int kWM = 16 * kMT, kWN = 8 * kNT;
static_assert(kWM * kWarpsM == kBM && kWN * kWarpsN == kBN, "warps must tile the block");

/// Parameters of the split-panel kernels (byte addressing of the panels): one struct for the three
/// kernels on these panels (kernels/fused_kernel.cuh, wgmma_kernel.cuh, mixpert_kernel.cuh), which
/// share this main loop's tiling and tile_coords.
struct Args {
  const char* x;
  const char* y;
  std::int64_t x_row_bytes, y_row_bytes;  ///< parts * kp * element bytes
  std::int64_t part_bytes;                ///< kp * element bytes
  int m, n, tiles_m, tiles_n;
  int ktiles;                             ///< set by each kernel's launch for its own k-tile width
  float low_scale;                        ///< 2^scale_exp of the low groups
  /// int8-mixpert only (kernels/mixpert_kernel.cuh): tile exponents [line / 8][k-block] of x and y, with
  /// kblocks (even) k-blocks of 32 per line, and the number of 8-line tiles of each side.
  const std::int16_t* ex_x = nullptr;
  const std::int16_t* ex_y = nullptr;
  int kblocks = 0, tiles8_x = 0, tiles8_y = 0;
};

/// Byte offset of 16-byte chunk `ch` of tile row `row`: XOR swizzle so that the 8 row addresses of
/// an ldmatrix (rows r..r+7, one chunk) fall in 8 distinct bank groups.
__device__ __forceinline__ int swz(int row, int ch) { return row * kRowBytes + ((ch ^ ((row >> 1) & 3)) << 4); }

/// Block tile (row, column) of tile number `id`: groups of 8 block rows walk the columns together,
/// so the y tiles of a column stay in L2 while 8 x tiles use them.
__device__ __forceinline__ int2 tile_coords(const Args& a, int id) {
  const int per_group = 8 * a.tiles_n;
  const int first_m = (id / per_group) * 8;
  const int gsz = min(a.tiles_m - first_m, 8);
  return make_int2(first_m + (id % per_group) % gsz, (id % per_group) / gsz);
}

/// Block tile of blockIdx.x (one block per tile).
__device__ __forceinline__ int2 block_tile(const Args& a) { return tile_coords(a, blockIdx.x); }

/// Queues the cp.async loads of k-tile `kt` into the stage at shared address `s`: PX parts of the
/// block's x tile (kBM lines), then PY parts of its y tile (kBN lines), each part kRowBytes per line,
/// swizzled; rows past m / n and bytes past the padded part are zero-filled.
template <int PX, int PY>
__device__ __forceinline__ void load_stage(const Args& a, unsigned s, int kt, int m0, int n0, int tid) {
  constexpr int kTileA = kBM * kRowBytes, kTileB = kBN * kRowBytes;
  const std::int64_t kb = std::int64_t(kt) * kRowBytes;
  constexpr int kChunks = (PX * kBM + PY * kBN) * 4;
#pragma unroll
  for (int c0 = 0; c0 < kChunks; c0 += kThreads) {
    const int c = c0 + tid;
    const bool is_y = c >= PX * kBM * 4;
    const int cc = is_y ? c - PX * kBM * 4 : c;
    const int lines = is_y ? kBN : kBM;
    const int part = cc / (lines * 4), row = (cc / 4) % lines, ch = cc % 4;
    const int line = (is_y ? n0 : m0) + row;
    const bool valid = line < (is_y ? a.n : a.m) && kb + ch * 16 < a.part_bytes;
    const char* base = is_y ? a.y : a.x;
    const char* src = valid ? base + std::int64_t(line) * (is_y ? a.y_row_bytes : a.x_row_bytes) +
                                  part * a.part_bytes + kb + ch * 16
                            : base;
    const unsigned dst = is_y ? s + PX * kTileA + part * kTileB + swz(row, ch) : s + part * kTileA + swz(row, ch);
    arch::cp_async16_zfill(dst, src, valid);
  }
}

/// B fragments (kNT n8 tiles) of P parts for MMA step `ks` of the stage's y tile at `sy`.
template <int P>
__device__ __forceinline__ void load_y_fragments(std::uint32_t (&bf)[P][kNT][2], unsigned sy, int wn, int lane,
                                                 int ks) {
#pragma unroll
  for (int p = 0; p < P; ++p)
#pragma unroll
    for (int nj = 0; nj < kNT / 2; ++nj) {
      const int j = lane >> 3;
      const int row = wn * kWN + nj * 16 + (j >> 1) * 8 + (lane & 7);
      std::uint32_t r[4];
      ldmatrix_x4(r, sy + p * (kBN * kRowBytes) + swz(row, ks * 2 + (j & 1)));
      bf[p][2 * nj][0] = r[0];
      bf[p][2 * nj][1] = r[1];
      bf[p][2 * nj + 1][0] = r[2];
      bf[p][2 * nj + 1][1] = r[3];
    }
}

/// A fragment of m16 tile `mt` (P parts) for MMA step `ks` of the stage's x tile at `sx`.
template <int P>
__device__ __forceinline__ void load_x_fragment(std::uint32_t (&af)[P][4], unsigned sx, int wm, int lane, int ks,
                                                int mt) {
#pragma unroll
  for (int p = 0; p < P; ++p) {
    const int j = lane >> 3;
    const int row = wm * kWM + mt * 16 + (j & 1) * 8 + (lane & 7);
    ldmatrix_x4(af[p], sx + p * (kBM * kRowBytes) + swz(row, ks * 2 + (j >> 1)));
  }
}

/// A fragments (kMT m16 tiles) of P parts for MMA step `ks` of the stage's x tile at `sx`.
template <int P>
__device__ __forceinline__ void load_x_fragments(std::uint32_t (&af)[P][kMT][4], unsigned sx, int wm, int lane,
                                                 int ks) {
#pragma unroll
  for (int mt = 0; mt < kMT; ++mt) {
    std::uint32_t f[P][4];
    load_x_fragment<P>(f, sx, wm, lane, ks, mt);
#pragma unroll
    for (int p = 0; p < P; ++p)
#pragma unroll
      for (int r = 0; r < 4; ++r) af[p][mt][r] = f[p][r];
  }
}

/// The mma.sync kernels' k loop: acc zeroed, a kStages-deep cp.async ring of k-tiles (PX parts of the
/// x tile, PY of the y tile per stage, load_stage), and per k-tile: prefetch(kt) (work that does not
/// need the stage, issued before the wait so its latency overlaps it), wait for the stage, queue the
/// load of the stage kStages - 1 ahead, then step(kt, sx, sy) with the stage's x / y tile addresses.
/// Ends with the ring drained; the caller stores acc.
template <int PX, int PY, class Prefetch, class Step>
__device__ __forceinline__ void mma_sync_pipeline(const Args& a, unsigned sbase, int m0, int n0, int tid,
                                                  float (&acc)[kMT][kNT][4], Prefetch&& prefetch, Step&& step) {
  constexpr int kStageBytes = PX * kBM * kRowBytes + PY * kBN * kRowBytes;
#pragma unroll
  for (int i = 0; i < kMT; ++i)
#pragma unroll
    for (int j = 0; j < kNT; ++j)
#pragma unroll
      for (int r = 0; r < 4; ++r) acc[i][j][r] = 0.f;
#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < a.ktiles) load_stage<PX, PY>(a, sbase + s * kStageBytes, s, m0, n0, tid);
    arch::cp_async_commit();
  }
  for (int kt = 0; kt < a.ktiles; ++kt) {
    prefetch(kt);
    arch::cp_async_wait<kStages - 2>();
    __syncthreads();
    {
      const int next = kt + kStages - 1;
      if (next < a.ktiles) load_stage<PX, PY>(a, sbase + (next % kStages) * kStageBytes, next, m0, n0, tid);
      arch::cp_async_commit();
    }
    const unsigned st = sbase + (kt % kStages) * kStageBytes;
    step(kt, st, st + PX * kBM * kRowBytes);
  }
  arch::cp_async_wait<0>();
}

}  // namespace tcemu::cuda::detail::fused
