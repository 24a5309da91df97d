#pragma once
// The fused split-part kernel template (fused.hpp). One template serves every scheme: the Tensor Core
// instruction (MmaKind) and the product table (ProductSet) are template parameters.
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/fused/fused.hpp"
#include "tcemu/schemes/all.hpp"
#include "tcemu/cuda/check.hpp"

namespace tcemu::cuda::detail::fused {

/// The Tensor Core instruction: m16n8k16 for FP16/BF16 parts, m16n8k8 for TF32 parts. Either way one
/// step consumes 32 bytes of k per row, so tiles, ldmatrix addressing and fragments are shared.
enum class MmaKind { f16, bf16, tf32 };

/// Which part products a kernel instance computes: the fused table a scheme's descriptor names
/// (tcemu/scheme.hpp's FusedTable; none is never instantiated).
using ProductSet = ::tcemu::FusedTable;

/// The (instruction, product table) pairs that have kernels, one list per instruction kind:
/// X(P, kind, set) for each. The per-kind translation units instantiate their list, the dispatcher
/// declares all of them (P = extern), so a new table is added here once.
#define TCEMU_FUSED_TABLES_F16(X, P) X(P, f16, hi_cross) X(P, f16, all_four) X(P, f16, hi_low3)
#define TCEMU_FUSED_TABLES_BF16(X, P) X(P, bf16, three) X(P, bf16, nine)
#define TCEMU_FUSED_TABLES_TF32(X, P) X(P, tf32, hi_cross) X(P, tf32, hi_low3)
#define TCEMU_FUSED_TABLES(X, P) \
  TCEMU_FUSED_TABLES_F16(X, P) TCEMU_FUSED_TABLES_BF16(X, P) TCEMU_FUSED_TABLES_TF32(X, P)

/// Product table: n0 products into the promoted group-0 accumulator, nl into the low accumulator.
/// The descriptors' own product table (schemes::fused_products, checked at compile time to agree
/// between the descriptors that share a table).
using ProductList = ::tcemu::schemes::FusedProducts;

__host__ __device__ constexpr ProductList products_of(ProductSet s) { return ::tcemu::schemes::fused_products(s); }

/// True when the low products chain apart from group 0 and meet it in FP32 registers (scaled by
/// Args::low_scale): FP16 parts with the hi_cross table (scaled lo) and the line-aligned hi_low3 table
/// (the hi x hi chain stays exact only without the low products).
__host__ __device__ constexpr bool separate_low(MmaKind k, ProductSet s) {
  return s == ProductSet::hi_low3 || (k == MmaKind::f16 && s == ProductSet::hi_cross);
}

inline constexpr int kBM = 128, kBN = 128;  // block tile (accumulator rows x columns)
inline constexpr int kRowBytes = 64;        // bytes of k per tile row and k-tile (4 chunks of 16 B)
inline constexpr int kStages = 3;
inline constexpr int kWarpsM = 4, kWarpsN = 4, kThreads = 32 * kWarpsM * kWarpsN;
inline constexpr int kMT = 2, kNT = 4;      // warp tile 32 x 32: 2 m16 tiles x 4 n8 tiles
inline constexpr int kWM = 16 * kMT, kWN = 8 * kNT;
static_assert(kWM * kWarpsM == kBM && kWN * kWarpsN == kBN, "warps must tile the block");

/// Dynamic shared memory of one kernel instance.
__host__ __device__ constexpr int smem_bytes(ProductSet s) {
  return kStages * (products_of(s).parts * (kBM + kBN)) * kRowBytes;
}

/// Kernel parameters (byte addressing of the panels).
struct Args {
  const char* x;
  const char* y;
  std::int64_t x_row_bytes, y_row_bytes;  ///< parts * kp * element bytes
  std::int64_t part_bytes;                ///< kp * element bytes
  int m, n, tiles_m, tiles_n;
  int ktiles;                             ///< set by each kernel's launch for its own k-tile width
  float low_scale;                        ///< 2^scale_exp of the low groups
  /// int8-mixpert only (mixpert_kernel.cuh): tile exponents [line / 8][k-block] of x and y, with
  /// kblocks (even) k-blocks of 32 per line, and the number of 8-line tiles of each side.
  const std::int16_t* ex_x = nullptr;
  const std::int16_t* ex_y = nullptr;
  int kblocks = 0, tiles8_x = 0, tiles8_y = 0;
};

template <MmaKind K>
__device__ __forceinline__ void mma(float (&d)[4], const std::uint32_t (&a)[4], const std::uint32_t (&b)[2],
                                    float c0, float c1, float c2, float c3) {
  if constexpr (K == MmaKind::f16) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%10,%11,%12,%13};\n"
        : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c0), "f"(c1), "f"(c2), "f"(c3));
  } else if constexpr (K == MmaKind::bf16) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%10,%11,%12,%13};\n"
        : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c0), "f"(c1), "f"(c2), "f"(c3));
  } else {
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%10,%11,%12,%13};\n"
        : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c0), "f"(c1), "f"(c2), "f"(c3));
  }
}

__device__ __forceinline__ void ldmatrix_x4(std::uint32_t (&r)[4], unsigned addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}

__device__ __forceinline__ void cp_async16(unsigned dst, const void* src, bool valid) {
  const int bytes = valid ? 16 : 0;  // 0: zero-fill (rows past m/n, k past the padded part)
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(bytes));
}

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
    cp_async16(dst, src, valid);
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
    asm volatile("cp.async.commit_group;\n" ::);
  }
  for (int kt = 0; kt < a.ktiles; ++kt) {
    prefetch(kt);
    asm volatile("cp.async.wait_group %0;\n" ::"n"(kStages - 2));
    __syncthreads();
    {
      const int next = kt + kStages - 1;
      if (next < a.ktiles) load_stage<PX, PY>(a, sbase + (next % kStages) * kStageBytes, next, m0, n0, tid);
      asm volatile("cp.async.commit_group;\n" ::);
    }
    const unsigned st = sbase + (kt % kStages) * kStageBytes;
    step(kt, st, st + PX * kBM * kRowBytes);
  }
  asm volatile("cp.async.wait_group 0;\n" ::);
}

/// Epilogue of a warp's 32 x 32 accumulator tile: C = alpha * acc + beta * C in the precision of T
/// (one FMA: fma(alpha, acc, beta * C)).
template <class T>
__device__ __forceinline__ void store_accumulators(const float (&acc)[kMT][kNT][4], const Args& a,
                                                   const Epilogue<T>& e, int m0, int n0, int wm, int wn,
                                                   int lane) {
  const int g = lane >> 2, t = lane & 3;
#pragma unroll
  for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
    for (int nt = 0; nt < kNT; ++nt)
#pragma unroll
      for (int r = 0; r < 4; ++r) {
        const int i = m0 + wm * kWM + mt * 16 + g + (r >> 1) * 8;
        const int jj = n0 + wn * kWN + nt * 8 + 2 * t + (r & 1);
        if (i >= a.m || jj >= a.n) continue;
        const T v = static_cast<T>(acc[mt][nt][r]);
        T* c = e.c + std::int64_t(i) * e.c_rs + std::int64_t(jj) * e.c_cs;
        *c = e.beta == T(0) ? e.alpha * v : fma(e.alpha, v, e.beta * *c);  // explicit: the host reference's order
      }
}

/// Raises the dynamic shared memory limit of `Kernel` once (one static per kernel instance) and
/// launches it on the tile grid of `args`.
template <auto Kernel, class T>
void launch_on_tiles(int smem, int threads, const Args& args, const Epilogue<T>& e, cudaStream_t stream,
                     const char* name) {
  static const bool configured = [smem] {
    TCEMU_CUDA(cudaFuncSetAttribute(Kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    return true;
  }();
  (void)configured;
  const std::int64_t blocks = std::int64_t(args.tiles_m) * args.tiles_n;
  Kernel<<<static_cast<unsigned>(blocks), threads, smem, stream>>>(args, e);
  ::tcemu::cuda::detail::check_cuda(cudaGetLastError(), name, __FILE__, __LINE__);
}

template <MmaKind K, ProductSet PS, class T>
__global__ void __launch_bounds__(kThreads, 1) fused_kernel(Args a, Epilogue<T> e) {
  constexpr int P = products_of(PS).parts;
  extern __shared__ __align__(128) unsigned char smem[];
  const unsigned sbase = static_cast<unsigned>(__cvta_generic_to_shared(smem));

  const int2 tile = block_tile(a);
  const int m0 = tile.x * kBM, n0 = tile.y * kBN;

  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int wm = warp / kWarpsN, wn = warp % kWarpsN;

  // Separate chains for the low products and group 0: fp16x2 / LE-GEMM's low parts carry a
  // power-of-two scale; fp16x2-aligned's group 0 must start each step from zero to stay exact.
  constexpr bool kSeparateLow = separate_low(K, PS);
  float acc[kMT][kNT][4];
  mma_sync_pipeline<P, P>(a, sbase, m0, n0, tid, acc, [](int) {}, [&](int, unsigned sx, unsigned sy) {
    constexpr ProductList L = products_of(PS);  // local: a captured table would live on the stack
    // Two 32-byte MMA steps per 64-byte k-tile, not unrolled: unrolling lets the compiler load both
    // steps' fragments at once, which spills with three parts.
#pragma unroll 1
    for (int ks = 0; ks < 2; ++ks) {
      std::uint32_t bf[P][kNT][2];
      load_y_fragments<P>(bf, sy, wn, lane, ks);
      std::uint32_t af[P][kMT][4];
      load_x_fragments<P>(af, sx, wm, lane, ks);
      // Per output fragment and MMA step: the low products chained inside the Tensor Core from a
      // zero accumulator, then (same scale) the group-0 products on top, and the step's sum added to
      // the FP32 accumulator with a round-to-nearest FADD: the Tensor Core's truncating addition
      // only ever sees one step's partial sums, never the running total. With scaled low parts
      // (fp16x2: lo carries 2^12) the two chains stay apart and meet in the FP32 registers, the step's
      // own sum first: one rounding at the running total's magnitude per step, as without them (two
      // such roundings per 8-element TF32 step measured 1.18e-6 against 1e-6 at k = 16384).
#pragma unroll
      for (int mt = 0; mt < kMT; ++mt)
#pragma unroll
        for (int nt = 0; nt < kNT; ++nt) {
          float t[4] = {0.f, 0.f, 0.f, 0.f};
#pragma unroll
          for (int q = 0; q < L.nl; ++q)
            mma<K>(t, af[L.al[q]][mt], bf[L.bl[q]][nt], t[0], t[1], t[2], t[3]);
          if constexpr (kSeparateLow) {
            float h[4];
            mma<K>(h, af[0][mt], bf[0][nt], 0.f, 0.f, 0.f, 0.f);
#pragma unroll
            for (int r = 0; r < 4; ++r) acc[mt][nt][r] = __fadd_rn(acc[mt][nt][r], __fmaf_rn(t[r], a.low_scale, h[r]));
          } else {
#pragma unroll
            for (int q = 0; q < L.n0; ++q)
              mma<K>(t, af[L.a0[q]][mt], bf[L.b0[q]][nt], t[0], t[1], t[2], t[3]);
#pragma unroll
            for (int r = 0; r < 4; ++r) acc[mt][nt][r] = __fadd_rn(acc[mt][nt][r], t[r]);
          }
        }
    }
  });
  store_accumulators(acc, a, e, m0, n0, wm, wn, lane);
}

/// Launches fused_kernel<K, PS, T> (instantiated in fused_<kind>.cu).
template <MmaKind K, ProductSet PS, class T>
void launch(const Args& args, const Epilogue<T>& e, cudaStream_t stream) {
  Args a = args;
  a.ktiles = static_cast<int>((a.part_bytes + kRowBytes - 1) / kRowBytes);
  launch_on_tiles<fused_kernel<K, PS, T>>(smem_bytes(PS), kThreads, a, e, stream, "launch of the fused split-part kernel");
}

/// Explicit instantiations (PREFIX empty, in fused_<kind>.cu) or their declarations (PREFIX extern,
/// in fused_dispatch.cu) of launch<K, S, float / double>.
#define TCEMU_FUSED_LAUNCH(PREFIX, K, S)                                                                    \
  PREFIX template void launch<MmaKind::K, ProductSet::S, float>(const Args&, const Epilogue<float>&,        \
                                                                cudaStream_t);                              \
  PREFIX template void launch<MmaKind::K, ProductSet::S, double>(const Args&, const Epilogue<double>&,      \
                                                                 cudaStream_t);

}  // namespace tcemu::cuda::detail::fused
