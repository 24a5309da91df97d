#pragma once
/// \file agreement.hpp
/// Comparing two clusterings of the same n points.
#include <cstdint>
#include <vector>

namespace kmeans {

/// Adjusted Rand index (Hubert & Arabie 1985): 1 for identical partitions (whatever the cluster
/// numbering), about 0 for independent ones. Throws tcemu::InvalidArgument when sizes differ or are 0.
double adjusted_rand_index(const std::vector<std::int32_t>& a, const std::vector<std::int32_t>& b);

/// Share of points with the same cluster index in both (meaningful when both runs started from the
/// same centroids, so cluster j means the same cluster).
double agreement(const std::vector<std::int32_t>& a, const std::vector<std::int32_t>& b);

}  // namespace kmeans
