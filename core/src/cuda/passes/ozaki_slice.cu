// Ozaki INT8 slicing pass (split::ozaki_slices, shared with the host backend), both input types.
#include "cuda/passes/chunked_k.cuh"
#include "cuda/passes/tile_pass.cuh"
#include "tcemu/split.hpp"

namespace tcemu::cuda::detail {
namespace {

/// Writes the s slices of each element into its k chunk (layout in kernels.hpp). Quads never straddle
/// a chunk (kcp is a multiple of 16).
struct OzakiWriter {
  static constexpr bool kUnrollQuads = false;
  std::int64_t span;  // nchunks * kcp
  ChunkedK chunks;
  const int* line_exp;
  int s;
  bool reversed;
  std::int8_t* out;

  __device__ __forceinline__ unsigned quad(std::int64_t ko, std::int64_t& kk0) const { return chunks.quad(ko, kk0); }
  __device__ __forceinline__ std::int64_t source(std::int64_t ko) const { return chunks.source(ko); }
  template <class T>
  __device__ __forceinline__ void write(std::int64_t line, std::int64_t ko, const T (&x)[4]) const {
    std::int64_t c, l;
    chunks.locate(ko, c, l);
    const std::int64_t kcp = chunks.kcp;
    std::int8_t* dst = out + line * (span * s) + c * (s * kcp) + l;
    const int e = line_exp[line];
    const std::int64_t step = reversed ? -kcp : kcp;
    if (reversed) dst += (s - 1) * kcp;
#pragma unroll
    for (int i = 0; i < 4; ++i) split::ozaki_slices(static_cast<double>(x[i]), e, 7, s, dst + i, step);
  }
};

}  // namespace

template <class T>
void ozaki_slice_operand(const T* data, std::int64_t lines, std::int64_t k, std::int64_t line_stride,
                         std::int64_t k_stride, const int* line_exp, int s, bool reversed,
                         std::int64_t kc, std::int64_t kcp, std::int64_t nchunks, std::int8_t* out,
                         cudaStream_t stream) {
  const OzakiWriter w{nchunks * kcp, ChunkedK{k, kc, kcp, nchunks == 1}, line_exp, s, reversed, out};
  launch_tile_pass(data, lines, line_stride, k_stride, w, ProfileArgs{}, nchunks == 1 || kc % 4 == 0,
                   stream);
}

template void ozaki_slice_operand<float>(const float*, std::int64_t, std::int64_t, std::int64_t,
                                         std::int64_t, const int*, int, bool, std::int64_t,
                                         std::int64_t, std::int64_t, std::int8_t*, cudaStream_t);
template void ozaki_slice_operand<double>(const double*, std::int64_t, std::int64_t, std::int64_t,
                                          std::int64_t, const int*, int, bool, std::int64_t,
                                          std::int64_t, std::int64_t, std::int8_t*, cudaStream_t);

}  // namespace tcemu::cuda::detail
