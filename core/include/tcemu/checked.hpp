#pragma once
/// \file checked.hpp
/// Checked size arithmetic for every size read from a file or an option: a shape whose element count
/// or byte count does not fit in 63 bits is an error, never a wrapped product.
#include <cstdint>
#include <string>
#include <vector>

namespace tcemu {

/// a * b for non-negative a and b, or throws InvalidArgument "<what>: <a> x <b> overflows 64-bit
/// sizes" when the product exceeds INT64_MAX; a negative factor throws "<what>: negative size <x>".
std::int64_t checked_mul(std::int64_t a, std::int64_t b, const std::string& what);

/// The element count of `shape` (the product of its extents, 1 for rank 0) times `element_bytes`,
/// checked as checked_mul does; the error names `what` (e.g. "f.h5: dataset /train") and the shape.
/// Returns the element count; throws InvalidArgument on overflow or a negative extent.
std::int64_t checked_element_count(const std::vector<std::int64_t>& shape, std::int64_t element_bytes,
                                   const std::string& what);

/// Bytes of physical memory of this machine (sysconf), or 0 when unknown.
std::uint64_t physical_memory_bytes();

}  // namespace tcemu
