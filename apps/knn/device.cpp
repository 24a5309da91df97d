#include "device.hpp"

#include <Kokkos_Core.hpp>

#include "search_device.hpp"
#include "tcemu/error.hpp"

namespace knn {

const char* to_string(Device device) {
  switch (device) {
    case Device::host: return "host";
    case Device::cuda: return "cuda";
    default: return "auto";
  }
}

Device parse_device(const std::string& name) {
  if (name == "host") return Device::host;
  if (name == "cuda") return Device::cuda;
  if (name == "auto") return Device::automatic;
  throw tcemu::InvalidArgument("--device '" + name + "': expected host, cuda or auto");
}

Device resolve_device(Device requested) {
  if (requested == Device::cuda) {
#if defined(TCEMU_HAVE_CUDA)
    if (!gpu_available()) throw tcemu::DeviceError("--device cuda: no CUDA device is available");
    return Device::cuda;
#else
    throw tcemu::DeviceError("--device cuda: CUDA backend not available in this build");
#endif
  }
  if (requested == Device::automatic) return gpu_available() ? Device::cuda : Device::host;
  return Device::host;
}

template <class T>
tcemu::GemmReport distance_gemm(Device device, const T* queries, std::int64_t b, const T* train,
                                std::int64_t n, std::int64_t d, T* dots,
                                const tcemu::GemmOptions& options) {
  if (device != Device::host)
    throw tcemu::InvalidArgument("knn distance_gemm: host memory operands need --device host");
  using Unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
  using In = Kokkos::View<const T**, Kokkos::LayoutRight, Kokkos::HostSpace, Unmanaged>;
  using Out = Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::HostSpace, Unmanaged>;
  const In q(queries, static_cast<std::size_t>(b), static_cast<std::size_t>(d));
  const In t(train, static_cast<std::size_t>(n), static_cast<std::size_t>(d));
  const Out c(dots, static_cast<std::size_t>(b), static_cast<std::size_t>(n));
  return tcemu::gemm(tcemu::Op::N, tcemu::Op::T, T(1), q, t, T(0), c, options);
}

template tcemu::GemmReport distance_gemm<float>(Device, const float*, std::int64_t, const float*,
                                                std::int64_t, std::int64_t, float*,
                                                const tcemu::GemmOptions&);
template tcemu::GemmReport distance_gemm<double>(Device, const double*, std::int64_t, const double*,
                                                 std::int64_t, std::int64_t, double*,
                                                 const tcemu::GemmOptions&);

}  // namespace knn
