// int8-mixpert in gemm_device: pack both oriented operands, read their range checks back, then run the
// fused kernel (or leave the decision to fall back to the caller).
#include "cuda/mixpert.hpp"
#include "cuda/dispatch/paths.hpp"

namespace tcemu::cuda::detail {

template <class T>
bool run_mixpert(const Scheme& s, const Problem<T>& p, Workspace::Impl& ws, bool ignore_range,
                 mixpert::PackCheck& cx, mixpert::PackCheck& cy, cudaEvent_t after_split) {
  const mixpert::Segments seg = mixpert::segments(s.level, p.swapped);
  const int kblocks = static_cast<int>(((p.k + mixpert::kTileK - 1) / mixpert::kTileK + 1) / 2 * 2);
  const std::int64_t kp = std::int64_t(kblocks) * mixpert::kTileK;
  const std::int64_t tx = (p.m + mixpert::kTileLines - 1) / mixpert::kTileLines;
  const std::int64_t ty = (p.n + mixpert::kTileLines - 1) / mixpert::kTileLines;
  auto align = [](std::size_t b) { return (b + 255) / 256 * 256; };
  const std::size_t dx = align(std::size_t(p.m) * seg.x * kp), ex_bytes = align(std::size_t(tx) * kblocks * 2);
  const std::size_t dy = align(std::size_t(p.n) * seg.y * kp), ey_bytes = align(std::size_t(ty) * kblocks * 2);
  auto* bx = static_cast<char*>(ws.get(kSlotPartsA, dx + ex_bytes, p.stream));
  auto* by = static_cast<char*>(ws.get(kSlotPartsB, dy + ey_bytes, p.stream));
  auto* counters = static_cast<unsigned long long*>(ws.get(kSlotProfile, 4 * sizeof(unsigned long long), p.stream));
  auto* dgx = reinterpret_cast<std::int8_t*>(bx);
  auto* dgy = reinterpret_cast<std::int8_t*>(by);
  auto* exx = reinterpret_cast<std::int16_t*>(bx + dx);
  auto* exy = reinterpret_cast<std::int16_t*>(by + dy);

  TCEMU_CUDA(cudaMemsetAsync(counters, 0, 4 * sizeof(unsigned long long), p.stream));
  mixpert_pack<T>(p.x.data, p.m, p.k, p.x.line_stride, p.x.k_stride, seg.x, kblocks, dgx, exx, counters, p.stream);
  mixpert_pack<T>(p.y.data, p.n, p.k, p.y.line_stride, p.y.k_stride, seg.y, kblocks, dgy, exy, counters + 2,
                  p.stream);
  auto* h = static_cast<unsigned long long*>(ws.host(4 * sizeof(unsigned long long)));
  TCEMU_CUDA(cudaMemcpyAsync(h, counters, 4 * sizeof(unsigned long long), cudaMemcpyDeviceToHost, p.stream));
  TCEMU_CUDA(cudaEventRecord(after_split, p.stream));
  TCEMU_CUDA(cudaEventSynchronize(after_split));
  const std::int64_t kb_real = (p.k + mixpert::kTileK - 1) / mixpert::kTileK;  // without the even padding
  cx = mixpert::PackCheck{static_cast<std::int64_t>(h[0]), tx * kb_real, static_cast<std::int64_t>(h[1])};
  cy = mixpert::PackCheck{static_cast<std::int64_t>(h[2]), ty * kb_real, static_cast<std::int64_t>(h[3])};
  const bool in_range = mixpert::violation(cx).empty() && mixpert::violation(cy).empty();
  if (!in_range && !ignore_range) return false;
  mixpert_products<T>(seg.x, seg.y, dgx, dgy, exx, exy, p.m, p.n, kblocks, p.c, p.c_rs, p.c_cs, p.alpha, p.beta,
                      p.stream);
  return true;
}

template bool run_mixpert<float>(const Scheme&, const Problem<float>&, Workspace::Impl&, bool, mixpert::PackCheck&,
                                 mixpert::PackCheck&, cudaEvent_t);
template bool run_mixpert<double>(const Scheme&, const Problem<double>&, Workspace::Impl&, bool,
                                  mixpert::PackCheck&, mixpert::PackCheck&, cudaEvent_t);

}  // namespace tcemu::cuda::detail
