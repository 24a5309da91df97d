// The variants study of hplai's trailing-update maxima and scalings (apps/hplai/kernels.hpp) on a
// CUDA-enabled Kokkos: the same two operations, max |X| and X *= 2^e, on the column-major blocks
// L21 (rest x nb, columns of `rest` contiguous floats) and U12 (nb x rest, columns of nb floats) of an
// n x n factor matrix (leading dimension n), written five ways:
//   range   Kokkos RangePolicy, one element per work item, (i, j) by 64-bit division (06464a9)
//   team    Kokkos TeamPolicy, one team of 256 per 1,024-element chunk of a column (5c669ab)
//   stride  Kokkos RangePolicy over a fixed number W of work items, each walking its elements
//           W apart four at a time, (line, k) advanced incrementally (no division in the loop)
//   mdrange Kokkos MDRangePolicy over (k, line), no division
//   chunkU  Kokkos RangePolicy with the team variant's layout (256 items per 256 U elements of a
//           column), U = 4, 8, 16 loads per item, one division per item, the maximum in float
//   cuda    the hand-written grid-stride CUDA kernels of 46106cb (apps/hplai/cuda_run.cu there)
//           (block_absmax with a per-warp atomicMax, block_scale)
// Each call is timed on the host around the call and a fence (what hplai's loop sees: its maxima
// wait for their result), median of 21 after 3 warm-ups; GB/s counts bytes read (max) or read +
// written (scale). Every variant's maximum is checked against the first's, and the whole matrix
// against its copy before the (x2, x0.5) scalings.
// Usage: hplai_kernel_variants [n = 49152]
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace {

using Matrix = Kokkos::View<float**, Kokkos::LayoutLeft, Kokkos::CudaSpace>;
using Range = std::pair<std::int64_t, std::int64_t>;

struct Lines {  // column-major block: `lines` columns of `length` contiguous floats, `stride` apart
  float* data;
  std::int64_t lines, length, stride;
  KOKKOS_INLINE_FUNCTION float* line(std::int64_t l) const { return data + l * stride; }
};

// ---- range (06464a9)
template <class V>
double max_range(const Kokkos::Cuda& s, const V& X) {
  const std::int64_t rows = X.extent(0), cols = X.extent(1);
  double m = 0;
  Kokkos::parallel_reduce(
      "range_max", Kokkos::RangePolicy<Kokkos::Cuda>(s, 0, rows * cols),
      KOKKOS_LAMBDA(std::int64_t e, double& acc) {
        const double v = X(e % rows, e / rows);
        const double a = v < 0 ? -v : v;
        acc = a > acc ? a : acc;
      },
      Kokkos::Max<double>(m));
  s.fence();
  return m;
}
template <class V>
void scale_range(const Kokkos::Cuda& s, const V& X, float f) {
  const std::int64_t rows = X.extent(0), cols = X.extent(1);
  Kokkos::parallel_for(
      "range_scale", Kokkos::RangePolicy<Kokkos::Cuda>(s, 0, rows * cols),
      KOKKOS_LAMBDA(std::int64_t e) { X(e % rows, e / rows) *= f; });
}

// ---- team (5c669ab)
constexpr int kTeam = 256, kUnroll = 4;
constexpr std::int64_t kChunk = kTeam * kUnroll;
double max_team(const Kokkos::Cuda& s, const Lines at) {
  using Policy = Kokkos::TeamPolicy<Kokkos::Cuda>;
  const std::int64_t per_line = (at.length + kChunk - 1) / kChunk;
  double m = 0;
  Kokkos::parallel_reduce(
      "team_max", Policy(s, static_cast<int>(at.lines * per_line), kTeam),
      KOKKOS_LAMBDA(const Policy::member_type& team, double& acc) {
        const float* line = at.line(team.league_rank() / per_line);
        const std::int64_t first = (team.league_rank() % per_line) * kChunk + team.team_rank();
        double a[kUnroll];
        for (int q = 0; q < kUnroll; ++q) {
          const std::int64_t k = first + q * kTeam;
          const double v = k < at.length ? line[k] : 0.0;
          a[q] = v < 0 ? -v : v;
        }
        for (int q = 0; q < kUnroll; ++q) acc = a[q] > acc ? a[q] : acc;
      },
      Kokkos::Max<double>(m));
  s.fence();
  return m;
}
void scale_team(const Kokkos::Cuda& s, const Lines at, float f) {
  using Policy = Kokkos::TeamPolicy<Kokkos::Cuda>;
  const std::int64_t per_line = (at.length + kChunk - 1) / kChunk;
  Kokkos::parallel_for(
      "team_scale", Policy(s, static_cast<int>(at.lines * per_line), kTeam),
      KOKKOS_LAMBDA(const Policy::member_type& team) {
        float* line = at.line(team.league_rank() / per_line);
        const std::int64_t first = (team.league_rank() % per_line) * kChunk + team.team_rank();
        for (int q = 0; q < kUnroll; ++q) {
          const std::int64_t k = first + q * kTeam;
          if (k < at.length) line[k] *= f;
        }
      });
}

// ---- stride: W work items, item w owns elements w, w + W, w + 2W, ... (in line-major order)
struct Walk {  // four positions u W apart, advanced by 4W per step without division
  std::int64_t total, W, dl, dk;  // dl, dk: 4W = dl * length + dk
};
constexpr std::int64_t kItems = std::int64_t{1} << 19;
Walk walk_of(const Lines& at) {
  Walk w;
  w.total = at.lines * at.length;
  w.W = std::min<std::int64_t>((w.total + 3) / 4, kItems);
  w.dl = (4 * w.W) / at.length;
  w.dk = (4 * w.W) % at.length;
  return w;
}
template <class F>
KOKKOS_INLINE_FUNCTION void walk(const Lines& at, const Walk& w, std::int64_t item, const F& f) {
  std::int64_t l[4], k[4];
  for (int u = 0; u < 4; ++u) {
    const std::int64_t e = item + u * w.W;
    l[u] = e / at.length;
    k[u] = e - l[u] * at.length;
  }
  for (std::int64_t e = item; e < w.total; e += 4 * w.W) {
    for (int u = 0; u < 4; ++u)
      if (e + u * w.W < w.total) f(at.line(l[u])[k[u]]);
    for (int u = 0; u < 4; ++u) {
      k[u] += w.dk;
      l[u] += w.dl;
      if (k[u] >= at.length) k[u] -= at.length, ++l[u];
    }
  }
}
double max_stride(const Kokkos::Cuda& s, const Lines at) {
  const Walk w = walk_of(at);
  double m = 0;
  Kokkos::parallel_reduce(
      "stride_max", Kokkos::RangePolicy<Kokkos::Cuda>(s, 0, w.W),
      KOKKOS_LAMBDA(std::int64_t item, double& acc) {
        walk(at, w, item, [&](float& x) {
          const double a = x < 0 ? -static_cast<double>(x) : static_cast<double>(x);
          acc = a > acc ? a : acc;
        });
      },
      Kokkos::Max<double>(m));
  s.fence();
  return m;
}
void scale_stride(const Kokkos::Cuda& s, const Lines at, float f) {
  const Walk w = walk_of(at);
  Kokkos::parallel_for(
      "stride_scale", Kokkos::RangePolicy<Kokkos::Cuda>(s, 0, w.W),
      KOKKOS_LAMBDA(std::int64_t item) { walk(at, w, item, [&](float& x) { x *= f; }); });
}

// ---- chunkU: RangePolicy over items laid out as the team variant's threads (256 items per chunk of
// 256 U consecutive elements of a line, item t of a chunk takes elements t, t + 256, ...): one
// division per item, U loads in flight, the maximum kept in float (exact for |x| of floats)
template <int U>
double max_chunk(const Kokkos::Cuda& s, const Lines at) {
  constexpr std::int64_t chunk = 256 * U;
  const std::int64_t per_line = (at.length + chunk - 1) / chunk;
  float m = 0;
  Kokkos::parallel_reduce(
      "chunk_max", Kokkos::RangePolicy<Kokkos::Cuda>(s, 0, at.lines * per_line * 256),
      KOKKOS_LAMBDA(std::int64_t item, float& acc) {
        const std::int64_t g = item >> 8;
        const float* line = at.line(g / per_line);
        const std::int64_t first = (g % per_line) * chunk + (item & 255);
        float a[U];
        for (int q = 0; q < U; ++q) {
          const std::int64_t k = first + q * 256;
          a[q] = k < at.length ? fabsf(line[k]) : 0.0f;
        }
        for (int q = 0; q < U; ++q) acc = a[q] > acc ? a[q] : acc;
      },
      Kokkos::Max<float>(m));
  s.fence();
  return m;
}
template <int U>
void scale_chunk(const Kokkos::Cuda& s, const Lines at, float f) {
  constexpr std::int64_t chunk = 256 * U;
  const std::int64_t per_line = (at.length + chunk - 1) / chunk;
  Kokkos::parallel_for(
      "chunk_scale", Kokkos::RangePolicy<Kokkos::Cuda>(s, 0, at.lines * per_line * 256),
      KOKKOS_LAMBDA(std::int64_t item) {
        const std::int64_t g = item >> 8;
        float* line = at.line(g / per_line);
        const std::int64_t first = (g % per_line) * chunk + (item & 255);
        for (int q = 0; q < U; ++q) {
          const std::int64_t k = first + q * 256;
          if (k < at.length) line[k] *= f;
        }
      });
}

// ---- mdrange
using MD = Kokkos::MDRangePolicy<Kokkos::Cuda, Kokkos::Rank<2, Kokkos::Iterate::Left, Kokkos::Iterate::Left>,
                                 Kokkos::IndexType<std::int64_t>>;
double max_md(const Kokkos::Cuda& s, const Lines at) {
  double m = 0;
  Kokkos::parallel_reduce(
      "md_max", MD(s, {0, 0}, {at.length, at.lines}),
      KOKKOS_LAMBDA(std::int64_t k, std::int64_t l, double& acc) {
        const double v = at.line(l)[k];
        const double a = v < 0 ? -v : v;
        acc = a > acc ? a : acc;
      },
      Kokkos::Max<double>(m));
  s.fence();
  return m;
}
void scale_md(const Kokkos::Cuda& s, const Lines at, float f) {
  Kokkos::parallel_for(
      "md_scale", MD(s, {0, 0}, {at.length, at.lines}),
      KOKKOS_LAMBDA(std::int64_t k, std::int64_t l) { at.line(l)[k] *= f; });
}

// ---- cuda: the hand-written kernels hplai had (grid-stride, 4096 x 256 threads at most)
__global__ void block_absmax(const float* __restrict__ X, std::int64_t rows, std::int64_t cols, std::int64_t ld,
                             unsigned long long* out) {
  double m = 0;
  const std::int64_t total = rows * cols;
  for (std::int64_t e = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; e < total;
       e += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const double v = fabs(static_cast<double>(X[(e / rows) * ld + e % rows]));
    m = (v > m || v != v) ? v : m;
  }
  for (int off = 16; off > 0; off >>= 1) {
    const double o = __shfl_down_sync(0xffffffffu, m, off);
    m = (o > m || o != o) ? o : m;
  }
  if ((threadIdx.x & 31) == 0) atomicMax(out, static_cast<unsigned long long>(__double_as_longlong(m)));
}
__global__ void block_scale(float* X, std::int64_t rows, std::int64_t cols, std::int64_t ld, float f) {
  const std::int64_t total = rows * cols;
  for (std::int64_t e = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; e < total;
       e += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    X[(e / rows) * ld + e % rows] *= f;
}
int grid_for(std::int64_t work) { return static_cast<int>(std::min<std::int64_t>((work + 255) / 256, 4096)); }
double max_cuda(const Kokkos::Cuda& s, const Lines at, unsigned long long* scalar) {
  cudaMemsetAsync(scalar, 0, sizeof(unsigned long long), s.cuda_stream());
  block_absmax<<<grid_for(at.lines * at.length), 256, 0, s.cuda_stream()>>>(at.data, at.length, at.lines, at.stride,
                                                                              scalar);
  unsigned long long bits = 0;
  cudaMemcpyAsync(&bits, scalar, sizeof bits, cudaMemcpyDeviceToHost, s.cuda_stream());
  cudaStreamSynchronize(s.cuda_stream());
  double v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}
void scale_cuda(const Kokkos::Cuda& s, const Lines at, float f) {
  block_scale<<<grid_for(at.lines * at.length), 256, 0, s.cuda_stream()>>>(at.data, at.length, at.lines, at.stride, f);
}

double median_us(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2] * 1e6;
}
template <class F>
double time_call(const Kokkos::Cuda& s, const F& f) {
  std::vector<double> t;
  for (int r = 0; r < 24; ++r) {
    s.fence();
    const auto t0 = std::chrono::steady_clock::now();
    f();
    s.fence();
    if (r >= 3) t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return median_us(t);
}

}  // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  const std::int64_t n = argc > 1 ? std::atoll(argv[1]) : 49152, nb = 1024;
  const Kokkos::Cuda s;
  Matrix lu(Kokkos::view_alloc(Kokkos::WithoutInitializing, "lu"), n, n);
  Kokkos::parallel_for(
      "fill", Kokkos::RangePolicy<Kokkos::Cuda>(s, 0, n * n), KOKKOS_LAMBDA(std::int64_t e) {
        std::uint32_t h = static_cast<std::uint32_t>(e) * 2654435761u ^ static_cast<std::uint32_t>(e >> 32);
        h ^= h >> 15;
        lu.data()[e] = (static_cast<float>(h >> 8) * 0x1p-24f - 0.5f) * 0x1p-6f;
      });
  s.fence();
  Kokkos::View<unsigned long long, Kokkos::CudaSpace> scalar("scalar");
  Matrix backup(Kokkos::view_alloc(Kokkos::WithoutInitializing, "backup"), n, n);
  std::printf("n = %lld, nb = %lld; median us per call (GB/s)\n", static_cast<long long>(n), static_cast<long long>(nb));
  std::printf("%-6s %-6s %-8s %16s %16s\n", "block", "rest", "variant", "max", "scale x2,x0.5");
  int bad = 0;
  for (const std::int64_t rest : {n - 2 * nb, n / 2, std::int64_t{4096}}) {
    const std::int64_t k0 = n - rest - nb;
    for (const bool is_l21 : {true, false}) {
      const Range below(k0 + nb, n), panel(k0, k0 + nb);
      const auto X = is_l21 ? Kokkos::subview(lu, below, panel) : Kokkos::subview(lu, panel, below);
      const Lines at{X.data(), static_cast<std::int64_t>(X.extent(1)), static_cast<std::int64_t>(X.extent(0)), n};
      const double bytes = 4.0 * rest * nb;
      Kokkos::deep_copy(s, backup, lu);
      double reference = -1;
      struct Variant {
        const char* name;
        std::function<double()> max;
        std::function<void(float)> scale;
      };
      const std::vector<Variant> variants = {
          {"range", [&] { return max_range(s, X); }, [&](float f) { scale_range(s, X, f); }},
          {"team", [&] { return max_team(s, at); }, [&](float f) { scale_team(s, at, f); }},
          {"stride", [&] { return max_stride(s, at); }, [&](float f) { scale_stride(s, at, f); }},
          {"mdrange", [&] { return max_md(s, at); }, [&](float f) { scale_md(s, at, f); }},
          {"chunk4", [&] { return max_chunk<4>(s, at); }, [&](float f) { scale_chunk<4>(s, at, f); }},
          {"chunk8", [&] { return max_chunk<8>(s, at); }, [&](float f) { scale_chunk<8>(s, at, f); }},
          {"chunk16", [&] { return max_chunk<16>(s, at); }, [&](float f) { scale_chunk<16>(s, at, f); }},
          {"cuda", [&] { return max_cuda(s, at, scalar.data()); }, [&](float f) { scale_cuda(s, at, f); }},
      };
      for (const Variant& v : variants) {
        const double m = v.max();
        if (reference < 0) reference = m;
        if (m != reference) std::printf("MISMATCH %s: max %.9g, expected %.9g\n", v.name, m, reference), ++bad;
        const double t_max = time_call(s, [&] { v.max(); });
        const double t_scale = time_call(s, [&] { v.scale(2.0f); v.scale(0.5f); }) / 2;
        std::printf("%-6s %-6lld %-8s %8.1f (%5.0f) %8.1f (%5.0f)\n", is_l21 ? "L21" : "U12", static_cast<long long>(rest),
                    v.name, t_max, bytes / t_max * 1e-3, t_scale, 2 * bytes / t_scale * 1e-3);
      }
      std::int64_t diff = 0;
      Kokkos::parallel_reduce(
          "compare", Kokkos::RangePolicy<Kokkos::Cuda>(s, 0, n * n),
          KOKKOS_LAMBDA(std::int64_t e, std::int64_t& acc) { acc += lu.data()[e] != backup.data()[e]; }, diff);
      if (diff) std::printf("MISMATCH: %lld entries changed by the x2, x0.5 scalings\n", static_cast<long long>(diff)), ++bad;
    }
  }
  std::printf(bad ? "FAILED: %d mismatches\n" : "all variants agree\n", bad);
  return bad ? 1 : 0;
}
