#pragma once
/// \file init.hpp
/// Seeded initial centroids, computed once in FP64 with direct distances (no GEMM) so that every
/// scheme starts from exactly the same centroids and runs are comparable.
#include <cstdint>
#include <string>
#include <vector>

#include "dataset.hpp"

namespace kmeans {

/// How the initial centroids are chosen.
enum class Init {
  kmeanspp,  ///< k-means++ (Arthur & Vassilvitskii 2007): D^2 sampling, seeded
  random,    ///< k distinct points drawn uniformly, seeded
  file,      ///< /init_centroids from the input file
};

/// Parses "kmeans++" | "random" | "file"; throws tcemu::InvalidArgument otherwise.
Init parse_init(const std::string& name);

/// k x d initial centroids (row-major). Requires validate_k() to have passed.
std::vector<double> initial_centroids(const Dataset& data, std::int64_t k, Init init, std::uint64_t seed);

}  // namespace kmeans
