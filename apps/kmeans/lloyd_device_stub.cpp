// Builds without the CUDA backend: the GPU path reports that it is not there.
#include "lloyd_device.hpp"

#include "tcemu/error.hpp"

namespace kmeans {

template <class T>
LloydResult lloyd_device(const Dataset&, const std::vector<double>&, const tcemu::GemmOptions&,
                         const LloydOptions&, const Progress&) {
  throw tcemu::DeviceError("--device cuda: this build of kmeans has no CUDA backend (TCEMU_ENABLE_CUDA=OFF)");
}

template LloydResult lloyd_device<float>(const Dataset&, const std::vector<double>&,
                                         const tcemu::GemmOptions&, const LloydOptions&, const Progress&);
template LloydResult lloyd_device<double>(const Dataset&, const std::vector<double>&,
                                          const tcemu::GemmOptions&, const LloydOptions&, const Progress&);

}  // namespace kmeans
