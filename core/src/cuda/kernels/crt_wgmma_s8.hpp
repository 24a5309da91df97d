#pragma once
// int8-crt's residue products on Hopper's INT8 wgmma (kernels/crt_wgmma_s8.cu; issue 21 item 3):
// for every modulus l and k chunk c, C_lc = X_lc Y_lc^T exactly in INT32, from the residue panels the
// residue pass writes (passes/crt_passes.hpp, crt_residues: per line, k contiguous, chunks one after
// another), written as cuBLAS's strided-batched INT8 GEMM in crt_path.cpp writes them, so that it can
// replace that call one for one. Host-callable; no CUDA device code here.
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "tcemu/float_bits.hpp"  // TCEMU_HD: residue_offset is also called in device code

namespace tcemu::cuda::detail::crt_s8 {

/// Most moduli of one batch (crt::kMaxModuli).
inline constexpr int kMaxProducts = 20;

/// The batch of INT8 x INT8 -> INT32 products. Product (l, c) for l < moduli, c < chunks:
///   C_lc(i, j) = sum_{kk < k} X(l, c, i, kk) * Y(l, c, j, kk),   i < m, j < n, exact (no wrap) for
///   k <= kMaxK and any int8 inputs;
///   X(l, c, i, kk) = x[l * x_mod_stride + i * x_ld + c * chunk_stride + kk] (bytes), Y likewise with y;
///   C_lc(i, j) at c_out[l * c_mod_stride + c * c_chunk_stride + j * ldc + i] (INT32 elements,
///   column-major per product, as cuBLAS writes C = X^T-op(X) Y in crt_path.cpp).
/// Layout rules (TMA, checked by check()): x and y 16-byte aligned; x_ld, y_ld, chunk_stride (when
/// chunks > 1), x_mod_stride, y_mod_stride (when moduli > 1) multiples of 16 bytes.
struct Products {
  const std::int8_t* x = nullptr;
  const std::int8_t* y = nullptr;
  std::int64_t m = 0, n = 0, k = 0;
  std::int64_t x_ld = 0, y_ld = 0;                   ///< bytes between lines
  std::int64_t x_mod_stride = 0, y_mod_stride = 0;   ///< bytes between moduli
  int moduli = 1;
  int chunks = 1;
  std::int64_t chunk_stride = 0;                     ///< bytes between k chunks of a line
  std::int32_t* c = nullptr;
  std::int64_t ldc = 0;                              ///< elements between columns of C_lc (>= m)
  std::int64_t c_chunk_stride = 0, c_mod_stride = 0; ///< elements between products
  /// The fused reduction (issue 21 item 3), instead of c: with `residues` set (and c null), the
  /// epilogue writes R_lc(i, j) = C_lc(i, j) mod p[l] as the symmetric residue in [-floor(p/2),
  /// p - 1 - floor(p/2)] (crt_arith::sym_residue_i32's value; int8 for 2 <= p <= 256) at
  /// residues[l * c_mod_stride + c * c_chunk_stride + residue_offset(i, j, m, n, tile)] (bytes; the
  /// strides in bytes, multiples of 16, c_mod_stride >= residue_panel_bytes(m, n)): the block tiles'
  /// accumulator fragments in register order (ldc unused), so that each thread stores 8-byte words.
  std::int8_t* residues = nullptr;
  int p[kMaxProducts] = {};                          ///< the moduli p_l, 2 <= p_l <= 256 (residues only)
};

/// Largest k of one product whose INT32 sums are exact for every int8 input: (2^17 - 1) * 2^14 < 2^31.
inline constexpr std::int64_t kMaxK = (std::int64_t{1} << 17) - 1;

/// Block tile columns: 256 (m64n256k32, 128 x 256 tiles, 4 stages of 48 KB; the default and what
/// int8-crt uses) or 128 (m64n128k32, 128 x 128 tiles, 6 stages of 32 KB; measured 35 % slower on an
/// H100, kept for comparisons). Rows: always 128 (two consumer warpgroups of 64).
enum class TileN { n256 = 256, n128 = 128 };

/// Layout of the fused reduction's residues (Products::residues), one product's panel of
/// residue_panel_bytes(m, n) bytes: bands of 128 rows (the last one m16 - 128 (tiles_m - 1) rows, m16
/// = m rounded up to 16) one after another; in a band, its block tiles (128 or fewer rows x BN columns,
/// BN = 256 or 128, the tile width) one after another; in a tile, its warps' 16-row slots (the two
/// consumer warpgroups' 4 warps each, 64 rows per warpgroup), 16 BN bytes each: granule s < BN / 16 of
/// lane L at s * 256 + L * 8, holding the warp's wgmma accumulator entries r = 8 s .. 8 s + 7 (the
/// fragment of m64nBN: row g + 8 ((r >> 1) & 1), column 2 q + 8 (r >> 2) + (r & 1), g = L / 4, q = L %
/// 4). So each thread stores 8-byte words, 256 contiguous bytes per warp (docs/perf-notes.md, "Session
/// 23"). Entries past m (up to m16) or n (up to the tile) hold the residues of zero lines (0).
inline constexpr std::int64_t kResidueTileRows = 128;

/// Bytes of one product's residue panel for m x n products with tile width `tile`:
/// round_up(m, 16) x round_up(n, BN); the n256 panel bounds the n128 one.
TCEMU_HD constexpr std::int64_t residue_panel_bytes(std::int64_t m, std::int64_t n, TileN tile = TileN::n256) {
  const std::int64_t bn = static_cast<std::int64_t>(tile);
  return (m + 15) / 16 * 16 * ((n + bn - 1) / bn * bn);
}

/// Bytes per row of one product's residue panel with tile width `tile`: n rounded up to the tile
/// (residue_panel_bytes(m, n, tile) = this x m for m a multiple of 16).
TCEMU_HD constexpr std::int64_t residue_row_bytes(std::int64_t n, TileN tile = TileN::n256) {
  const std::int64_t bn = static_cast<std::int64_t>(tile);
  return (n + bn - 1) / bn * bn;
}

/// Whether the fused reduction (int8 residues in the fragment layout) moves fewer bytes than INT32
/// products for products n columns wide: residue_row_bytes(n) < 4 n per row and product, i.e. n > 64
/// (below, the padding to the 256-column tile outweighs the 4-byte sums, and the reconstruction
/// reads every padded byte).
TCEMU_HD constexpr bool fused_reduction_pays(std::int64_t n) { return residue_row_bytes(n) < 4 * n; }

/// Rows per block of a call over m rows whose row-proportional buffers (residue panels of x, the
/// products' residues or INT32 sums) take bytes_per_row bytes for each row: all m when m rounded up
/// to 16 fits `budget` bytes, else the largest multiple of 16 that fits (a panel of mb rows is then
/// exactly mb x its row bytes), at least 16 (which may exceed a budget below 16 x bytes_per_row).
/// m, bytes_per_row and budget must be positive.
TCEMU_HD constexpr std::int64_t crt_row_block(std::int64_t m, std::int64_t bytes_per_row, std::int64_t budget) {
  const std::int64_t fit = budget / bytes_per_row / 16 * 16;
  if ((m + 15) / 16 * 16 <= fit) return m;
  const std::int64_t mb = fit > 16 ? fit : 16;
  return mb < m ? mb : m;
}

/// Rows of band `band` of an m-row panel: 128, the last band m rounded up to 16 minus 128 band.
TCEMU_HD constexpr std::int64_t residue_band_rows(std::int64_t m, std::int64_t band) {
  const std::int64_t left = (m + 15) / 16 * 16 - band * kResidueTileRows;
  return left < kResidueTileRows ? left : kResidueTileRows;
}

/// Byte offset of block tile (band, tile column tn) in one product's residue panel of m x n entries.
TCEMU_HD constexpr std::int64_t residue_tile_offset(std::int64_t m, std::int64_t n, std::int64_t band, std::int64_t tn,
                                                    TileN tile = TileN::n256) {
  const std::int64_t bn = static_cast<std::int64_t>(tile), width = (n + bn - 1) / bn * bn;
  return band * kResidueTileRows * width + tn * residue_band_rows(m, band) * bn;
}

/// Byte offset, inside its block tile, of accumulator entry r of lane `lane` in warp slot `slot`
/// (slot = 4 consumer + warp, 16 rows each).
TCEMU_HD constexpr std::int64_t residue_fragment_offset(std::int64_t slot, std::int64_t lane, std::int64_t r,
                                                        TileN tile = TileN::n256) {
  return slot * 16 * static_cast<std::int64_t>(tile) + (r / 8) * 256 + lane * 8 + r % 8;
}

/// Byte offset of entry (i, j) (i < m, j < n) in one product's residue panel (the layout above).
TCEMU_HD constexpr std::int64_t residue_offset(std::int64_t i, std::int64_t j, std::int64_t m, std::int64_t n,
                                               TileN tile = TileN::n256) {
  const std::int64_t bn = static_cast<std::int64_t>(tile), ti = i % kResidueTileRows, tj = j % bn;
  const std::int64_t g = ti % 8, half = (ti % 16) / 8;
  const std::int64_t r = (tj / 8) * 4 + half * 2 + (tj % 2), lane = g * 4 + (tj % 8) / 2;
  return residue_tile_offset(m, n, i / kResidueTileRows, j / bn, tile) + residue_fragment_offset(ti / 16, lane, r, tile);
}

/// "" when the kernel can run `p` (shapes, strides and alignment above; m, n, k >= 1; k <= kMaxK;
/// lines and products within int range; exactly one of c and residues; moduli <= kMaxProducts and
/// 2 <= p[l] <= 256 for residues), else one line naming the first problem.
std::string check(const Products& p);

/// True when this build holds the kernel for the current device (compiled for sm_90a and the device
/// is compute capability 9.0). Callers fall back to cuBLAS otherwise.
bool available();

/// Runs every product of `p` on `stream` with the persistent, warp-specialised wgmma kernel (one TMA
/// producer warp, two consumer warpgroups; one block per SM walks the tiles of all products).
/// Throws InvalidArgument with check()'s line when the kernel cannot run `p`, DeviceError on CUDA
/// errors or when !available().
void run(const Products& p, cudaStream_t stream, TileN tile = TileN::n256);

/// run(p, stream, tile) when check(p) is "" (returns true), else nothing launched and false: for
/// callers that fall back to cuBLAS, so that `p` is checked once. Throws as run() on CUDA errors or
/// when !available().
bool try_run(const Products& p, cudaStream_t stream, TileN tile = TileN::n256);

}  // namespace tcemu::cuda::detail::crt_s8
