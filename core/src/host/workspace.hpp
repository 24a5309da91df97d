#pragma once
// Per-thread scratch buffers of the host backend, kept between calls: apps call gemm in loops
// (k-means iterations, knn batches) with the same shapes, and re-allocating hundreds of MB per call
// costs more in page faults than the split itself.
#include <cstddef>
#include <vector>

namespace tcemu::host {

/// Buffer `slot` of element type T with at least `n` elements (contents unspecified). Slots are
/// independent; a pointer stays valid until the same slot is requested again with a larger n.
template <class T>
T* scratch(int slot, std::size_t n) {
  static thread_local std::vector<std::vector<T>> pool;
  if (pool.size() <= static_cast<std::size_t>(slot)) pool.resize(slot + 1);
  if (pool[slot].size() < n) {
    pool[slot].clear();
    pool[slot].shrink_to_fit();
    pool[slot].resize(n);
  }
  return pool[slot].data();
}

}  // namespace tcemu::host
