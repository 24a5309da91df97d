// Lloyd's k-means, one source for every Kokkos execution space (lloyd.hpp). Per iteration:
//   centroids  FP64 centroids -> working precision T, and ||c||^2 (tcemu::squared_norms)
//   assign     core's tcemu::nearest with k = 1: the distance GEMM, then the argmin of
//              ||x||^2 + ||c||^2 - 2 x.c (ties: lower index) with the FP64 near-tie re-check
//   inertia    FP64 ||x - c_a||^2 per point (a team of points, a vector lane per dimension) and its
//              sum; whether any assignment changed
//   update     points grouped by cluster (Kokkos::BinSort); each team sums a chunk of the grouped
//              points per dimension in FP64 and adds one partial sum per cluster boundary, so the
//              update reads X once with O((n / chunk + k) d) atomic adds; means; empty clusters take
//              the points farthest from their centroids (decided on the host, as the clusters' counts
//              and, when needed, the distances come back).
// On the GPU nothing but k counts and a few scalars crosses PCIe per iteration.
#include "lloyd.hpp"

#include <Kokkos_Core.hpp>
#include <Kokkos_Sort.hpp>
#include <algorithm>
#include <cmath>
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
using Matrix = Kokkos::View<T**, Kokkos::LayoutRight, Mem>;
template <class T, class Mem>
using Vector = Kokkos::View<T*, Mem>;
template <class T>
using HostMatrix = Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;

/// Team and vector sizes: the GPU's (a warp of lanes per point, 256 threads per block); 1 on the host.
template <class Space>
constexpr int gpu_or_one(int gpu) {
  return tcemu::detail::is_cuda_execution_space<Space>() ? gpu : 1;
}
/// Sorted points per team of the update.
constexpr std::int64_t kChunk = 1024;

/// The points as T in memory space Mem: the Dataset's own floats where T is float and Mem is host
/// memory, else a copy (converted on the host, then uploaded).
template <class T, class Mem>
Matrix<const T, Mem> points_in(const Dataset& data) {
  if constexpr (std::is_same_v<T, float> && Kokkos::SpaceAccessibility<Kokkos::HostSpace, Mem>::accessible) {
    return HostMatrix<const float>(data.data.data(), data.n, data.d);
  } else {
    Matrix<T, Mem> x(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kmeans::x"), data.n, data.d);
    auto staged = Kokkos::create_mirror_view(x);  // x itself where Mem is host memory
    T* s = staged.data();
    for (std::size_t e = 0; e < data.data.size(); ++e) s[e] = static_cast<T>(data.data[e]);
    Kokkos::deep_copy(x, staged);
    return x;
  }
}

template <class Space, class T>
LloydResult lloyd_on(const Space& space, const Dataset& data, const std::vector<double>& init,
                     const tcemu::GemmOptions& gemm, const LloydOptions& opt, const Progress& progress) {
  using Mem = typename Space::memory_space;
  using Team = typename Kokkos::TeamPolicy<Space>::member_type;
  using tcemu::app::Clock;
  using tcemu::app::seconds_since;
  const std::int64_t n = data.n, d = data.d, k = opt.k;
  if (k > 0x7fffffff || n > 0x7fffffff) throw tcemu::InvalidArgument("kmeans: n and k must fit in int32");
  LloydResult r;
  r.centroids = init;
  r.assignment.assign(n, 0);

  // Set-up, not timed (the same for every scheme): the points and their squared norms (FP64 sums
  // rounded to T) in the space's memory, the FP64 centroids, the buffers, the distance workspace.
  const Matrix<const T, Mem> x = points_in<T, Mem>(data);
  const Vector<T, Mem> xnorm(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kmeans::xnorm"), n);
  tcemu::squared_norms(space, x, xnorm);
  const Matrix<double, Mem> c64(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kmeans::c64"), k, d);
  Kokkos::deep_copy(c64, HostMatrix<const double>(init.data(), k, d));
  const Matrix<double, Mem> sums(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kmeans::sums"), k, d);
  const Matrix<T, Mem> c(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kmeans::c"), k, d);
  const Vector<T, Mem> cnorm(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kmeans::cnorm"), k);
  const Vector<std::int32_t, Mem> assign("kmeans::assign", n), previous("kmeans::previous", n);
  const Vector<double, Mem> dist_own(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kmeans::dist_own"), n);
  const Vector<std::int32_t, Mem> sorted_keys(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kmeans::sorted_keys"),
                                              n);
  // The assignment as the q x 1 index View of tcemu::nearest (the same memory).
  const Kokkos::View<std::int32_t**, Kokkos::LayoutRight, Mem, Kokkos::MemoryUnmanaged> assign_index(assign.data(),
                                                                                                        n, 1);
  const Kokkos::View<double**, Kokkos::LayoutRight, Mem> no_distance;
  using Keys = Vector<std::int32_t, Mem>;
  Kokkos::BinSort<Keys, Kokkos::BinOp1D<Keys>> by_cluster(assign, Kokkos::BinOp1D<Keys>(int(k), 0, int(k)));
  const Kokkos::View<int*, Kokkos::HostSpace> counts("kmeans::counts", k);
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

  const int point_team = gpu_or_one<Space>(8), lanes = gpu_or_one<Space>(32), chunk_team = gpu_or_one<Space>(256);
  const std::int64_t point_teams = (n + point_team - 1) / point_team, chunks = (n + kChunk - 1) / kChunk;
  const auto t_start = Clock::now();
  for (int iter = 1; iter <= opt.max_iter; ++iter) {
    // Centroids in the working precision, and their norms.
    Kokkos::parallel_for(
        "kmeans::centroids", Kokkos::RangePolicy<Space>(space, std::int64_t(0), k * d),
        KOKKOS_LAMBDA(const std::int64_t e) { c(e / d, e % d) = static_cast<T>(c64(e / d, e % d)); });
    tcemu::squared_norms(space, c, cnorm);
    Kokkos::deep_copy(space, previous, assign);
    tcemu::NearestLog log;
    tcemu::nearest(space, x, c, 1, assign_index, no_distance, nearest, &log, xnorm, cnorm);
    r.gemm_seconds += log.gemm_seconds;
    for (const tcemu::GemmReport& rep : log.reports) r.gemm.add(rep);
    r.rechecked += log.rechecked;

    // Inertia of this assignment against the centroids it was made with, in FP64.
    double inertia = 0;
    Kokkos::parallel_reduce(
        "kmeans::inertia", Kokkos::TeamPolicy<Space>(space, point_teams, point_team, lanes),
        KOKKOS_LAMBDA(const Team& team, double& sum) {
          const std::int64_t first = std::int64_t(team.league_rank()) * point_team;
          const int count = int(n - first < point_team ? n - first : point_team);
          double team_sum = 0;
          Kokkos::parallel_reduce(
              Kokkos::TeamThreadRange(team, count),
              [&](const int t, double& s) {
                const std::int64_t p = first + t;
                const std::int64_t a = assign(p);
                double own = 0;
                Kokkos::parallel_reduce(
                    Kokkos::ThreadVectorRange(team, d),
                    [&](const std::int64_t j, double& v) {
                      const double diff = double(x(p, j)) - c64(a, j);
                      v += diff * diff;
                    },
                    own);
                Kokkos::single(Kokkos::PerThread(team), [&]() { dist_own(p) = own; });
                s += own;
              },
              team_sum);
          Kokkos::single(Kokkos::PerTeam(team), [&]() { sum += team_sum; });
        },
        inertia);
    std::int64_t changed = 0;
    Kokkos::parallel_reduce(
        "kmeans::changed", Kokkos::RangePolicy<Space>(space, std::int64_t(0), n),
        KOKKOS_LAMBDA(const std::int64_t i, std::int64_t& count) { count += assign(i) != previous(i) ? 1 : 0; },
        changed);
    const bool any_changed = iter == 1 || changed > 0;

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

    // Update: group the points by cluster, FP64 sums per chunk of grouped points, means.
    // BinSort adds to its counts without clearing them (Kokkos 3.4 and 4.6): clear them for each call.
    Kokkos::deep_copy(space, by_cluster.bin_count_atomic, 0);
    by_cluster.create_permute_vector();
    const auto order = by_cluster.get_permute_vector();
    const auto cluster_size = by_cluster.get_bin_count();
    // The grouped points' clusters in order, so that the sums read them contiguously.
    Kokkos::parallel_for(
        "kmeans::sorted_keys", Kokkos::RangePolicy<Space>(space, std::int64_t(0), n),
        KOKKOS_LAMBDA(const std::int64_t p) { sorted_keys(p) = assign(std::int64_t(order(p))); });
    Kokkos::deep_copy(space, sums, 0.0);
    Kokkos::parallel_for(
        "kmeans::sums", Kokkos::TeamPolicy<Space>(space, chunks, chunk_team), KOKKOS_LAMBDA(const Team& team) {
          const std::int64_t p0 = std::int64_t(team.league_rank()) * kChunk;
          const std::int64_t p1 = p0 + kChunk < n ? p0 + kChunk : n;
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, d), [&](const std::int64_t j) {
            std::int32_t cur = sorted_keys(p0);
            double acc = 0;
            for (std::int64_t p = p0; p < p1; ++p) {
              const std::int64_t i = std::int64_t(order(p));
              const std::int32_t key = sorted_keys(p);
              if (key != cur) {
                Kokkos::atomic_add(&sums(cur, j), acc);
                acc = 0;
                cur = key;
              }
              acc += double(x(i, j));
            }
            Kokkos::atomic_add(&sums(cur, j), acc);
          });
        });
    Kokkos::parallel_for(
        "kmeans::means", Kokkos::RangePolicy<Space>(space, std::int64_t(0), k * d), KOKKOS_LAMBDA(const std::int64_t e) {
          const std::int64_t j = e / d, l = e % d;
          const int size = cluster_size(j);
          if (size > 0) c64(j, l) = sums(j, l) / double(size);
        });
    Kokkos::deep_copy(counts, Kokkos::subview(cluster_size, Kokkos::make_pair(std::int64_t(0), k)));
    if (std::find(counts.data(), counts.data() + k, 0) != counts.data() + k) {
      // Empty clusters take the points farthest from their centroids (ties: lower index).
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
