#pragma once
// The k-chunk layout of the INT8 panels (Ozaki slices, int8-crt residues): k is cut into chunks of
// kc elements so that an INT32 sum over one chunk stays exact, and each chunk is padded to kcp
// (a multiple of 16) in the panel. The tile pass's writers (tile_pass.cuh) map panel positions ko
// back to source elements through quad() and source(); both INT8 writers share this mapping.
#include <cstdint>

namespace tcemu::cuda::detail {

/// k elements in chunks of kc, each chunk kcp wide in the panel (one_chunk: kc == k, no division).
struct ChunkedK {
  std::int64_t k, kc, kcp;
  bool one_chunk;

  /// Panel position ko as (chunk c, offset l within the chunk).
  __device__ __forceinline__ void locate(std::int64_t ko, std::int64_t& c, std::int64_t& l) const {
    c = one_chunk ? 0 : ko / kcp;
    l = ko - c * kcp;
  }
  /// tile_pass's quad(): the source element of ko in kk0, and the mask of the 4 positions from ko
  /// that hold elements (the rest are the chunk's padding or beyond k).
  __device__ __forceinline__ unsigned quad(std::int64_t ko, std::int64_t& kk0) const {
    std::int64_t c, l;
    locate(ko, c, l);
    kk0 = c * kc + l;
    const std::int64_t r1 = kc - l, r2 = k - kk0;
    const std::int64_t r = r1 < r2 ? r1 : r2;
    return r >= 4 ? 0xFu : (r <= 0 ? 0u : (1u << r) - 1u);
  }
  /// tile_pass's source(): the element at panel position ko, or -1 for padding.
  __device__ __forceinline__ std::int64_t source(std::int64_t ko) const {
    if (one_chunk) return ko < k ? ko : -1;
    std::int64_t c, l;
    locate(ko, c, l);
    const std::int64_t kk = c * kc + l;
    return (l < kc && kk < k) ? kk : -1;
  }
};

}  // namespace tcemu::cuda::detail
