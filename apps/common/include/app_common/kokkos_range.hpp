#pragma once
/// \file kokkos_range.hpp
/// The apps' RangePolicy for work that can pass 2^32 items.
#include <Kokkos_Core.hpp>
#include <cstdint>

namespace tcemu::app {

/// Kokkos::RangePolicy over [begin, end) with 64-bit indices. A RangePolicy's default index type is
/// its space's size_type, unsigned 32-bit on Kokkos::Cuda, which cannot count the amplitudes of a
/// state past 32 qubits, nor hplai's chunked items (a quarter of the entries) of a matrix past
/// 131,072^2; use this one wherever the count comes from such a size.
template <class Space>
using Range64 = Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>>;

}  // namespace tcemu::app
