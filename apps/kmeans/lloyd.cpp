// Lloyd's k-means, one source for every Kokkos execution space (lloyd.hpp). Per iteration:
//   centroids  FP64 centroids -> working precision T and ||c||^2 (FP64 sum of the rounded values),
//              one team per centroid
//   assign     core's tcemu::nearest with k = 1: the distance GEMM, then the argmin of
//              ||x||^2 + ||c||^2 - 2 x.c (ties: lower index) with the FP64 near-tie re-check
//   group      the points grouped by cluster with a counting sort (sizes, exclusive scan, scatter),
//              counting the changed assignments on the way
//   one pass   over X in grouped order: each team stages a chunk of the grouped points' indices and
//              clusters in team scratch and, a dimension per thread with several row loads in flight,
//              sums the chunk per cluster in FP64 (one atomic add per cluster boundary, so
//              O((n / chunk + k) d) in all) and adds up sum_j (x_pj - c_a(p)j)^2, the inertia of this
//              assignment against the centroids it was made with (one atomic add per team)
//   decide     inertia, changed count and the clusters' sizes come back; stop, or
//   update     means of the clusters that have points; empty clusters take the points farthest from
//              their centroids (decided on the host from per-point distances computed only then).
// The raw-CUDA version (main before session 14: lloyd_cuda.cu) read X twice per iteration, once for
// the inertia and once for the sums; docs/perf-notes.md ("kmeans' one source") has the measurements.
// On the GPU nothing but k counts and two scalars cross PCIe per iteration.
#include "lloyd.hpp"

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <type_traits>

#include "app_common/execution_space.hpp"
#include "app_common/timing.hpp"
#include "tcemu/error.hpp"
#include "tcemu/nearest.hpp"

namespace kmeans {
namespace lloyd_impl {  // named: nvcc does not allow extended lambdas in functions of unnamed namespaces

template <class T, class Mem>
using Matrix = Kokkos::View<T**, Kokkos::LayoutRight, Mem, Kokkos::MemoryUnmanaged>;
template <class T, class Mem>
using Vector = Kokkos::View<T*, Mem>;
template <class T>
using HostMatrix = Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;

/// Team and vector sizes: the GPU's value; 1 on the host.
template <class Space>
constexpr int gpu_or_one(int gpu) {
  return tcemu::detail::is_cuda_execution_space<Space>() ? gpu : 1;
}
/// Grouped points per team of the update.
constexpr int kChunk = 512;
/// Rows each thread of the update loads before it adds them (loads in flight per thread).
constexpr int kRowsInFlight = 8;
/// Byte boundary the GEMM operands start on: that of a raw CUDA allocation. A Kokkos View's data
/// start after the allocation's 128-byte header, so cuBLAS would see 128-byte-aligned operands where
/// the raw-CUDA version gave it 256 (with this, both ran the same SGEMM kernel in the same time; the
/// unaligned case was not measured: docs/perf-notes.md, "kmeans' one source").
constexpr std::size_t kOperandAlignment = 256;

/// A rows x cols row-major matrix in memory space Mem whose first element lies on a
/// kOperandAlignment-byte boundary: `storage` owns the memory, `view` (unmanaged) is the matrix.
template <class T, class Mem>
struct AlignedMatrix {
  Kokkos::View<T*, Mem> storage;
  Matrix<T, Mem> view;
  AlignedMatrix(const char* label, std::int64_t rows, std::int64_t cols) {
    constexpr std::int64_t slack = std::int64_t(kOperandAlignment / sizeof(T));
    storage = Kokkos::View<T*, Mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)),
                                    rows * cols + slack);
    const auto address = reinterpret_cast<std::uintptr_t>(storage.data());
    const std::int64_t skip = std::int64_t((kOperandAlignment - address % kOperandAlignment) % kOperandAlignment) /
                              std::int64_t(sizeof(T));
    view = Matrix<T, Mem>(storage.data() + skip, rows, cols);
  }
};

/// Copies the host Dataset's points, converted to T, into `x` (n x d in memory space Mem).
template <class T, class Mem>
void upload_points(const Dataset& data, const Matrix<T, Mem>& x) {
  const Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::HostSpace> staged(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "kmeans::x_host"), data.n, data.d);
  T* s = staged.data();
  for (std::size_t e = 0; e < data.data.size(); ++e) s[e] = static_cast<T>(data.data[e]);
  Kokkos::deep_copy(x, staged);
}

template <class Space, class T>
LloydResult lloyd_on(const Space& space, const Dataset& data, const std::vector<double>& init,
                     const tcemu::GemmOptions& gemm, const LloydOptions& opt, const Progress& progress) {
  using Mem = typename Space::memory_space;
  using Team = typename Kokkos::TeamPolicy<Space>::member_type;
  using Scratch = Kokkos::View<std::int32_t*, typename Space::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  using tcemu::app::Clock;
  using tcemu::app::seconds_since;
  const std::int64_t n = data.n, d = data.d, k = opt.k;
  if (k > 0x7fffffff || n > 0x7fffffff) throw tcemu::InvalidArgument("kmeans: n and k must fit in int32");
  LloydResult r;
  r.centroids = init;
  r.assignment.assign(n, 0);

  // Set-up, not timed (the same for every scheme): the points and their squared norms (FP64 sums
  // rounded to T) in the space's memory, the FP64 centroids, the buffers, the distance workspace.
  const AlignedMatrix<T, Mem> x_storage("kmeans::x", n, d), c_storage("kmeans::c", k, d);
  const Matrix<T, Mem> x = x_storage.view, c = c_storage.view;
  upload_points<T, Mem>(data, x);
  const Vector<T, Mem> xnorm(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kmeans::xnorm"), n);
  tcemu::squared_norms(space, x, xnorm);
  const Kokkos::View<double**, Kokkos::LayoutRight, Mem> c64(Kokkos::view_alloc(Kokkos::WithoutInitializing,
                                                                                 "kmeans::c64"),
                                                              k, d);
  Kokkos::deep_copy(c64, HostMatrix<const double>(init.data(), k, d));
  const Kokkos::View<double**, Kokkos::LayoutRight, Mem> sums("kmeans::sums", k, d);
  const Vector<T, Mem> cnorm(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kmeans::cnorm"), k);
  // The assignment of this iteration and of the one before (swapped each iteration).
  Vector<std::int32_t, Mem> assign("kmeans::assign", n), previous("kmeans::previous", n);
  const Vector<double, Mem> dist_own(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kmeans::dist_own"), n);
  // Counting sort by cluster: sizes, first positions, fill levels; the permutation and its keys.
  const Vector<std::int32_t, Mem> cluster_size("kmeans::cluster_size", k), cluster_start("kmeans::cluster_start", k),
      cluster_fill("kmeans::cluster_fill", k);
  const Vector<std::int32_t, Mem> order(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kmeans::order"), n),
      sorted_keys(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kmeans::sorted_keys"), n);
  // Inertia and the number of changed assignments, summed on the device; the clusters' sizes.
  const Kokkos::View<double, Mem> inertia_sum("kmeans::inertia");
  const Kokkos::View<std::int64_t, Mem> changed_count("kmeans::changed");
  const auto host_inertia = Kokkos::create_mirror_view(inertia_sum);
  const auto host_changed = Kokkos::create_mirror_view(changed_count);
  const auto counts = Kokkos::create_mirror_view(cluster_size);
  const Kokkos::View<double**, Kokkos::LayoutRight, Mem> no_distance;
  // Assignment: core's nearest-neighbour primitive with k = 1 and its FP64 near-tie re-ranking
  // against the FP64 centroids. The GPU takes all n points in one GEMM per iteration (the n x k
  // block fits); the host goes in batches of opt.batch points.
  tcemu::NearestOptions nearest;
  nearest.gemm = gemm;
  nearest.batch = tcemu::detail::is_cuda_execution_space<Space>() ? n : std::max<std::int64_t>(opt.batch, 1);
  nearest.near_tie_margin = opt.recheck_margin;
  nearest.exact_database = c64.data();
  tcemu::nearest_reserve<T>(space, std::min(nearest.batch, n), k);
  space.fence();

  // Teams: a centroid per team (centroids); a point per team thread with a vector lane per
  // dimension (distances to the own centroid, only for reseeding); a chunk of grouped points per
  // team, a dimension per thread, with the team as wide as needed to cover d in the fewest passes
  // of at most 256 threads (sums and inertia).
  const int point_team = gpu_or_one<Space>(8), lanes = gpu_or_one<Space>(32), row_team = gpu_or_one<Space>(256);
  const std::int64_t passes = (d + 255) / 256;
  const int chunk_team = gpu_or_one<Space>(int(((d + passes - 1) / passes + 31) / 32 * 32));
  const std::int64_t point_teams = (n + point_team - 1) / point_team, chunks = (n + kChunk - 1) / kChunk;
  const std::size_t chunk_scratch = 2 * Scratch::shmem_size(kChunk);
  const auto t_start = Clock::now();
  for (int iter = 1; iter <= opt.max_iter; ++iter) {
    // Centroids in the working precision, and their norms.
    Kokkos::parallel_for(
        "kmeans::centroids", Kokkos::TeamPolicy<Space>(space, k, row_team), KOKKOS_LAMBDA(const Team& team) {
          const std::int64_t j = team.league_rank();
          double norm = 0;
          Kokkos::parallel_reduce(
              Kokkos::TeamThreadRange(team, d),
              [&](const std::int64_t l, double& s) {
                const T v = static_cast<T>(c64(j, l));
                c(j, l) = v;
                s += double(v) * double(v);
              },
              norm);
          Kokkos::single(Kokkos::PerTeam(team), [&]() { cnorm(j) = static_cast<T>(norm); });
        });
    std::swap(assign, previous);
    const Kokkos::View<std::int32_t**, Kokkos::LayoutRight, Mem, Kokkos::MemoryUnmanaged> assign_index(assign.data(),
                                                                                                          n, 1);
    tcemu::NearestLog log;
    tcemu::nearest(space, x, c, 1, assign_index, no_distance, nearest, &log, xnorm, cnorm);
    r.gemm_seconds += log.gemm_seconds;
    for (const tcemu::GemmReport& rep : log.reports) r.gemm.add(rep);
    r.rechecked += log.rechecked;
    const auto current = assign, before = previous;

    // Group the points by cluster (counting sort: sizes, first positions, scatter; the order within
    // a cluster is the order of the atomic fill, which the sums depend on only through rounding),
    // counting the changed assignments on the way.
    Kokkos::deep_copy(space, cluster_size, 0);
    Kokkos::deep_copy(space, cluster_fill, 0);
    Kokkos::parallel_reduce(
        "kmeans::cluster_size", Kokkos::RangePolicy<Space>(space, std::int64_t(0), n),
        KOKKOS_LAMBDA(const std::int64_t i, std::int64_t& changed) {
          Kokkos::atomic_add(&cluster_size(current(i)), 1);
          changed += current(i) != before(i) ? 1 : 0;
        },
        changed_count);
    Kokkos::parallel_scan(
        "kmeans::cluster_start", Kokkos::RangePolicy<Space>(space, std::int64_t(0), k),
        KOKKOS_LAMBDA(const std::int64_t j, std::int32_t& offset, const bool final) {
          if (final) cluster_start(j) = offset;
          offset += cluster_size(j);
        });
    Kokkos::parallel_for(
        "kmeans::group", Kokkos::RangePolicy<Space>(space, std::int64_t(0), n), KOKKOS_LAMBDA(const std::int64_t i) {
          const std::int32_t a = current(i);
          const std::int32_t slot = cluster_start(a) + Kokkos::atomic_fetch_add(&cluster_fill(a), 1);
          order(slot) = std::int32_t(i);
          sorted_keys(slot) = a;
        });
    // One pass over X for the FP64 sums per chunk of grouped points (one atomic add per cluster
    // boundary and dimension) and for the inertia of this assignment against the centroids it was
    // made with, sum_p sum_j (x_pj - c_a(p)j)^2 (one atomic add per team). The chunk's indices and
    // clusters sit in team scratch; each thread loads kRowsInFlight rows of its dimension before it
    // adds them, so the loads overlap. The sums are made in every iteration, the last included:
    // whether there is a next one is known only from this inertia.
    Kokkos::deep_copy(space, sums, 0.0);
    Kokkos::deep_copy(space, inertia_sum, 0.0);
    Kokkos::parallel_for(
        "kmeans::sums_inertia",
        Kokkos::TeamPolicy<Space>(space, chunks, chunk_team).set_scratch_size(0, Kokkos::PerTeam(chunk_scratch)),
        KOKKOS_LAMBDA(const Team& team) {
          const std::int64_t p0 = std::int64_t(team.league_rank()) * kChunk;
          const int len = int(n - p0 < kChunk ? n - p0 : kChunk);
          const Scratch rows(team.team_scratch(0), kChunk), keys(team.team_scratch(0), kChunk);
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, len), [&](const int t) {
            rows(t) = order(p0 + t);
            keys(t) = sorted_keys(p0 + t);
          });
          team.team_barrier();
          double team_inertia = 0;
          Kokkos::parallel_reduce(
              Kokkos::TeamThreadRange(team, d),
              [&](const std::int64_t j, double& inertia) {
                std::int32_t cur = keys(0);
                double centre = c64(cur, j), acc = 0, dist = 0;
                // Adds row value v of cluster `key` (in order of the grouped points).
                const auto add = [&](const std::int32_t key, const double v) {
                  if (key != cur) {
                    Kokkos::atomic_add(&sums(cur, j), acc);
                    acc = 0;
                    cur = key;
                    centre = c64(cur, j);
                  }
                  acc += v;
                  const double diff = v - centre;
                  dist += diff * diff;
                };
                int t = 0;
                for (; t + kRowsInFlight <= len; t += kRowsInFlight) {
                  T v[kRowsInFlight];
                  for (int u = 0; u < kRowsInFlight; ++u) v[u] = x(rows(t + u), j);
                  for (int u = 0; u < kRowsInFlight; ++u) add(keys(t + u), double(v[u]));
                }
                for (; t < len; ++t) add(keys(t), double(x(rows(t), j)));
                Kokkos::atomic_add(&sums(cur, j), acc);
                inertia += dist;
              },
              team_inertia);
          Kokkos::single(Kokkos::PerTeam(team), [&]() { Kokkos::atomic_add(&inertia_sum(), team_inertia); });
        });
    Kokkos::deep_copy(space, host_inertia, inertia_sum);
    Kokkos::deep_copy(space, host_changed, changed_count);
    Kokkos::deep_copy(space, counts, cluster_size);
    space.fence();
    const double inertia = host_inertia();
    const bool any_changed = iter == 1 || host_changed() > 0;

    const double prev = r.inertia.empty() ? std::numeric_limits<double>::infinity() : r.inertia.back();
    r.inertia.push_back(inertia);
    r.iterations = iter;
    const double rel = std::isfinite(prev) ? std::fabs(prev - inertia) / std::max(inertia, 1e-300) : 1.0;
    if (progress) progress(iter, inertia, rel);
    if (!any_changed || rel <= opt.tol) {
      r.converged = true;
      break;
    }
    if (iter == opt.max_iter) break;

    // Empty clusters take the points farthest from their centroids (ties: lower index): the
    // distances of every point to the centroid it was assigned with, before the means move it.
    const bool any_empty = std::find(counts.data(), counts.data() + k, 0) != counts.data() + k;
    if (any_empty) {
      Kokkos::parallel_for(
          "kmeans::dist_own", Kokkos::TeamPolicy<Space>(space, point_teams, point_team, lanes),
          KOKKOS_LAMBDA(const Team& team) {
            const std::int64_t first = std::int64_t(team.league_rank()) * point_team;
            const int count = int(n - first < point_team ? n - first : point_team);
            Kokkos::parallel_for(Kokkos::TeamThreadRange(team, count), [&](const int t) {
              const std::int64_t p = first + t;
              const std::int64_t a = current(p);
              double own = 0;
              Kokkos::parallel_reduce(
                  Kokkos::ThreadVectorRange(team, d),
                  [&](const std::int64_t j, double& v) {
                    const double diff = double(x(p, j)) - c64(a, j);
                    v += diff * diff;
                  },
                  own);
              Kokkos::single(Kokkos::PerThread(team), [&]() { dist_own(p) = own; });
            });
          });
    }
    // Means of the clusters that have points.
    Kokkos::parallel_for(
        "kmeans::means", Kokkos::RangePolicy<Space>(space, std::int64_t(0), k * d),
        KOKKOS_LAMBDA(const std::int64_t e) {
          const std::int64_t j = e / d, l = e % d;
          const std::int32_t size = cluster_size(j);
          if (size > 0) c64(j, l) = sums(j, l) / double(size);
        });
    if (any_empty) {
      const auto dist = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), dist_own);
      std::vector<std::int64_t> far(n);
      std::iota(far.begin(), far.end(), 0);
      std::stable_sort(far.begin(), far.end(), [&](std::int64_t a, std::int64_t b) { return dist(a) > dist(b); });
      const Kokkos::View<double*, Kokkos::HostSpace> row("kmeans::reseed", d);
      for (std::int64_t j = 0; j < k; ++j) {
        if (counts(j) > 0) continue;
        const std::int64_t p = far[r.reseeded % n];
        for (std::int64_t l = 0; l < d; ++l) row(l) = data.point(p)[l];
        Kokkos::deep_copy(Kokkos::subview(c64, j, Kokkos::ALL()), row);
        ++r.reseeded;
      }
    }
  }
  // Centroids of the final assignment step, and the assignment.
  Kokkos::deep_copy(HostMatrix<double>(r.centroids.data(), k, d), c64);
  Kokkos::deep_copy(Kokkos::View<std::int32_t*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(r.assignment.data(), n),
                    assign);
  r.seconds = seconds_since(t_start);
  return r;
}

}  // namespace lloyd_impl

template <class T>
LloydResult lloyd(const Dataset& data, const std::vector<double>& init, const tcemu::GemmOptions& gemm,
                  const LloydOptions& options, const Progress& progress) {
  return tcemu::app::with_execution_space(options.device, [&](auto space) {
    return lloyd_impl::lloyd_on<decltype(space), T>(space, data, init, gemm, options, progress);
  });
}

template LloydResult lloyd<float>(const Dataset&, const std::vector<double>&, const tcemu::GemmOptions&,
                                  const LloydOptions&, const Progress&);
template LloydResult lloyd<double>(const Dataset&, const std::vector<double>&, const tcemu::GemmOptions&,
                                   const LloydOptions&, const Progress&);

}  // namespace kmeans
