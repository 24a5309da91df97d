#pragma once
/// \file nearest_views.hpp
/// The nearest-neighbour primitive (tcemu/nearest.hpp) on Kokkos Views, in the style of Kokkos
/// Kernels (KokkosBlas::gemm(space, ...)) and of tcemu::gemm's View entry (tcemu/gemm.hpp): the
/// execution space instance says where it runs, so one application source calls one function for
/// host and GPU data (knn calls it with k, kmeans' assignment step with k = 1).
///
///  - tcemu::nearest(space, queries, database, k, index, distance, options[, log[, query_norms,
///    database_norms]])
///  - tcemu::squared_norms(space, x, out)
///  - tcemu::nearest_reserve<T>(space, batch, n): grow the workspace before a timed loop
///
/// A host execution space runs tcemu::nearest_host / squared_norms_host (after fencing `space`);
/// Kokkos::Cuda (tcemu built with its CUDA backend against a CUDA-enabled Kokkos 4, docs/kokkos.md)
/// runs tcemu::cuda::nearest_device / squared_norms_device on space.cuda_stream(): the measured
/// fused distance + top-k kernels. Included by tcemu/nearest.hpp; include that one.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <string>
#include <type_traits>

#include "tcemu/error.hpp"
#include "tcemu/gemm.hpp"
#include "tcemu/nearest.hpp"

namespace tcemu {

/// Largest k of tcemu::nearest on Kokkos::Cuda (tcemu::cuda::kNearestMaxK: the top-k kernel keeps
/// k candidates per thread in registers). Host spaces take any k up to the database size.
inline constexpr int kNearestMaxDeviceK = 128;

namespace detail {

#if defined(TCEMU_HAVE_CUDA)
/// The CUDA backend of the View entries (core/src/common/view_nearest.cpp): cuda::nearest_device,
/// cuda::squared_norms_device on `stream` with the per-thread default NearestWorkspace, and the
/// growth of that workspace's batch x n block.
template <class T>
void view_nearest_cuda(MatrixView<const T> queries, MatrixView<const T> database, int k, std::int32_t* index,
                       double* distance, const NearestOptions& options, NearestLog* log, const T* query_norms,
                       const T* database_norms, ::CUstream_st* stream);
template <class T>
void view_squared_norms_cuda(MatrixView<const T> x, T* out, ::CUstream_st* stream);
template <class T>
void view_nearest_reserve_cuda(std::int64_t batch, std::int64_t n);
#endif

/// Throws InvalidArgument when the View `name` (memory space M) cannot be used on execution space E.
template <class E, class M>
void check_nearest_view_space(const char* who, const char* name) {
  constexpr ViewSpace s = view_space<M>();
  if constexpr (is_cuda_execution_space<E>()) {
    if constexpr (s == ViewSpace::host || s == ViewSpace::other)
      throw InvalidArgument(std::string(who) + ": " + name + " is in memory space " + view_space_name<M>() +
                            ", which the Kokkos::Cuda instance cannot access: copy it to Kokkos::CudaSpace "
                            "(Kokkos::create_mirror_view_and_copy) or pass a host execution space instance");
  } else {
    if constexpr (s == ViewSpace::cuda_device || s == ViewSpace::other)
      throw InvalidArgument(std::string(who) + ": " + name + " is in memory space " + view_space_name<M>() +
                            ", which the host execution space " + E::name() +
                            " cannot access: pass a Kokkos::Cuda instance or copy it to a host space");
  }
}

/// Rank-2 input with unit column stride (LayoutRight, or LayoutStride with stride(1) == 1).
template <class V>
void check_rows_view(const char* who, const char* name, const V& v) {
  if (v.extent(0) > 0 && v.extent(1) > 1 && v.stride(1) != 1)
    throw InvalidArgument(std::string(who) + ": " + name + " must have a unit column stride (LayoutRight, or "
                          "LayoutStride with stride(1) == 1), got stride(1) = " + std::to_string(v.stride(1)));
}

/// Rank-2 output of rows x cols, row-major and contiguous (stride(0) == cols, stride(1) == 1).
template <class V>
void check_result_view(const char* who, const char* name, const V& v, std::int64_t rows, std::int64_t cols) {
  if (std::int64_t(v.extent(0)) != rows || std::int64_t(v.extent(1)) != cols)
    throw InvalidArgument(std::string(who) + ": " + name + " is " + std::to_string(v.extent(0)) + " x " +
                          std::to_string(v.extent(1)) + ", expected " + std::to_string(rows) + " x " +
                          std::to_string(cols) + " (queries x k)");
  if ((rows > 1 && std::int64_t(v.stride(0)) != cols) || (cols > 1 && v.stride(1) != 1))
    throw InvalidArgument(std::string(who) + ": " + name + " must be contiguous row-major (LayoutRight)");
}

/// Rank-1 norms of `size` values with unit stride; an empty View (data() == nullptr) is allowed.
template <class V>
void check_norms_view(const char* who, const char* name, const V& v, std::int64_t size) {
  if (v.data() == nullptr) return;
  if (std::int64_t(v.extent(0)) != size)
    throw InvalidArgument(std::string(who) + ": " + name + " has " + std::to_string(v.extent(0)) +
                          " values, expected " + std::to_string(size));
  if (size > 1 && v.stride(0) != 1) throw InvalidArgument(std::string(who) + ": " + name + " must have unit stride");
}

template <class ExecSpace>
constexpr void assert_nearest_space() {
  static_assert(Kokkos::is_execution_space<ExecSpace>::value,
                "tcemu::nearest: the first argument must be a Kokkos execution space instance");
  static_assert(is_cuda_execution_space<ExecSpace>() || is_host_execution_space<ExecSpace>(),
                "tcemu::nearest: execution space has no tcemu backend (host spaces and Kokkos::Cuda have)");
}

}  // namespace detail

/// The k nearest database rows of every query by squared Euclidean distance, on Kokkos Views: the
/// contract of nearest_host (tcemu/nearest.hpp: distance = (||x||^2 + ||y||^2) - 2 x.y with x.y from
/// one emulated GEMM per batch of options.batch queries, results nearest first, ties to the smaller
/// index, NaN last, the k = 1 FP64 near-tie re-ranking), run where `space` says.
///
/// Views (T = float or double, the same for queries, database and the norms):
///   queries         q x d, rank 2, unit column stride (LayoutRight, or LayoutStride with stride(1) = 1)
///   database        n x d, the same; 1 <= n < 2^31
///   index           q x k std::int32_t, contiguous row-major (LayoutRight): database row indices
///   distance        q x k double, contiguous row-major: the T distances widened; an empty View
///                   (default-constructed, data() == nullptr) is not written
///   query_norms     q values of T (squared_norms of queries), or an empty View: computed here
///   database_norms  n values of T, or an empty View: computed here
///   options.exact_database (near-tie re-ranking): n x d doubles, row-major, in the same memory space
///                   as the database (e.g. an FP64 View's data())
/// Where it runs: a host execution space (Serial, OpenMP, DefaultHostExecutionSpace, ...) fences
/// `space`, then runs nearest_host on Views in host-accessible memory (HostSpace, CudaHostPinnedSpace,
/// CudaUVMSpace); Kokkos::Cuda runs cuda::nearest_device on space.cuda_stream() after the work queued
/// on the instance, on Views the GPU can access (CudaSpace, CudaUVMSpace, CudaHostPinnedSpace), with the
/// per-thread default workspace (tcemu::cuda::default_nearest_workspace). Either way the call returns
/// with index and distance written. Memory: a batch x n block of T, kept per thread between calls.
/// `log` (may be nullptr) is reset and filled (per-batch GEMM reports, GEMM seconds, re-ranked count).
/// Throws InvalidArgument (one line naming the View or argument) for a memory space the instance cannot
/// access, shapes that disagree, non-unit column strides, non-contiguous outputs, k outside 1..n, k >
/// kNearestMaxDeviceK on Kokkos::Cuda, batch < 1, a bad near-tie margin; DeviceError on Kokkos::Cuda when
/// tcemu was built without its CUDA backend, without a device, or when a CUDA call fails; whatever the
/// GEMM throws. Wrong ranks or element types are compile-time errors. Requires Kokkos to be initialized.
template <class ExecSpace, class QueryView, class DatabaseView, class IndexView, class DistanceView,
          class QueryNormView, class DatabaseNormView>
void nearest(const ExecSpace& space, const QueryView& queries, const DatabaseView& database, int k,
             const IndexView& index, const DistanceView& distance, const NearestOptions& options, NearestLog* log,
             const QueryNormView& query_norms, const DatabaseNormView& database_norms) {
  constexpr const char* who = "tcemu::nearest";
  detail::assert_nearest_space<ExecSpace>();
  static_assert(QueryView::rank == 2 && DatabaseView::rank == 2 && IndexView::rank == 2 && DistanceView::rank == 2,
                "tcemu::nearest: queries, database, index and distance are rank-2 Views");
  static_assert(QueryNormView::rank == 1 && DatabaseNormView::rank == 1, "tcemu::nearest: norms are rank-1 Views");
  using T = typename QueryView::non_const_value_type;
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>,
                "tcemu::nearest: queries must hold float or double");
  static_assert(std::is_same_v<typename DatabaseView::non_const_value_type, T> &&
                    std::is_same_v<typename QueryNormView::non_const_value_type, T> &&
                    std::is_same_v<typename DatabaseNormView::non_const_value_type, T>,
                "tcemu::nearest: queries, database and norms must have the same element type");
  static_assert(std::is_same_v<typename IndexView::value_type, std::int32_t>,
                "tcemu::nearest: index must be a non-const View of std::int32_t");
  static_assert(std::is_same_v<typename DistanceView::value_type, double>,
                "tcemu::nearest: distance must be a non-const View of double");
  detail::check_nearest_view_space<ExecSpace, typename QueryView::memory_space>(who, "queries");
  detail::check_nearest_view_space<ExecSpace, typename DatabaseView::memory_space>(who, "database");
  detail::check_nearest_view_space<ExecSpace, typename IndexView::memory_space>(who, "index");
  detail::check_nearest_view_space<ExecSpace, typename DistanceView::memory_space>(who, "distance");
  detail::check_nearest_view_space<ExecSpace, typename QueryNormView::memory_space>(who, "query_norms");
  detail::check_nearest_view_space<ExecSpace, typename DatabaseNormView::memory_space>(who, "database_norms");
  const std::int64_t q = std::int64_t(queries.extent(0)), n = std::int64_t(database.extent(0));
  detail::check_rows_view(who, "queries", queries);
  detail::check_rows_view(who, "database", database);
  if (k >= 1 && k <= n) {  // else check_nearest_args names k
    detail::check_result_view(who, "index", index, q, k);
    if (distance.data() != nullptr) detail::check_result_view(who, "distance", distance, q, k);
  }
  detail::check_norms_view(who, "query_norms", query_norms, q);
  detail::check_norms_view(who, "database_norms", database_norms, n);
  const MatrixView<const T> qv{queries.data(), q, std::int64_t(queries.extent(1)), std::int64_t(queries.stride(0)), 1};
  const MatrixView<const T> dv{database.data(), n, std::int64_t(database.extent(1)), std::int64_t(database.stride(0)),
                               1};
  double* const dist = distance.data();  // nullptr for an empty View: not written
  if constexpr (detail::is_cuda_execution_space<ExecSpace>()) {
#if defined(TCEMU_HAVE_CUDA)
    if (k > kNearestMaxDeviceK)
      throw InvalidArgument(std::string(who) + ": k = " + std::to_string(k) + " exceeds " +
                            std::to_string(kNearestMaxDeviceK) + ", the largest k on Kokkos::Cuda");
    detail::view_nearest_cuda<T>(qv, dv, k, index.data(), dist, options, log, query_norms.data(),
                                 database_norms.data(), space.cuda_stream());
#else
    (void)space, (void)qv, (void)dv, (void)dist, (void)log;
    throw DeviceError("tcemu::nearest: this tcemu was built without its CUDA backend (TCEMU_ENABLE_CUDA=OFF), "
                      "so it cannot run on a Kokkos::Cuda instance");
#endif
  } else {
    space.fence();  // work queued on the instance before the call completes first
    nearest_host<T>(qv, dv, k, index.data(), dist, options, log, query_norms.data(), database_norms.data());
  }
}

/// The same with the norms computed by the call.
template <class ExecSpace, class QueryView, class DatabaseView, class IndexView, class DistanceView>
void nearest(const ExecSpace& space, const QueryView& queries, const DatabaseView& database, int k,
             const IndexView& index, const DistanceView& distance, const NearestOptions& options,
             NearestLog* log = nullptr) {
  using T = typename QueryView::const_value_type;
  const Kokkos::View<T*, typename QueryView::memory_space> no_query_norms;
  const Kokkos::View<T*, typename DatabaseView::memory_space> no_database_norms;
  nearest(space, queries, database, k, index, distance, options, log, no_query_norms, no_database_norms);
}

/// ||row||^2 of every row of `x` (rows x d, rank 2, unit column stride; float or double), summed in
/// FP64 and rounded to the element type, into `out` (rank 1, `rows` values, unit stride, same element
/// type), on `space`: squared_norms_host (column order) on a host space after fencing it,
/// cuda::squared_norms_device (one warp per row) on a Kokkos::Cuda instance's stream, asynchronously
/// (fence the instance before reading `out` on the host; Kokkos::deep_copy does). Throws
/// InvalidArgument for a memory space `space` cannot access, a size mismatch or a non-unit stride;
/// DeviceError on Kokkos::Cuda without tcemu's CUDA backend or when the launch fails.
template <class ExecSpace, class XView, class OutView>
void squared_norms(const ExecSpace& space, const XView& x, const OutView& out) {
  constexpr const char* who = "tcemu::squared_norms";
  detail::assert_nearest_space<ExecSpace>();
  static_assert(XView::rank == 2 && OutView::rank == 1, "tcemu::squared_norms: x is rank 2, out rank 1");
  using T = typename XView::non_const_value_type;
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "tcemu::squared_norms: float or double");
  static_assert(std::is_same_v<typename OutView::value_type, T>,
                "tcemu::squared_norms: out must be a non-const View of x's element type");
  detail::check_nearest_view_space<ExecSpace, typename XView::memory_space>(who, "x");
  detail::check_nearest_view_space<ExecSpace, typename OutView::memory_space>(who, "out");
  detail::check_rows_view(who, "x", x);
  const std::int64_t rows = std::int64_t(x.extent(0));
  if (std::int64_t(out.extent(0)) != rows)
    throw InvalidArgument(std::string(who) + ": out has " + std::to_string(out.extent(0)) + " values, x " +
                          std::to_string(rows) + " rows");
  if (rows > 1 && out.stride(0) != 1) throw InvalidArgument(std::string(who) + ": out must have unit stride");
  const MatrixView<const T> xv{x.data(), rows, std::int64_t(x.extent(1)), std::int64_t(x.stride(0)), 1};
  if constexpr (detail::is_cuda_execution_space<ExecSpace>()) {
#if defined(TCEMU_HAVE_CUDA)
    detail::view_squared_norms_cuda<T>(xv, out.data(), space.cuda_stream());
#else
    (void)space, (void)xv;
    throw DeviceError("tcemu::squared_norms: this tcemu was built without its CUDA backend (TCEMU_ENABLE_CUDA=OFF)");
#endif
  } else {
    space.fence();
    squared_norms_host<T>(xv, out.data());
  }
}

/// Grows the workspace that tcemu::nearest calls with element type T on `space` use to hold a
/// batch x n block, so that a later timed loop does not allocate it. Kokkos::Cuda: the per-thread
/// default tcemu::cuda::NearestWorkspace<T> (device memory, kept until the thread ends); host spaces:
/// nothing (the host block is grown by the first call and kept per thread). Throws DeviceError when
/// the allocation fails or, on Kokkos::Cuda, without tcemu's CUDA backend.
template <class T, class ExecSpace>
void nearest_reserve(const ExecSpace& space, std::int64_t batch, std::int64_t n) {
  detail::assert_nearest_space<ExecSpace>();
  (void)space;
  if constexpr (detail::is_cuda_execution_space<ExecSpace>()) {
#if defined(TCEMU_HAVE_CUDA)
    detail::view_nearest_reserve_cuda<T>(batch, n);
#else
    (void)batch, (void)n;
    throw DeviceError("tcemu::nearest_reserve: this tcemu was built without its CUDA backend (TCEMU_ENABLE_CUDA=OFF)");
#endif
  } else {
    (void)batch, (void)n;
  }
}

}  // namespace tcemu
