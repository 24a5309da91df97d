// The device side of qsim's auto (auto_config.hpp): the simulator's in-place rule.
#include "auto_config.hpp"

#include <algorithm>
#include <cstdlib>
#include <string>

#if defined(TCEMU_HAVE_CUDA)
#include "tcemu/cuda/bit_gemm.hpp"
#endif

namespace qsim {

InPlaceSupport auto_in_place_support(Device device) {
#if defined(TCEMU_HAVE_CUDA)
  // TCEMU_QSIM_IN_PLACE=off sends every block through the permuted path (simulate_cuda.cpp).
  const char* e = std::getenv("TCEMU_QSIM_IN_PLACE");
  if (device == Device::cuda && !(e && std::string(e) == "off"))
    // Past 32 index bits the simulator runs the kernel per 2^32-amplitude segment (simulate_cuda.cpp),
    // for blocks whose positions lie below bit 32.
    return [](const tcemu::Scheme& s, int d, int n) { return tcemu::cuda::BitGemm::supports(s, d, std::min(n, 32)); };
#endif
  (void)device;
  return {};
}

}  // namespace qsim
