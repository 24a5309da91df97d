#pragma once
/// \file lloyd.hpp
/// Lloyd's k-means iterations whose assignment step is core's nearest-neighbour primitive with k = 1
/// (tcemu::nearest, tcemu/nearest.hpp): argmin of ||x||^2 + ||c||^2 - 2 x.c, where X (n x d) * C^T
/// (d x k) uses the requested scheme, with the primitive's FP64 near-tie re-ranking against the FP64
/// centroids. One source (lloyd.cpp) for the host and the GPU: the data live in Kokkos Views of the
/// execution space --device names, and the inertia and the centroid update are Kokkos parallel
/// patterns on it.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "app_common/device.hpp"
#include "app_common/gemm_log.hpp"
#include "dataset.hpp"
#include "tcemu/gemm.hpp"

namespace kmeans {

/// Iteration controls.
struct LloydOptions {
  std::int64_t k = 8;
  int max_iter = 100;      ///< upper bound on assignment steps
  double tol = 1e-4;       ///< stop when |inertia_prev - inertia| <= tol * inertia
  /// Points per distance GEMM on the host (bounds the batch x k distance buffer); on the GPU all n
  /// points go in one GEMM per iteration.
  std::int64_t batch = 65536;
  /// Where the iterations run (already resolved, tcemu::app::resolve_device): host runs on
  /// Kokkos::DefaultHostExecutionSpace, cuda on Kokkos::Cuda (a build whose Kokkos has CUDA).
  tcemu::app::Device device = tcemu::app::Device::host;
  /// Near-tie re-check: centroids whose GEMM-computed distance lies within
  /// recheck_margin * (||x||^2 + ||c_best||^2) of the best one are compared again with exact FP64
  /// distances. FP32 evaluation of ||x||^2 + ||c||^2 - 2 x.c carries an error of a few 2^-24 of that
  /// sum, so near-ties would otherwise be decided by rounding; the default 2^-16 covers every
  /// FP32-accurate scheme with wide margin but not the one-pass schemes (error ~2^-8..2^-11), whose
  /// drift stays visible. 0 disables the re-check (pure GEMM assignment).
  double recheck_margin = 1.0 / 65536;
};

/// Outcome of one run.
struct LloydResult {
  std::vector<double> centroids;           ///< k x d, the centroids of the final assignment step
  std::vector<std::int32_t> assignment;    ///< n cluster indices (argmin, ties to the lower index)
  std::vector<double> inertia;             ///< per iteration: sum_i ||x_i - c_assign(i)||^2 in FP64
  int iterations = 0;
  bool converged = false;                  ///< tol reached (or assignments stopped changing)
  std::int64_t reseeded = 0;               ///< empty clusters reseeded from the farthest points
  std::int64_t rechecked = 0;              ///< assignments decided by the exact near-tie re-check
  double seconds = 0;                      ///< wall clock of the iterations (init excluded)
  double gemm_seconds = 0;                 ///< part of it spent in the distance GEMMs
  tcemu::app::GemmLog gemm;                ///< what the distance GEMMs did (schemes that ran, fallbacks)
};

/// Called after every iteration: (iteration number from 1, inertia, relative change).
using Progress = std::function<void(int, double, double)>;

/// Runs Lloyd's algorithm from `init` (k x d) on options.device. T = float for FP32-target schemes,
/// double for FP64-target ones (the data are converted once). Inertia is computed directly in FP64
/// (not from the GEMM), so it measures the clustering, not the scheme's distance error. Empty
/// clusters are reseeded with the points farthest from their centroids. `seconds` covers the
/// iterations only: copying the points to the device (or converting them), their norms and the
/// allocations come before the clock starts. A run on a serial host space is deterministic; on the
/// GPU the points of a cluster are grouped in the order of atomic increments and the FP64 centroid
/// sums and the inertia are added atomically per chunk of points, so their last bits may vary from
/// run to run. Throws tcemu::DeviceError for Device::cuda in a build whose Kokkos or tcemu has no CUDA
/// backend (the message says how to configure one), without a device, or when a CUDA call fails;
/// whatever the GEMM throws.
template <class T>
LloydResult lloyd(const Dataset& data, const std::vector<double>& init, const tcemu::GemmOptions& gemm,
                  const LloydOptions& options, const Progress& progress = {});

}  // namespace kmeans
