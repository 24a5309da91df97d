// int8-mixpert's dispatch to its fused kernel (kernels/mixpert_kernel.cuh, instantiated in
// kernels/fused_s8.cu); the pack pass is passes/mixpert_pack.cu.
#include <climits>
#include <string>

#include "cuda/mixpert.hpp"
#include "cuda/kernels/mixpert_kernel.cuh"
#include "tcemu/error.hpp"
#include "tcemu/schemes/mixpert.hpp"

namespace tcemu::cuda::detail {
namespace fused {
TCEMU_MIXPERT_SEGMENTS(TCEMU_MIXPERT_LAUNCH, extern)
}  // namespace fused

template <class T>
void mixpert_products(int sx, int sy, const std::int8_t* x, const std::int8_t* y, const std::int16_t* ex,
                      const std::int16_t* ey, std::int64_t m, std::int64_t n, int kblocks, T* c, std::int64_t c_rs,
                      std::int64_t c_cs, T alpha, T beta, cudaStream_t stream) {
  using namespace fused;
  if (m > INT_MAX - kBM || n > INT_MAX - kBN)
    throw InvalidArgument(std::string("tcemu cuda ") + schemes::Int8Mixpert::desc.name + ": m = " + std::to_string(m) + ", n = " + std::to_string(n) +
                          " exceed the kernel's 32-bit line index");
  Args a{};
  a.x = reinterpret_cast<const char*>(x);
  a.y = reinterpret_cast<const char*>(y);
  a.part_bytes = std::int64_t(kblocks) * mixpert::kTileK;
  a.x_row_bytes = sx * a.part_bytes;
  a.y_row_bytes = sy * a.part_bytes;
  a.m = static_cast<int>(m);
  a.n = static_cast<int>(n);
  a.tiles_m = static_cast<int>((m + kBM - 1) / kBM);
  a.tiles_n = static_cast<int>((n + kBN - 1) / kBN);
  if (std::int64_t(a.tiles_m) * a.tiles_n > INT_MAX)
    throw InvalidArgument(std::string("tcemu cuda ") + schemes::Int8Mixpert::desc.name + ": " + std::to_string(m) + " x " + std::to_string(n) +
                          " needs more blocks than one launch allows");
  a.ex_x = ex;
  a.ex_y = ey;
  a.kblocks = kblocks;
  a.tiles8_x = static_cast<int>((m + mixpert::kTileLines - 1) / mixpert::kTileLines);
  a.tiles8_y = static_cast<int>((n + mixpert::kTileLines - 1) / mixpert::kTileLines);
  Epilogue<T> e;
  e.c = c;
  e.c_rs = c_rs;
  e.c_cs = c_cs;
  e.alpha = alpha;
  e.beta = beta;
  const int key = sx * 10 + sy;
  switch (key) {
    case 22: return launch_mixpert<2, 2, T>(a, e, stream);
    case 23: return launch_mixpert<2, 3, T>(a, e, stream);
    case 32: return launch_mixpert<3, 2, T>(a, e, stream);
    case 33: return launch_mixpert<3, 3, T>(a, e, stream);
  }
  throw InvalidArgument(std::string("tcemu cuda ") + schemes::Int8Mixpert::desc.name + ": no kernel for " + std::to_string(sx) + " x " +
                        std::to_string(sy) + " segments");
}

#define TCEMU_MIXPERT_TYPES(T)                                                                               \
  template void mixpert_products<T>(int, int, const std::int8_t*, const std::int8_t*, const std::int16_t*,   \
                                    const std::int16_t*, std::int64_t, std::int64_t, int, T*, std::int64_t,  \
                                    std::int64_t, T, T, cudaStream_t);
TCEMU_MIXPERT_TYPES(float)
TCEMU_MIXPERT_TYPES(double)
#undef TCEMU_MIXPERT_TYPES

}  // namespace tcemu::cuda::detail
