#pragma once
/// \file blas_int.hpp
/// CBLAS/LAPACK take 32-bit integer extents; this converts with a check.
#include <cstdint>
#include <limits>
#include <string>

#include "tcemu/error.hpp"

namespace hplai {

/// v as an int; throws tcemu::InvalidArgument when v exceeds the 32-bit range of CBLAS/LAPACK
/// (e.g. n * n > 2^31 for a vector of matrix entries).
inline int blas_int(std::int64_t v) {
  if (v > std::numeric_limits<int>::max() || v < std::numeric_limits<int>::min())
    throw tcemu::InvalidArgument("extent " + std::to_string(v) + " exceeds the 32-bit range of CBLAS/LAPACK");
  return static_cast<int>(v);
}

}  // namespace hplai
