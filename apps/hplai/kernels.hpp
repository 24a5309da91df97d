#pragma once
/// \file kernels.hpp
/// hplai's own element-wise work, written once with Kokkos parallel patterns on an execution space
/// instance (the host space or Kokkos::Cuda): conversion of A to the working precision, the block
/// maximum and power-of-two scaling of the trailing-update operands, the pivot check, and the FP64
/// vector operations of GMRES / iterative refinement (refine_impl.hpp). Work goes to the instance's
/// queue; the functions that return a value wait for it. Reductions are deterministic for a given
/// space and length (Kokkos' reduction trees do not depend on timing), so runs repeat bit for bit.
#include <Kokkos_Core.hpp>
#include <cfloat>
#include <cstdint>
#include <type_traits>
#include <limits>

#include "app_common/kokkos_range.hpp"

namespace hplai::kernels {

/// True when Space runs on the host (its loops walk memory in order; a GPU's threads coalesce).
template <class Space>
constexpr bool runs_on_host() {
  return Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Space::memory_space>::accessible;
}

/// LU(i, j) = T(A(i, j)) for a rows x cols FP64 A (row-major; n x n for one process, a rank's local
/// blocks over a process grid) and factors LU of the same extents in any layout. Row-major
/// factors on the host: a copy row by row. Otherwise one team per 32 x 32 tile, read along A's rows
/// and written along LU's fastest index through a tile in team scratch memory (the transpose of a
/// row-major A into the GPU's column-major factors stays coalesced).
template <class Space, class ViewA, class ViewLU>
void convert(const Space& space, const ViewA& A, const ViewLU& LU) {
  using T = typename ViewLU::non_const_value_type;
  using Policy = Kokkos::TeamPolicy<Space>;
  using Member = typename Policy::member_type;
  using Tile = Kokkos::View<double[32][33], typename Space::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  const std::int64_t rows = static_cast<std::int64_t>(A.extent(0)), cols = static_cast<std::int64_t>(A.extent(1));
  const std::int64_t tiles = (cols + 31) / 32;  // tiles per row of tiles
  const bool lu_rows_fast = LU.stride(1) < LU.stride(0);  // row-major factors
  const int team = std::is_same_v<typename Space::memory_space, Kokkos::HostSpace> ? 1 : 256;
  if constexpr (runs_on_host<Space>()) {
    if (lu_rows_fast) {  // the host's row-major factors: a straight copy, row by row
      Kokkos::parallel_for(
          "hplai::convert", Kokkos::RangePolicy<Space>(space, 0, rows), KOKKOS_LAMBDA(std::int64_t i) {
            for (std::int64_t j = 0; j < cols; ++j) LU(i, j) = static_cast<T>(A(i, j));
          });
      return;
    }
  }
  if (rows == 0 || cols == 0) return;
  Policy policy(space, static_cast<int>(((rows + 31) / 32) * tiles), team);
  Kokkos::parallel_for(
      "hplai::convert", policy.set_scratch_size(0, Kokkos::PerTeam(Tile::shmem_size())),
      KOKKOS_LAMBDA(const Member& m) {
        const std::int64_t r0 = (m.league_rank() / tiles) * 32, c0 = (m.league_rank() % tiles) * 32;
        Tile tile(m.team_scratch(0));
        Kokkos::parallel_for(Kokkos::TeamThreadRange(m, 1024), [&](int e) {  // along A's rows
          const std::int64_t i = r0 + e / 32, j = c0 + e % 32;
          if (i < rows && j < cols) tile(e / 32, e % 32) = A(i, j);
        });
        m.team_barrier();
        Kokkos::parallel_for(Kokkos::TeamThreadRange(m, 1024), [&](int e) {  // along LU's fastest index
          const int r = lu_rows_fast ? e / 32 : e % 32, c = lu_rows_fast ? e % 32 : e / 32;
          const std::int64_t i = r0 + r, j = c0 + c;
          if (i < rows && j < cols) LU(i, j) = static_cast<T>(tile(r, c));
        });
      });
}

/// A View as lines along its contiguous index (rows when `rows_fast`): line l starts at line(l), its
/// entries `step` apart (1 for the factors' blocks), so the loops run over plain memory.
template <class ViewX>
struct Lines {
  typename ViewX::pointer_type data;
  std::int64_t lines, length, line_stride, step;
  Lines(const ViewX& X, bool rows_fast)
      : data(X.data()),
        lines(static_cast<std::int64_t>(rows_fast ? X.extent(0) : X.extent(1))),
        length(static_cast<std::int64_t>(rows_fast ? X.extent(1) : X.extent(0))),
        line_stride(static_cast<std::int64_t>(rows_fast ? X.stride(0) : X.stride(1))),
        step(static_cast<std::int64_t>(rows_fast ? X.stride(1) : X.stride(0))) {}
  KOKKOS_INLINE_FUNCTION typename ViewX::pointer_type line(std::int64_t l) const { return data + l * line_stride; }
};

/// The GPU shape of absmax and scale: RangePolicy work items in groups of kLineGroup, a group per
/// chunk of kLineGroup * kLineUnroll consecutive elements of one line, item t of a group taking
/// elements t, t + kLineGroup, ... of its chunk: coalesced, kLineUnroll loads in flight per item,
/// one division per item. Chosen from five Kokkos and hand-written CUDA variants by
/// scripts/device/hplai_kernels (docs/perf-notes.md, "hplai's trailing-update scalings").
constexpr std::int64_t kLineGroup = 256, kLineUnroll = 4, kLineChunk = kLineGroup * kLineUnroll;

/// max |X(i, j)| over a rank-2 View (a sub-view of the factors), waits for the result. On the host
/// one work item per line along X's contiguous index; on a GPU the chunked items above (lines shorter
/// than kLineGroup, e.g. U12 for --nb < 256, leave items idle), the maximum kept in X's own type
/// (exact). NaN entries are skipped (the pivot check reports what they do); 0 when every entry is NaN.
template <class Space, class ViewX>
double absmax(const Space& space, const ViewX& X) {
  using T = typename ViewX::non_const_value_type;
  const std::int64_t rows = static_cast<std::int64_t>(X.extent(0)), cols = static_cast<std::int64_t>(X.extent(1));
  if (rows == 0 || cols == 0) return 0;
  const bool rows_fast = X.stride(1) < X.stride(0);  // a block of row-major factors
  const Lines<ViewX> at(X, rows_fast);
  T m = 0;
  if constexpr (runs_on_host<Space>()) {
    Kokkos::parallel_reduce(
        "hplai::absmax", Kokkos::RangePolicy<Space>(space, 0, at.lines),
        KOKKOS_LAMBDA(std::int64_t l, T& acc) {
          const auto* line = at.line(l);
          for (std::int64_t k = 0; k < at.length; ++k) {
            const T v = line[k * at.step];
            const T a = v < 0 ? -v : v;
            acc = a > acc ? a : acc;
          }
        },
        Kokkos::Max<T>(m));
  } else {
    const std::int64_t per_line = (at.length + kLineChunk - 1) / kLineChunk;
    Kokkos::parallel_reduce(
        "hplai::absmax", tcemu::app::Range64<Space>(space, 0, at.lines * per_line * kLineGroup),
        KOKKOS_LAMBDA(std::int64_t item, T& acc) {
          const std::int64_t group = item / kLineGroup;
          const auto* line = at.line(group / per_line);
          const std::int64_t first = (group % per_line) * kLineChunk + item % kLineGroup;
          T a[kLineUnroll];
          for (int q = 0; q < kLineUnroll; ++q) {
            const std::int64_t k = first + q * kLineGroup;
            const T v = k < at.length ? line[k * at.step] : T(0);
            a[q] = v < 0 ? -v : v;
          }
          for (int q = 0; q < kLineUnroll; ++q) acc = a[q] > acc ? a[q] : acc;
        },
        Kokkos::Max<T>(m));
  }
  space.fence();
  return m > 0 ? static_cast<double>(m) : 0.0;  // the reducer's identity (lowest) when all are NaN
}

/// X *= f element-wise (f a power of two: exact); the same iteration shapes as absmax.
template <class Space, class ViewX>
void scale(const Space& space, const ViewX& X, typename ViewX::non_const_value_type f) {
  const std::int64_t rows = static_cast<std::int64_t>(X.extent(0)), cols = static_cast<std::int64_t>(X.extent(1));
  if (rows == 0 || cols == 0) return;
  const bool rows_fast = X.stride(1) < X.stride(0);  // a block of row-major factors
  const Lines<ViewX> at(X, rows_fast);
  if constexpr (runs_on_host<Space>()) {
    Kokkos::parallel_for(
        "hplai::scale", Kokkos::RangePolicy<Space>(space, 0, at.lines), KOKKOS_LAMBDA(std::int64_t l) {
          auto* line = at.line(l);
          for (std::int64_t k = 0; k < at.length; ++k) line[k * at.step] *= f;
        });
  } else {
    const std::int64_t per_line = (at.length + kLineChunk - 1) / kLineChunk;
    Kokkos::parallel_for(
        "hplai::scale", tcemu::app::Range64<Space>(space, 0, at.lines * per_line * kLineGroup),
        KOKKOS_LAMBDA(std::int64_t item) {
          const std::int64_t group = item / kLineGroup;
          auto* line = at.line(group / per_line);
          const std::int64_t first = (group % per_line) * kLineChunk + item % kLineGroup;
          for (int q = 0; q < kLineUnroll; ++q) {
            const std::int64_t k = first + q * kLineGroup;
            if (k < at.length) line[k * at.step] *= f;
          }
        });
  }
}

/// True when a pivot u is zero, not finite, or |u| <= tiny (the factorisation cannot go on from it).
KOKKOS_INLINE_FUNCTION bool bad_pivot(double u, double tiny) {
  const double a = u < 0 ? -u : u;
  return !(a > tiny) || !(a <= DBL_MAX);  // a <= DBL_MAX: false for Inf and NaN
}

/// The first j < n whose pivot is bad (bad_pivot); n when none. pivot(j, u) sets u to pivot j and
/// returns true, or returns false where the caller does not hold it (a rank of a process grid, which
/// holds the diagonal blocks of its own row and column). Waits for the space.
template <class Space, class PivotAt>
std::int64_t first_bad_diagonal(const Space& space, std::int64_t n, const PivotAt& pivot, double tiny) {
  std::int64_t first = n;
  Kokkos::parallel_reduce(
      "hplai::pivots", tcemu::app::Range64<Space>(space, 0, n),
      KOKKOS_LAMBDA(std::int64_t j, std::int64_t& acc) {
        double u = 0;
        if (pivot(j, u) && bad_pivot(u, tiny) && j < acc) acc = j;
      },
      Kokkos::Min<std::int64_t>(first));
  space.fence();
  return first < n ? first : n;  // the reducer's identity (the largest int64) when none
}

/// The first column j whose pivot LU(j, j) is bad (bad_pivot); n when none.
template <class Space, class ViewLU>
std::int64_t first_bad_pivot(const Space& space, const ViewLU& LU, double tiny) {
  return first_bad_diagonal(
      space, static_cast<std::int64_t>(LU.extent(0)),
      KOKKOS_LAMBDA(std::int64_t j, double& u) {
        u = static_cast<double>(LU(j, j));
        return true;
      },
      tiny);
}

/// X(i, j) as a double, read back from wherever X lives (waits for the space).
template <class Space, class ViewX>
double element(const Space& space, const ViewX& X, std::int64_t i, std::int64_t j) {
  double v = 0;
  Kokkos::parallel_reduce(
      "hplai::element", Kokkos::RangePolicy<Space>(space, 0, 1),
      KOKKOS_LAMBDA(std::int64_t, double& acc) { acc = static_cast<double>(X(i, j)); }, v);
  space.fence();
  return v;
}

// ------------------------------------------------------------------- FP64 vectors (refinement)

/// sum_i a_i b_i.
template <class Space, class V>
double dot(const Space& space, const V& a, const V& b) {
  double s = 0;
  Kokkos::parallel_reduce(
      "hplai::dot", Kokkos::RangePolicy<Space>(space, 0, a.extent(0)),
      KOKKOS_LAMBDA(std::int64_t i, double& acc) { acc += a(i) * b(i); }, s);
  space.fence();
  return s;
}

/// max_i |v_i|; NaN when any entry is NaN (a broken iterate is never reported as converged).
template <class Space, class V>
double amax(const Space& space, const V& v) {
  double m = 0;
  std::int64_t nans = 0;
  // NaN is counted apart: a max reduction's join may drop it.
  Kokkos::parallel_reduce(
      "hplai::amax", Kokkos::RangePolicy<Space>(space, 0, v.extent(0)),
      KOKKOS_LAMBDA(std::int64_t i, double& acc) {
        const double a = v(i) < 0 ? -v(i) : v(i);
        acc = a > acc ? a : acc;
      },
      Kokkos::Max<double>(m));
  Kokkos::parallel_reduce(
      "hplai::nans", Kokkos::RangePolicy<Space>(space, 0, v.extent(0)),
      KOKKOS_LAMBDA(std::int64_t i, std::int64_t& acc) { acc += v(i) != v(i) ? 1 : 0; }, nans);
  space.fence();
  return nans > 0 ? std::numeric_limits<double>::quiet_NaN() : m;
}

/// y += a x.
template <class Space, class V>
void axpy(const Space& space, double a, const V& x, const V& y) {
  Kokkos::parallel_for(
      "hplai::axpy", Kokkos::RangePolicy<Space>(space, 0, x.extent(0)), KOKKOS_LAMBDA(std::int64_t i) { y(i) += a * x(i); });
}

/// y = a x (element types may differ: the FP64 <-> FP32 conversions of the preconditioner).
template <class Space, class VX, class VY>
void scale_into(const Space& space, double a, const VX& x, const VY& y) {
  using T = typename VY::non_const_value_type;
  Kokkos::parallel_for(
      "hplai::scale_into", Kokkos::RangePolicy<Space>(space, 0, x.extent(0)),
      KOKKOS_LAMBDA(std::int64_t i) { y(i) = static_cast<T>(a * static_cast<double>(x(i))); });
}

}  // namespace hplai::kernels
