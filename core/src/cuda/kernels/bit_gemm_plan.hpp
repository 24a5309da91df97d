#pragma once
// Geometry, index tables and kernel parameters of the bit-indexed GEMM (tcemu/cuda/bit_gemm.hpp),
// shared by the host planner (bit_gemm.cpp) and the kernel (bit_gemm_kernel.cu). No CUDA types.
//
// A block tile is kBM rows of the view times all 2^d columns. Its element set is every combination of
// the bits T = Q (the d positions of the columns) + R (the kRowBits lowest positions outside Q), for
// fixed values of the other positions (the tile number's bits). T always holds the kRowBits lowest
// positions of the index, so the tile is runs of >= kBM consecutive elements: the kernel reads it in
// index order (t = the T bits of the index, compressed), 16 bytes (two elements) per cp.async, into
// a staging tile where both elements of a chunk stay adjacent (Geometry's staging comment).
#include <cstdint>

namespace tcemu::cuda::detail::bitgemm {

/// Compile-time geometry for d = D bits (complex columns 2^D, real k = real n = 2^(D+1)). The warps tile
/// the kBM x kK accumulator as kWarpsM x kWarpsN warps of kWM x kWN (kMT m16 x kNT n8 MMA tiles).
template <int D>
struct Geometry {
  static constexpr int kCols = 1 << D;
  static constexpr int kK = 2 * kCols;
  // A group of 8 warps works through its own tiles (own staging and split tile, named barrier). d = 6
  // fits one block per SM (U's split fills shared memory), so that block runs two groups on alternate
  // 32-row tiles: while one splits or stores, the other's MMAs keep the Tensor Cores busy (the
  // split / MMA / store phases of one group are serial). d < 6: one group, two blocks per SM.
  static constexpr int kGroups = D == 6 ? 2 : 1;
  static constexpr int kWarps = 8;  // per group
  static constexpr int kGroupThreads = 32 * kWarps;
  static constexpr int kThreads = kGroups * kGroupThreads;
  static constexpr int kWarpsN = kK / 32 < 4 ? kK / 32 : 4;
  static constexpr int kWarpsM = kWarps / kWarpsN;
  static constexpr int kWN = kK / kWarpsN;
  static constexpr int kNT = kWN / 8;
  static constexpr int kBM = D == 6 ? 32 : (16 * kWarpsM < 64 ? 64 : 16 * kWarpsM);
  static constexpr int kWM = kBM / kWarpsM;
  static constexpr int kMT = kWM / 16;
  static constexpr int kRowBits = kBM == 32 ? 5 : (kBM == 64 ? 6 : 7);
  static constexpr int kTileBits = kRowBits + D;
  static constexpr int kStages = D == 6 ? 2 : 4;  // tiles in flight per group
  // Staging tile (Tables::row_stage): rows of kRowStride bytes, or, when index bit 0 is a row bit,
  // pairs of rows (r, r+1) interleaved element by element in kPairStride bytes; either way the two
  // elements of a 16-byte chunk (index bit 0 = 0, 1) are adjacent. +16: fewer bank conflicts.
  static constexpr int kRowStride = kK * 4 + 16;
  static constexpr int kPairStride = 2 * kK * 4 + 16;
  static constexpr int kStageBytes = kBM * kRowStride;
  static constexpr int kPartStride = kK * 2 + 16;   // bytes per FP16 part row (+16: conflict-free ldmatrix)
  static constexpr int kABytes = 2 * kBM * kPartStride;
  static constexpr int kBBytes = 2 * kK * kPartStride;
  static constexpr int kGroupBytes = kStages * kStageBytes + kABytes;  // one group's staging + split tile
  static_assert(kBM == (1 << kRowBits) && kWM % 16 == 0 && kWN % 16 == 0, "bad tiling");
  static_assert(kTileBits <= 12 && kTileBits >= 7, "gather tables hold 6 + 6 bits");
  static_assert(kStageBytes % 16 == 0 && kABytes % 16 == 0 && kBBytes % 16 == 0, "16-byte regions");
};

/// Row bits of the tile for d (Geometry<d>::kRowBits at run time; d in [4, 6]).
inline constexpr int row_bits_for(int d) { return d == 4 ? 7 : (d == 5 ? 6 : 5); }

/// Index tables of one call (built on the host, copied to shared memory by every block).
struct Tables {
  std::uint32_t base[4][256];       ///< tile number b -> index offset (b's bits at the positions outside T)
  std::uint32_t gather_index[2][64];  ///< t & 63 / t >> 6 -> index offset (t's bits at T, ascending)
  std::uint32_t gather_smem[2][64];   ///< the same -> byte offset in the staging tile (row r, column c)
  std::uint32_t row_off[128];       ///< tile row r -> index offset (r's bits at R)
  std::uint32_t row_stage[128];     ///< tile row r -> byte offset of its column 0 in the staging tile
  std::uint32_t col_off[64];        ///< column c -> index offset (c's bits at Q)
};
static_assert(sizeof(Tables) % 16 == 0, "copied in 16-byte chunks");

/// Kernel parameters.
struct Params {
  const void* x = nullptr;         ///< 2^n complex<float>
  void* y = nullptr;               ///< 2^n complex<float>
  const Tables* tables = nullptr;  ///< device copy
  const std::uint16_t* b_parts = nullptr;  ///< FP16 bits [part][line n][k], kK x kK per part
  int b_sigma = 0;                 ///< U's power-of-two scale exponent
  int row_sigma_max = 60;          ///< largest row scale exponent (2^-(it + b_sigma) stays normal)
  int stage_col_bytes = 8;         ///< staging distance of columns c, c+1: 8, or 16 with row pairs
  std::uint64_t tiles = 0;         ///< 2^(n - kTileBits)
  unsigned* flags = nullptr;       ///< [0] broken-rule bits (kFlag*), [1] largest row spread (FP32 bits)
};

inline constexpr unsigned kFlagSpread = 1, kFlagNonFinite = 2, kFlagScale = 4;

/// Launches the kernel for D (bit_gemm_kernel.cu; D in [4, 6]). Throws DeviceError on failure.
template <int D>
void launch(const Params& p, void* stream);

}  // namespace tcemu::cuda::detail::bitgemm
