// int8-mixpert on the host: the reference the CUDA kernel is checked against bit for bit
// (tcemu/mixpert.hpp has the arithmetic both share). Both operands are packed into per-line digit
// rows [line][k-block][segment][32] (INT8) and per-tile exponents; each output element then walks
// its k-blocks in ascending order: exact INT32 segment dot products, grouped by i + j, combined and
// added to the FP32 accumulator exactly as the kernel does.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <vector>

#include "host/paths.hpp"
#include "tcemu/mixpert.hpp"

namespace tcemu::host {
namespace {

using clock = std::chrono::steady_clock;
double since(clock::time_point t0) { return std::chrono::duration<double>(clock::now() - t0).count(); }

/// One packed operand (lines x k).
struct Packed {
  std::int64_t lines = 0, kblocks = 0;
  int segs = 0;
  std::vector<std::int8_t> digits;  ///< [line][kblock][seg][kTileK]
  std::vector<int> exps;            ///< [line / kTileLines][kblock]
  mixpert::PackCheck check;

  const std::int8_t* row(std::int64_t line, std::int64_t kb, int seg) const {
    return digits.data() + ((line * kblocks + kb) * segs + seg) * mixpert::kTileK;
  }
};

/// Packs x (lines x k; element (l, kk) = at(l, kk)) with `segs` segments per element.
template <class At>
Packed pack(std::int64_t lines, std::int64_t k, int segs, At at) {
  using namespace mixpert;
  Packed p;
  p.lines = lines;
  p.kblocks = (k + kTileK - 1) / kTileK;
  p.segs = segs;
  const std::int64_t tiles_l = (lines + kTileLines - 1) / kTileLines;
  p.digits.assign(static_cast<std::size_t>(lines * p.kblocks * segs * kTileK), 0);
  p.exps.assign(static_cast<std::size_t>(tiles_l * p.kblocks), kZeroTileExp);
  p.check.tiles = tiles_l * p.kblocks;
  std::vector<std::int64_t> wide(static_cast<std::size_t>(tiles_l), 0), nonfinite(wide.size(), 0);
  std::int8_t* dg = p.digits.data();
  int* ex = p.exps.data();
  std::int64_t* wd = wide.data();
  std::int64_t* nf = nonfinite.data();
  const std::int64_t kblocks = p.kblocks;
  Kokkos::parallel_for(
      "tcemu::mixpert_pack", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, tiles_l),
      [=](std::int64_t tl) {
        const std::int64_t l0 = tl * kTileLines, l1 = std::min(lines, l0 + kTileLines);
        for (std::int64_t kb = 0; kb < kblocks; ++kb) {
          const std::int64_t k0 = kb * kTileK, k1 = std::min(k, k0 + kTileK);
          double tile_max = 0;
          int emin = 1 << 20, emax = -(1 << 20);
          for (std::int64_t l = l0; l < l1; ++l) {
            double line_max = 0;
            for (std::int64_t kk = k0; kk < k1; ++kk) {
              const double v = std::fabs(static_cast<double>(static_cast<float>(at(l, kk))));
              if (!std::isfinite(v)) ++nf[tl];
              else line_max = std::max(line_max, v);
            }
            if (line_max > 0) {
              const int e = std::ilogb(line_max);
              emin = std::min(emin, e);
              emax = std::max(emax, e);
            }
            tile_max = std::max(tile_max, line_max);
          }
          if (k1 - k0 == kTileK && emax - emin > kMaxTileSpreadBits) ++wd[tl];  // full k-blocks only
          const int e = tile_exponent(tile_max, segs);
          ex[tl * kblocks + kb] = e;
          for (std::int64_t l = l0; l < l1; ++l)
            for (std::int64_t kk = k0; kk < k1; ++kk) {
              const float x = static_cast<float>(at(l, kk));
              if (!std::isfinite(x)) continue;  // the caller falls back (or, under ignore, counts it as 0)
              digits(x, e, segs, dg + ((l * kblocks + kb) * segs) * kTileK + (kk - k0), kTileK);
            }
        }
      });
  for (std::size_t t = 0; t < wide.size(); ++t) {
    p.check.wide_tiles += wide[t];
    p.check.nonfinite += nonfinite[t];
  }
  return p;
}

std::int32_t dot32(const std::int8_t* a, const std::int8_t* b) {
  std::int32_t s = 0;
  for (int i = 0; i < mixpert::kTileK; ++i) s += std::int32_t(a[i]) * std::int32_t(b[i]);
  return s;
}

}  // namespace

template <class T>
void gemm_mixpert(const Scheme& s, T alpha, MatrixView<const T> a, MatrixView<const T> b, T beta,
                  MatrixView<T> C, Timings& t, const std::function<bool(const MixpertChecks&)>& proceed) {
  const std::int64_t m = a.rows, n = b.cols, k = a.cols;
  const mixpert::Segments seg = mixpert::segments(s.level);
  auto t0 = clock::now();
  const Packed pa = pack(m, k, seg.x, [=](std::int64_t l, std::int64_t kk) { return a(l, kk); });
  const Packed pb = pack(n, k, seg.y, [=](std::int64_t l, std::int64_t kk) { return b(kk, l); });
  t.split += since(t0);
  if (!proceed(MixpertChecks{pa.check, pb.check})) return;

  t0 = clock::now();
  const std::int64_t kblocks = pa.kblocks;
  const Packed* px = &pa;
  const Packed* py = &pb;
  Kokkos::parallel_for(
      "tcemu::mixpert_products", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, m),
      [=](std::int64_t i) {
        const int* exi = px->exps.data() + (i / mixpert::kTileLines) * kblocks;
        for (std::int64_t j = 0; j < n; ++j) {
          const int* exj = py->exps.data() + (j / mixpert::kTileLines) * kblocks;
          float acc = 0.f;
          for (std::int64_t kb = 0; kb < kblocks; ++kb) {
            std::int32_t td[mixpert::kMaxGroups] = {0, 0, 0, 0};
            for (int p = 0; p < seg.x; ++p)
              for (int q = 0; q < seg.y; ++q)
                if (mixpert::kept(p, q)) td[p + q] += dot32(px->row(i, kb, p), py->row(j, kb, q));
            acc = mixpert::accumulate(acc, mixpert::step_value(mixpert::chains(td)),
                                      mixpert::step_scale(exi[kb], exj[kb]));
          }
          const T v = static_cast<T>(acc);
          C(i, j) = beta == T(0) ? alpha * v : std::fma(alpha, v, beta * C(i, j));  // the kernel's epilogue
        }
      });
  t.products += since(t0);
}

template void gemm_mixpert<float>(const Scheme&, float, MatrixView<const float>, MatrixView<const float>, float,
                                  MatrixView<float>, Timings&, const std::function<bool(const MixpertChecks&)>&);
template void gemm_mixpert<double>(const Scheme&, double, MatrixView<const double>, MatrixView<const double>,
                                   double, MatrixView<double>, Timings&,
                                   const std::function<bool(const MixpertChecks&)>&);

}  // namespace tcemu::host
