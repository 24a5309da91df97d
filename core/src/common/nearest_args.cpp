// Argument checks of tcemu::nearest_host and tcemu::cuda::nearest_device (tcemu/nearest.hpp).
#include <string>

#include "tcemu/error.hpp"
#include "tcemu/nearest.hpp"

namespace tcemu::detail {

void check_nearest_args(const char* who, std::int64_t q, std::int64_t qd, std::int64_t q_col_stride,
                        std::int64_t n, std::int64_t nd, std::int64_t n_col_stride, int k,
                        const NearestOptions& options, bool has_index) {
  const std::string w = who;
  if (q < 0) throw InvalidArgument(w + ": queries has " + std::to_string(q) + " rows");
  if (n < 1) throw InvalidArgument(w + ": database is empty");
  if (n > 0x7fffffff) throw InvalidArgument(w + ": database rows must fit in int32");
  if (qd != nd)
    throw InvalidArgument(w + ": queries have d = " + std::to_string(qd) + ", database d = " + std::to_string(nd));
  if (q_col_stride != 1) throw InvalidArgument(w + ": queries must have a unit column stride");
  if (n_col_stride != 1) throw InvalidArgument(w + ": database must have a unit column stride");
  if (k < 1 || k > n)
    throw InvalidArgument(w + ": k = " + std::to_string(k) + " must be in 1.." + std::to_string(n));
  if (options.batch < 1) throw InvalidArgument(w + ": batch = " + std::to_string(options.batch) + " must be >= 1");
  if (!(options.near_tie_margin >= 0)) throw InvalidArgument(w + ": near_tie_margin must be >= 0");
  if (options.near_tie_margin > 0 && k != 1) throw InvalidArgument(w + ": near_tie_margin needs k = 1");
  if (options.near_tie_margin > 0 && !options.exact_database)
    throw InvalidArgument(w + ": near_tie_margin needs exact_database");
  if (!has_index && q > 0) throw InvalidArgument(w + ": index is null");
}

}  // namespace tcemu::detail
