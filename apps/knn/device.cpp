#include "device.hpp"

#include <Kokkos_Core.hpp>

#include "search_device.hpp"
#include "tcemu/error.hpp"

namespace knn {

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
