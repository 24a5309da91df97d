// Scheme -> fused kernel instance (kernels/fused.hpp). The kernels themselves are instantiated in
// kernels/fused_f16.cu, fused_bf16.cu, fused_tf32.cu and fused_wgmma_*.cu.
#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cmath>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <cudaTypedefs.h>

#include <cstdint>

#include "cuda/arch/device_query.hpp"
#include "cuda/kernels/wgmma_kernel.cuh"
#include "tcemu/planning.hpp"

namespace tcemu::cuda::detail::fused {

TCEMU_FUSED_TABLES(TCEMU_FUSED_LAUNCH, extern)
}  // namespace tcemu::cuda::detail::fused

namespace tcemu::cuda::detail::fused::wg {
TCEMU_FUSED_TABLES(TCEMU_WGMMA_LAUNCH, extern)

CUtensorMap panel_map(const void* base, std::int64_t lines, int parts, std::int64_t part_bytes, int elem_bytes,
                      int row_bytes, int box_lines) {
  const auto encode = arch::tensor_map_encoder();
  CUtensorMap map{};
  const cuuint64_t dims[3] = {cuuint64_t(part_bytes / elem_bytes), cuuint64_t(parts), cuuint64_t(lines)};
  const cuuint64_t strides[2] = {cuuint64_t(part_bytes), cuuint64_t(part_bytes) * cuuint64_t(parts)};
  const cuuint32_t box[3] = {cuuint32_t(row_bytes / elem_bytes), 1, cuuint32_t(box_lines)};
  const cuuint32_t estride[3] = {1, 1, 1};
  const CUtensorMapDataType type = elem_bytes == 4 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT32 : CU_TENSOR_MAP_DATA_TYPE_UINT16;
  const CUresult r = encode(&map, type, 3, const_cast<void*>(base), dims, strides, box, estride,
                            CU_TENSOR_MAP_INTERLEAVE_NONE,
                            row_bytes == 64 ? CU_TENSOR_MAP_SWIZZLE_64B : CU_TENSOR_MAP_SWIZZLE_128B,
                            CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    throw DeviceError("tcemu cuda fused: cuTensorMapEncodeTiled failed (error " + std::to_string(int(r)) +
                      ") for a panel of " + std::to_string(lines) + " lines x " + std::to_string(parts) +
                      " parts x " + std::to_string(part_bytes) + " bytes");
  return map;
}

}  // namespace tcemu::cuda::detail::fused::wg

namespace tcemu::cuda::detail::fused {

namespace {

struct Choice {
  bool ok = false;
  MmaKind kind = MmaKind::f16;
  ProductSet set = ProductSet::hi_cross;
};

/// The Tensor Core instruction of a part type.
constexpr MmaKind mma_for(PartType p) {
  return p == PartType::tf32 ? MmaKind::tf32 : p == PartType::bf16 ? MmaKind::bf16 : MmaKind::f16;
}

/// The (instruction, table) pairs that have kernel instances (TCEMU_FUSED_TABLES).
struct Instance {
  MmaKind kind;
  ProductSet set;
};
struct InstanceList {
  Instance i[16];
  int n;
};
#define TCEMU_FUSED_INSTANCE(P, K, S) Instance{MmaKind::K, ProductSet::S},
constexpr InstanceList kInstances = [] {
  constexpr Instance all[] = {TCEMU_FUSED_TABLES(TCEMU_FUSED_INSTANCE, )};
  InstanceList l{};
  for (const Instance& x : all) l.i[l.n++] = x;
  return l;
}();
#undef TCEMU_FUSED_INSTANCE

/// Every descriptor that names a fused table has a compiled instance for its part type.
constexpr bool every_fused_table_instantiated() {
  for (const schemes::SchemeDescriptor& d : schemes::kDescriptors.d) {
    if (d.fused == FusedTable::none) continue;
    bool found = false;
    for (int j = 0; j < kInstances.n; ++j)
      found |= kInstances.i[j].kind == mma_for(d.part) && kInstances.i[j].set == d.fused;
    if (!found) return false;
  }
  return true;
}
static_assert(every_fused_table_instantiated(),
              "a descriptor names a fused table without a kernel instance for its part type (TCEMU_FUSED_TABLES)");

/// The kernel of a scheme: its descriptor's fused table (the kernel's product list is that table,
/// products_of) on the instruction of its part type.
Choice choice_for(SchemeKind k) {
  const schemes::SchemeDescriptor& d = schemes::descriptor(k);
  if (d.fused == FusedTable::none) return {};
  return {true, mma_for(d.part), d.fused};
}

/// Which fused kernel runs on compute capability 9.0: the warp-specialised wgmma kernel unless the
/// policy asks for mma.sync (other devices always run mma.sync).
bool use_wgmma(FusedMma mma) { return mma != FusedMma::mma_sync && arch::compute_capability_checked() == 90; }

/// Calls f(kind, set) with the kernel instance of `c` as std::integral_constant tags: the one map
/// from a scheme's choice to a compiled <MmaKind, ProductSet> instance.
template <class F>
decltype(auto) with_instance(const Choice& c, F&& f) {
  using MK = MmaKind;
  using PS = ProductSet;
  using std::integral_constant;
  switch (c.set) {
    case PS::hi_cross:
      if (c.kind == MK::tf32) return f(integral_constant<MK, MK::tf32>{}, integral_constant<PS, PS::hi_cross>{});
      return f(integral_constant<MK, MK::f16>{}, integral_constant<PS, PS::hi_cross>{});
    case PS::all_four: return f(integral_constant<MK, MK::f16>{}, integral_constant<PS, PS::all_four>{});
    case PS::hi_low3:
      if (c.kind == MK::tf32) return f(integral_constant<MK, MK::tf32>{}, integral_constant<PS, PS::hi_low3>{});
      return f(integral_constant<MK, MK::f16>{}, integral_constant<PS, PS::hi_low3>{});
    case PS::three: return f(integral_constant<MK, MK::bf16>{}, integral_constant<PS, PS::three>{});
    case PS::nine: return f(integral_constant<MK, MK::bf16>{}, integral_constant<PS, PS::nine>{});
    case PS::none: break;
  }
  throw InvalidArgument("tcemu cuda fused: no kernel instance for this product table");
}

/// The wgmma kernel of <K, S> when asked for and compiled for this device, else the mma.sync one.
template <MmaKind K, ProductSet S, class T>
void launch_kernel(bool wgmma, const Args& a, const Epilogue<T>& out, cudaStream_t stream) {
  if (wgmma && wg::available<K, S, T>()) return wg::launch<K, S, T>(a, out, stream);
  launch<K, S, T>(a, out, stream);
}

}  // namespace

bool supported(const Scheme& s) {
  const Choice c = choice_for(s.kind);
  return c.ok && arch::compute_capability_checked() >= 80;
}

namespace {

/// True when kernel_name / run take the wgmma kernel of `c` under `mma` (workspace panels are
/// 256-byte aligned, so run's alignment test passes for them).
bool wgmma_for(const Choice& c, FusedMma mma) {
  return use_wgmma(mma) && with_instance(c, [](auto k, auto set) {
           return wg::available<decltype(k)::value, decltype(set)::value, float>();
         });
}

}  // namespace

const char* kernel_name(const Scheme& s, FusedMma mma) {
  const Choice c = choice_for(s.kind);
  if (!c.ok) throw InvalidArgument("tcemu cuda: scheme " + s.name + " has no fused kernel");
  return wgmma_for(c, mma) ? "fused (wgmma)" : "fused (mma.sync)";
}

::tcemu::BlockTile block_tile(const Scheme& s, FusedMma mma) {
  const Choice c = choice_for(s.kind);
  if (!c.ok) throw InvalidArgument("tcemu cuda: scheme " + s.name + " has no fused kernel");
  if (wgmma_for(c, mma)) return ::tcemu::BlockTile{wg::kBM, wg::tile_shape(c.set).bn};
  return ::tcemu::BlockTile{kBM, kBN};
}

template <class T>
void run(const Scheme& s, const Panels& pn, const Epilogue<T>& out, cudaStream_t stream) {
  const Choice c = choice_for(s.kind);
  if (!c.ok) throw InvalidArgument("tcemu cuda: scheme " + s.name + " has no fused kernel");
  if (pn.m > INT_MAX || pn.n > INT_MAX)
    throw InvalidArgument("tcemu cuda fused: m = " + std::to_string(pn.m) + ", n = " + std::to_string(pn.n) +
                          " exceed the kernel's 32-bit line index");
  const std::int64_t eb = c.kind == MmaKind::tf32 ? 4 : 2;
  const int parts = products_of(c.set).parts;
  Args a{};
  a.x = static_cast<const char*>(pn.x);
  a.y = static_cast<const char*>(pn.y);
  a.part_bytes = pn.kp * eb;
  a.x_row_bytes = a.y_row_bytes = parts * a.part_bytes;
  a.m = static_cast<int>(pn.m);
  a.n = static_cast<int>(pn.n);
  a.tiles_m = static_cast<int>((pn.m + kBM - 1) / kBM);
  a.tiles_n = static_cast<int>((pn.n + kBN - 1) / kBN);
  if (std::int64_t(a.tiles_m) * a.tiles_n > INT_MAX)
    throw InvalidArgument("tcemu cuda fused: " + std::to_string(pn.m) + " x " + std::to_string(pn.n) +
                          " needs more blocks than one launch allows");
  a.low_scale = s.groups.size() > 1 ? std::ldexp(1.f, s.groups[1].scale_exp) : 1.f;
  const bool wgmma = use_wgmma(pn.mma) && arch::aligned16(pn.x) && arch::aligned16(pn.y);
  with_instance(c, [&](auto k, auto set) {
    launch_kernel<decltype(k)::value, decltype(set)::value>(wgmma, a, out, stream);
  });
}

template void run<float>(const Scheme&, const Panels&, const Epilogue<float>&, cudaStream_t);
template void run<double>(const Scheme&, const Panels&, const Epilogue<double>&, cudaStream_t);

}  // namespace tcemu::cuda::detail::fused
