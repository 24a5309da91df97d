// int8-crt's residue products on INT8 wgmma (crt_wgmma_s8.hpp). The kernel is the wgmma kernel's
// structure (kernels/wgmma_kernel.cuh) without its promotions, which INT32 accumulation does not need:
//  - persistent: one block per SM walks the 128 x BN tiles of all products (moduli x k chunks), so
//    the tail wave of one product is filled by the next product's tiles;
//  - warpgroup 0 is the producer: one thread streams 128-byte k-tiles of X (128 lines) and Y (BN
//    lines) with TMA (4-D tensor maps over k, chunk, line, modulus; 128-byte swizzle; positions past
//    k and lines past m / n read as zeros) into a ring of stages, each with a "full" and an "empty"
//    mbarrier (mainloops/wgmma_ring.cuh's protocol), and writes each tile's coordinates beside the
//    stage of its first k-tile, so that the consumers never divide (a short product's tile spent 7 %
//    of its time on them: docs/perf-notes.md, "Session 31");
//  - warpgroups 1 and 2 are consumers of 64 rows each: per k-tile four m64nBNk32 wgmmas into the
//    INT32 accumulators, one commit group per k-tile with one group left in flight (the stage of the
//    previous k-tile is released when its group has completed), then the epilogue (template
//    parameter Out) writes INT32 C, or reduces each entry mod p_l (Barrett) and writes int8 residues
//    in the accumulator fragments' order (8-byte stores; crt_wgmma_s8.hpp, residue_offset).
// Tiles are walked in groups of 16 block rows per column so that the X and Y tiles in use stay in L2.
// Measured (docs/perf-notes.md, "Session 14" and "Session 23"): H100 1,547 TOPS at 8192^3 (cuBLAS
// 1,304), 15 moduli 11.2 ms (cuBLAS's strided batch 15.1), 128 x 128 tiles 35 % slower than 128 x 256;
// H200, the residue epilogue in fragment order: 1,603 TOPS for one product (INT32 epilogue 1,518),
// 15 moduli 12.0 ms back to back (INT32 12.4).
#include "cuda/kernels/crt_wgmma_s8.hpp"

#include <cuda.h>
#include <cudaTypedefs.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "cuda/arch/device_query.hpp"
#include "cuda/arch/mbarrier.cuh"
#include "cuda/arch/tma.cuh"
#include "cuda/arch/wgmma.cuh"
#include "cuda/kernels.hpp"
#include "tcemu/crt_arith.hpp"
#include "tcemu/cuda/check.hpp"
#include "tcemu/error.hpp"
#include "tcemu/schemes/crt.hpp"

namespace tcemu::cuda::detail::crt_s8 {
namespace {

constexpr int kBM = 128;             // block tile rows: two consumers of 64
constexpr int kRowBytes = 128;       // k-tile: 128 INT8 positions per line (one 128-byte swizzle row)
constexpr int kRingBytes = 200 * 1024;
constexpr int kThreads = 384;        // producer warpgroup + two consumer warpgroups
constexpr int kGroupRows = 16;       // block rows per raster group (L2 reuse)

template <int BN>
struct Geometry {
  static constexpr int kTileX = kBM * kRowBytes, kTileY = BN * kRowBytes;
  static constexpr int kStageBytes = kTileX + kTileY;
  static constexpr int kStages = kRingBytes / kStageBytes;
  // The stages, their two barriers and one tile's coordinates (int4) each, and the alignment.
  static constexpr int kSmemBytes = kStages * kStageBytes + 32 * kStages + 1024;
};

/// What the epilogue writes: the INT32 products, or their symmetric residues mod p_l as int8.
enum class Out { int32, residue_s8 };

/// Kernel parameters besides the two tensor maps.
struct Params {
  std::int32_t* c;          // Out::int32
  std::int8_t* residues;    // Out::residue_s8
  std::int64_t ldc, c_chunk_stride, c_mod_stride;
  int m, n, tiles_m, tiles_n, ktiles, chunks, products;
  // Out::residue_s8, per modulus: the Barrett magic, off31 and 2^32 - p (crt_arith::modulus_u32), and
  // the two lane constants of crt_arith::sym_residue_bytes4_k17. neg_p comes from the host so that
  // the remainder is one IMAD q neg_p + s: derived in the kernel, the compiler rewrote q (0 - p) as
  // (0 - q) p, one more instruction per residue.
  std::uint32_t magic[kMaxProducts], off31[kMaxProducts], neg_p[kMaxProducts];
  std::uint32_t lanes_neg_p[kMaxProducts], lanes_shift[kMaxProducts];
};

/// The int8 symmetric residues of four INT32 products of k <= kMaxK terms as the bytes of one word
/// (crt_arith::sym_residue_bytes4_k17), with modulus l's constants.
__device__ __forceinline__ std::uint32_t residue_bytes4(std::int32_t v0, std::int32_t v1, std::int32_t v2,
                                                        std::int32_t v3, const Params& a, int l) {
  crt::arith::ModulusU32 m;
  m.magic = a.magic[l];
  m.off31 = a.off31[l];
  m.neg_p = a.neg_p[l];
  crt::arith::ResidueBytesLanes c;
  c.neg_p2 = a.lanes_neg_p[l];
  c.shift2 = a.lanes_shift[l];
  const std::int32_t v[4] = {v0, v1, v2, v3};
  return crt::arith::sym_residue_bytes4_k17(v, m, c);
}

/// (product, block row, block column) of tile `id`: products one after another; inside one, groups
/// of kGroupRows block rows walk the columns together.
__device__ __forceinline__ int3 tile_of(const Params& a, int id) {
  const int per_product = a.tiles_m * a.tiles_n;
  const int prod = id / per_product, t = id - prod * per_product;
  const int per_group = kGroupRows * a.tiles_n;
  const int first_m = (t / per_group) * kGroupRows;
  const int gsz = min(a.tiles_m - first_m, kGroupRows);
  const int r = t % per_group;
  return make_int3(prod, first_m + r % gsz, r / gsz);
}

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
template <int BN>
__device__ __forceinline__ void wgmma_s8(std::int32_t (&d)[BN / 2], std::uint64_t da, std::uint64_t db, int scale_d) {
  if constexpr (BN == 256)
    arch::wgmma_m64n256k32_s8(d, da, db, scale_d);
  else
    arch::wgmma_m64n128k32_s8(d, da, db, scale_d);
}
#endif

template <int BN, Out O>
__global__ void __launch_bounds__(kThreads, 1)
    s8_products_kernel(const __grid_constant__ CUtensorMap map_x, const __grid_constant__ CUtensorMap map_y,
                       Params a) {
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using G = Geometry<BN>;
  constexpr int S = G::kStages, kStageBytes = G::kStageBytes, kTileX = G::kTileX, NR = BN / 2;
  static_assert(S >= 3, "at least three stages");
  extern __shared__ unsigned char smem_raw[];
  const unsigned sraw = static_cast<unsigned>(__cvta_generic_to_shared(smem_raw));
  const unsigned sbase = (sraw + 1023u) & ~1023u;  // 128-byte swizzle atoms need 1024-byte alignment
  const unsigned full0 = sbase + S * kStageBytes, empty0 = full0 + 8 * S, coords0 = empty0 + 8 * S;
  const int tid = threadIdx.x, wgi = tid >> 7;
  const int ntiles = a.products * a.tiles_m * a.tiles_n;

  if (tid == 0) {
    for (int s = 0; s < S; ++s) {
      arch::mbar_init(full0 + 8 * s, 1);      // the producer's arrival (+ the TMA bytes)
      arch::mbar_init(empty0 + 8 * s, 8);     // one arrival per consumer warp
    }
    arch::mbar_fence_init();
  }
  __syncthreads();

  if (wgi == 0) {  // producer
    arch::setmaxnreg_dec<40>();
    if (tid == 0) {
      int it = 0;
      for (int tile = blockIdx.x; tile < ntiles; tile += gridDim.x) {
        const int3 t = tile_of(a, tile);
        const int l = t.x / a.chunks, ch = t.x - l * a.chunks;
        for (int kt = 0; kt < a.ktiles; ++kt, ++it) {
          const int s = it % S;
          arch::mbar_wait(empty0 + 8 * s, ((it / S) & 1) ^ 1);
          const unsigned full = full0 + 8 * s, dst = sbase + s * kStageBytes;
          if (kt == 0)  // the tile's coordinates, published by the "full" arrival below
            asm volatile("st.shared.v4.s32 [%0], {%1, %2, %3, %4};\n" ::"r"(coords0 + 16 * s), "r"(l), "r"(ch),
                         "r"(t.y), "r"(t.z)
                         : "memory");
          arch::mbar_expect_tx(full, kStageBytes);
          arch::tma_load_4d(dst, &map_x, full, kt * kRowBytes, ch, t.y * kBM, l);
          arch::tma_load_4d(dst + kTileX, &map_y, full, kt * kRowBytes, ch, t.z * BN, l);
        }
      }
    }
    return;
  }
  arch::setmaxnreg_inc<232>();

  const int cw = wgi - 1;  // this consumer's rows of the block tile: cw * 64 .. cw * 64 + 63
  const int lane = tid & 31, warp = (tid >> 5) & 3, g = lane >> 2, q4 = lane & 3;
  std::int32_t acc[NR];
#pragma unroll
  for (int r = 0; r < NR; ++r) acc[r] = 0;
  int it = 0;
  for (int tile = blockIdx.x; tile < ntiles; tile += gridDim.x) {
    int l = 0, ch = 0, row = 0, col = 0;  // the tile's coordinates, from the producer
    for (int kt = 0; kt < a.ktiles; ++kt, ++it) {
      const int s = it % S;
      arch::mbar_wait(full0 + 8 * s, (it / S) & 1);
      if (kt == 0)  // read before this stage is released, after which the producer may overwrite them
        asm volatile("ld.shared.v4.s32 {%0, %1, %2, %3}, [%4];\n"
                     : "=r"(l), "=r"(ch), "=r"(row), "=r"(col)
                     : "r"(coords0 + 16 * s)
                     : "memory");
      const unsigned sx = sbase + s * kStageBytes + cw * 64 * kRowBytes, sy = sbase + s * kStageBytes + kTileX;
      arch::wg_fence();
#pragma unroll
      for (int ks = 0; ks < kRowBytes / 32; ++ks)  // 32 bytes of k per wgmma; the first of a tile overwrites
        wgmma_s8<BN>(acc, arch::desc<kRowBytes>(sx + ks * 32), arch::desc<kRowBytes>(sy + ks * 32),
                     ks > 0 || kt > 0);
      arch::wg_commit();
      arch::wg_wait<1>();  // the previous k-tile's group has completed: its stage is free
      if (kt > 0 && lane == 0) arch::mbar_arrive(empty0 + 8 * ((it + S - 1) % S));
    }
    arch::wg_wait<0>();
    if (lane == 0) arch::mbar_arrive(empty0 + 8 * ((it + S - 1) % S));
#pragma unroll
    for (int r = 0; r < NR; ++r) arch::fence_operand(acc[r]);

    // Epilogue (the accumulator layout of m64nN: entry r at row g + 8 ((r >> 1) & 1) of the warp's
    // 16, column 2 q4 + 8 (r >> 2) + (r & 1)): INT32 C column-major per product, or the residues mod
    // p_l in the fragments' own order (crt_wgmma_s8.hpp, residue_offset): 8 per 8-byte store.
    const std::int64_t off = l * a.c_mod_stride + ch * a.c_chunk_stride;
    if constexpr (O == Out::int32) {
      const int i0 = row * kBM + cw * 64 + warp * 16 + g, j0 = col * BN + 2 * q4;
      const bool inside = row * kBM + kBM <= a.m && col * BN + BN <= a.n;
#pragma unroll
      for (int r = 0; r < NR; ++r) {
        const int i = i0 + ((r >> 1) & 1) * 8, j = j0 + (r >> 2) * 8 + (r & 1);
        if (inside || (i < a.m && j < a.n)) a.c[off + std::int64_t(j) * a.ldc + i] = acc[r];
      }
    } else {
      // Slots wholly past this band's rows (the last band: m rounded up to 16) are not stored.
      constexpr TileN kTile = static_cast<TileN>(BN);
      const int slot = cw * 4 + warp;
      std::int8_t* dst = a.residues + off + residue_tile_offset(a.m, a.n, row, col, kTile) +
                         residue_fragment_offset(slot, lane, 0, kTile);
      if (slot * 16 < residue_band_rows(a.m, row)) {
#pragma unroll
        for (int s = 0; s < NR / 8; ++s) {
          const int e = 8 * s;
          *reinterpret_cast<uint2*>(dst + s * 256) =
              make_uint2(residue_bytes4(acc[e], acc[e + 1], acc[e + 2], acc[e + 3], a, l),
                         residue_bytes4(acc[e + 4], acc[e + 5], acc[e + 6], acc[e + 7], a, l));
        }
      }
    }
  }
#else
  __trap();  // compiled for an architecture without wgmma: available() is false there
#endif
}

/// 4-D TMA map (k, chunk, line, modulus) of one operand, box 128 positions x 1 x box_lines x 1,
/// 128-byte swizzle; out-of-range positions and lines read as zeros.
CUtensorMap operand_map(const std::int8_t* base, std::int64_t k, int chunks, std::int64_t chunk_stride,
                        std::int64_t lines, std::int64_t ld, int moduli, std::int64_t mod_stride, int box_lines) {
  const auto encode = arch::tensor_map_encoder();
  CUtensorMap map{};
  const cuuint64_t dims[4] = {cuuint64_t(k), cuuint64_t(chunks), cuuint64_t(lines), cuuint64_t(moduli)};
  const cuuint64_t strides[3] = {cuuint64_t(chunk_stride), cuuint64_t(ld), cuuint64_t(mod_stride)};
  const cuuint32_t box[4] = {cuuint32_t(kRowBytes), 1, cuuint32_t(box_lines), 1};
  const cuuint32_t estride[4] = {1, 1, 1, 1};
  const CUresult r = encode(&map, CU_TENSOR_MAP_DATA_TYPE_UINT8, 4, const_cast<std::int8_t*>(base), dims, strides,
                            box, estride, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                            CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    throw DeviceError(std::string("tcemu cuda ") + schemes::Int8Crt::desc.name + " wgmma: cuTensorMapEncodeTiled failed (error " + std::to_string(int(r)) +
                      ") for " + std::to_string(moduli) + " panels of " + std::to_string(lines) + " lines x " +
                      std::to_string(chunks) + " chunks x " + std::to_string(k) + " bytes");
  return map;
}

template <int BN, Out O>
void launch(const Products& p, cudaStream_t stream) {
  using G = Geometry<BN>;
  Params a{};
  a.c = p.c;
  a.residues = p.residues;
  if constexpr (O == Out::residue_s8)
    for (int l = 0; l < p.moduli; ++l) {
      const crt::arith::ModulusU32 m = crt::arith::modulus_u32(p.p[l]);
      const crt::arith::ResidueBytesLanes c = crt::arith::residue_bytes_lanes(m);
      a.magic[l] = m.magic;
      a.off31[l] = m.off31;
      a.neg_p[l] = m.neg_p;
      a.lanes_neg_p[l] = c.neg_p2;
      a.lanes_shift[l] = c.shift2;
    }
  a.ldc = p.ldc;
  a.c_chunk_stride = p.c_chunk_stride;
  a.c_mod_stride = p.c_mod_stride;
  a.m = static_cast<int>(p.m);
  a.n = static_cast<int>(p.n);
  a.tiles_m = static_cast<int>((p.m + kBM - 1) / kBM);
  a.tiles_n = static_cast<int>((p.n + BN - 1) / BN);
  a.ktiles = static_cast<int>((p.k + kRowBytes - 1) / kRowBytes);
  a.chunks = p.chunks;
  a.products = p.moduli * p.chunks;
  // Strides of dimensions of extent 1 are never used to address; TMA only needs them valid.
  const std::int64_t kpad = (p.k + 15) / 16 * 16;
  const std::int64_t cs = p.chunks > 1 ? p.chunk_stride : kpad;
  const std::int64_t xms = p.moduli > 1 ? p.x_mod_stride : p.x_ld * p.m;
  const std::int64_t yms = p.moduli > 1 ? p.y_mod_stride : p.y_ld * p.n;
  const CUtensorMap mx = operand_map(p.x, p.k, p.chunks, cs, p.m, p.x_ld, p.moduli, xms, kBM);
  const CUtensorMap my = operand_map(p.y, p.k, p.chunks, cs, p.n, p.y_ld, p.moduli, yms, BN);
  static const bool configured = [] {
    TCEMU_CUDA(cudaFuncSetAttribute(s8_products_kernel<BN, O>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    G::kSmemBytes));
    return true;
  }();
  (void)configured;
  const std::int64_t tiles = std::int64_t(a.products) * a.tiles_m * a.tiles_n;
  const unsigned blocks = static_cast<unsigned>(std::min<std::int64_t>(tiles, device_sms()));
  s8_products_kernel<BN, O><<<blocks, kThreads, G::kSmemBytes, stream>>>(mx, my, a);
  TCEMU_LAUNCHED("the CRT INT8 wgmma products kernel");
}


}  // namespace

std::string check(const Products& p) {
  auto bad = [](const std::string& what) { return std::string(schemes::Int8Crt::desc.name) + " wgmma products: " + what; };
  if (!p.x || !p.y) return bad("null operand pointer");
  if ((p.c == nullptr) == (p.residues == nullptr)) return bad("exactly one output (c or residues) must be set");
  if (p.m < 1 || p.n < 1 || p.k < 1) return bad("empty product (m, n, k must be >= 1)");
  if (p.k > kMaxK)
    return bad("k = " + std::to_string(p.k) + " exceeds the INT32-exact limit " + std::to_string(kMaxK) +
               " (cut k into chunks)");
  if (p.moduli < 1 || p.chunks < 1) return bad("moduli and chunks must be >= 1");
  if (!arch::aligned16(p.x) || !arch::aligned16(p.y)) return bad("X or Y is not 16-byte aligned (TMA)");
  if (p.x_ld % 16 || p.y_ld % 16 || p.x_ld < p.k || p.y_ld < p.k)
    return bad("line strides " + std::to_string(p.x_ld) + ", " + std::to_string(p.y_ld) +
               " must be multiples of 16 bytes and >= k = " + std::to_string(p.k));
  if (p.chunks > 1 && (p.chunk_stride % 16 || p.chunk_stride < p.k))
    return bad("chunk stride " + std::to_string(p.chunk_stride) + " must be a multiple of 16 bytes and >= k");
  if (p.moduli > 1 && (p.x_mod_stride % 16 || p.y_mod_stride % 16 || p.x_mod_stride <= 0 || p.y_mod_stride <= 0))
    return bad("modulus strides must be positive multiples of 16 bytes");
  if (p.residues) {
    if (p.moduli > kMaxProducts) return bad("residues for more than " + std::to_string(kMaxProducts) + " moduli");
    for (int l = 0; l < p.moduli; ++l)
      if (p.p[l] < 2 || p.p[l] > 256) return bad("modulus p[" + std::to_string(l) + "] = " + std::to_string(p.p[l]) +
                                                 " outside [2, 256]");
    const std::int64_t panel = residue_panel_bytes(p.m, p.n);  // bounds the n128 tiles' panel too
    if (!arch::aligned16(p.residues) || p.c_mod_stride % 16 || p.c_chunk_stride % 16)
      return bad("the residues and their strides must be 16-byte aligned");
    const std::int64_t per_modulus = p.chunks > 1 ? p.c_chunk_stride * p.chunks : panel;
    if ((p.chunks > 1 && p.c_chunk_stride < panel) || (p.moduli > 1 && p.c_mod_stride < per_modulus))
      return bad("residue panels of " + std::to_string(panel) + " bytes overlap (c_mod_stride " +
                 std::to_string(p.c_mod_stride) + ", c_chunk_stride " + std::to_string(p.c_chunk_stride) + ")");
  } else if (p.ldc < p.m) {
    return bad("ldc = " + std::to_string(p.ldc) + " < m = " + std::to_string(p.m));
  }
  const std::int64_t tiles = std::int64_t(p.moduli) * p.chunks * ((p.m + kBM - 1) / kBM) * ((p.n + 127) / 128);
  if (p.m > INT32_MAX - 256 || p.n > INT32_MAX - 256 || tiles > INT32_MAX)
    return bad("m, n or the tile count exceed the kernel's 32-bit indices");
  return "";
}

bool available() {
  static const bool ok = [] {
    if (arch::compute_capability() != 90) return false;
    cudaFuncAttributes attr{};
    if (cudaFuncGetAttributes(&attr, s8_products_kernel<256, Out::int32>) != cudaSuccess) {
      (void)cudaGetLastError();
      return false;
    }
    return attr.binaryVersion == 90;
  }();
  return ok;
}

namespace {
/// Launches `p` (already checked) with the tile width `tile`.
void launch_checked(const Products& p, cudaStream_t stream, TileN tile) {
  if (!available())
    throw DeviceError(std::string("tcemu cuda: the ") + schemes::Int8Crt::desc.name + " wgmma products kernel needs an sm_90a build on a compute 9.0 GPU");
  if (p.c)
    tile == TileN::n256 ? launch<256, Out::int32>(p, stream) : launch<128, Out::int32>(p, stream);
  else
    tile == TileN::n256 ? launch<256, Out::residue_s8>(p, stream) : launch<128, Out::residue_s8>(p, stream);
}
}  // namespace

void run(const Products& p, cudaStream_t stream, TileN tile) {
  const std::string why = check(p);
  if (!why.empty()) throw InvalidArgument("tcemu cuda: " + why);
  launch_checked(p, stream, tile);
}

bool try_run(const Products& p, cudaStream_t stream, TileN tile) {
  if (!check(p).empty()) return false;
  launch_checked(p, stream, tile);
  return true;
}

}  // namespace tcemu::cuda::detail::crt_s8
