// Ozaki INT8 slicing pass (split::ozaki_slices, shared with the host backend), both input types.
#include "cuda/tile_pass.cuh"
#include "tcemu/split.hpp"

namespace tcemu::cuda::detail {
namespace {

/// Writes the s slices of each element into its k chunk (layout in kernels.hpp).
struct OzakiWriter {
  std::int64_t span;  // nchunks * kcp
  std::int64_t k, kc, kcp;
  const int* line_exp;
  int s;
  bool reversed;
  std::int8_t* out;

  __device__ std::int64_t source(std::int64_t ko) const {
    const std::int64_t c = ko / kcp, l = ko - c * kcp;
    const std::int64_t kk = c * kc + l;
    return (l < kc && kk < k) ? kk : -1;
  }
  __device__ void operator()(std::int64_t line, std::int64_t ko, double x, bool valid) const {
    const std::int64_t c = ko / kcp, l = ko - c * kcp;
    std::int8_t* dst = out + line * (span * s) + c * (s * kcp) + l;
    if (reversed) {
      split::ozaki_slices(valid ? x : 0.0, line_exp[line], 7, s, dst + (s - 1) * kcp, -kcp);
    } else {
      split::ozaki_slices(valid ? x : 0.0, line_exp[line], 7, s, dst, kcp);
    }
  }
};

}  // namespace

template <class T>
void ozaki_slice_operand(const T* data, std::int64_t lines, std::int64_t k, std::int64_t line_stride,
                         std::int64_t k_stride, const int* line_exp, int s, bool reversed,
                         std::int64_t kc, std::int64_t kcp, std::int64_t nchunks, std::int8_t* out,
                         cudaStream_t stream) {
  const OzakiWriter w{nchunks * kcp, k, kc, kcp, line_exp, s, reversed, out};
  launch_tile_pass(data, lines, line_stride, k_stride, w, ProfileArgs{}, stream);
}

template void ozaki_slice_operand<float>(const float*, std::int64_t, std::int64_t, std::int64_t,
                                         std::int64_t, const int*, int, bool, std::int64_t,
                                         std::int64_t, std::int64_t, std::int8_t*, cudaStream_t);
template void ozaki_slice_operand<double>(const double*, std::int64_t, std::int64_t, std::int64_t,
                                          std::int64_t, const int*, int, bool, std::int64_t,
                                          std::int64_t, std::int64_t, std::int8_t*, cudaStream_t);

}  // namespace tcemu::cuda::detail
