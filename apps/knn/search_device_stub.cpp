// Builds without the CUDA backend: knn's GPU path reports that it is not there.
#include "search_device.hpp"

#include "tcemu/error.hpp"

namespace knn {

template <class T>
Neighbors search_device(const T*, const T*, std::int64_t, std::int64_t, std::int64_t, const tcemu::Scheme&,
                        int, const SearchOptions&, SearchLog*) {
  throw tcemu::DeviceError("--device cuda: CUDA backend not available in this build");
}

template Neighbors search_device<float>(const float*, const float*, std::int64_t, std::int64_t, std::int64_t,
                                        const tcemu::Scheme&, int, const SearchOptions&, SearchLog*);
template Neighbors search_device<double>(const double*, const double*, std::int64_t, std::int64_t,
                                         std::int64_t, const tcemu::Scheme&, int, const SearchOptions&,
                                         SearchLog*);

}  // namespace knn
