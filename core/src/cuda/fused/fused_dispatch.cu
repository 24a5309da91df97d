// Scheme -> fused kernel instance (fused.hpp). The kernels themselves are instantiated in
// fused_f16.cu, fused_bf16.cu and fused_tf32.cu.
#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "cuda/fused/wgmma_kernel.cuh"

namespace tcemu::cuda::detail::fused {

#define TCEMU_FUSED_EXTERN(K, S)                                                                     \
  extern template void launch<MmaKind::K, ProductSet::S, float>(const Args&, const Epilogue<float>&, \
                                                                cudaStream_t);                       \
  extern template void launch<MmaKind::K, ProductSet::S, double>(const Args&, const Epilogue<double>&, \
                                                                 cudaStream_t);
TCEMU_FUSED_EXTERN(f16, hi_cross)
TCEMU_FUSED_EXTERN(f16, all_four)
TCEMU_FUSED_EXTERN(bf16, three)
TCEMU_FUSED_EXTERN(bf16, nine)
TCEMU_FUSED_EXTERN(tf32, hi_cross)
#undef TCEMU_FUSED_EXTERN
}  // namespace tcemu::cuda::detail::fused

namespace tcemu::cuda::detail::fused::wg {
#define TCEMU_WGMMA_EXTERN(K, S, T)                                                                 \
  extern template void launch<MmaKind::K, ProductSet::S, T>(const Args&, const Epilogue<T>&, cudaStream_t); \
  extern template bool available<MmaKind::K, ProductSet::S, T>();
#define TCEMU_WGMMA_EXTERN2(K, S) TCEMU_WGMMA_EXTERN(K, S, float) TCEMU_WGMMA_EXTERN(K, S, double)
TCEMU_WGMMA_EXTERN2(f16, hi_cross)
TCEMU_WGMMA_EXTERN2(f16, all_four)
TCEMU_WGMMA_EXTERN2(bf16, three)
TCEMU_WGMMA_EXTERN2(bf16, nine)
TCEMU_WGMMA_EXTERN2(tf32, hi_cross)
#undef TCEMU_WGMMA_EXTERN2
#undef TCEMU_WGMMA_EXTERN
}  // namespace tcemu::cuda::detail::fused::wg

namespace tcemu::cuda::detail::fused {

namespace {

struct Choice {
  bool ok = false;
  MmaKind kind = MmaKind::f16;
  ProductSet set = ProductSet::hi_cross;
};

Choice choice_for(SchemeKind k) {
  switch (k) {
    case SchemeKind::fp16x2:
    case SchemeKind::fp16x2_legemm: return {true, MmaKind::f16, ProductSet::hi_cross};
    case SchemeKind::fp16x2_markidis:
    case SchemeKind::fp16x2_egemm: return {true, MmaKind::f16, ProductSet::all_four};
    case SchemeKind::tf32x2: return {true, MmaKind::tf32, ProductSet::hi_cross};
    case SchemeKind::bf16x3: return {true, MmaKind::bf16, ProductSet::three};
    case SchemeKind::bf16x9: return {true, MmaKind::bf16, ProductSet::nine};
    default: return {};
  }
}

/// The catalogue's groups must be the kernel's table: group 0 = the promoted products, every other
/// group in the low accumulator, all low groups with one scale. Guards against catalogue drift.
bool table_matches(const Scheme& s, ProductSet set) {
  const ProductList L = products_of(set);
  if (s.parts != L.parts || s.groups.empty()) return false;
  std::vector<std::pair<int, int>> g0, low, want0, wantl;
  for (const PartProduct& p : s.groups[0].products) g0.emplace_back(p.a, p.b);
  for (std::size_t g = 1; g < s.groups.size(); ++g) {
    if (s.groups[g].scale_exp != s.groups[1].scale_exp) return false;
    for (const PartProduct& p : s.groups[g].products) low.emplace_back(p.a, p.b);
  }
  for (int q = 0; q < L.n0; ++q) want0.emplace_back(L.a0[q], L.b0[q]);
  for (int q = 0; q < L.nl; ++q) wantl.emplace_back(L.al[q], L.bl[q]);
  for (auto* v : {&g0, &low, &want0, &wantl}) std::sort(v->begin(), v->end());
  return s.groups[0].scale_exp == 0 && g0 == want0 && low == wantl;
}

/// Compute capability of the current device as 10 * major + minor (80, 90, ...).
int compute_capability() {
  int dev = 0, major = 0, minor = 0;
  TCEMU_CUDA(cudaGetDevice(&dev));
  TCEMU_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
  TCEMU_CUDA(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
  return 10 * major + minor;
}

/// The wgmma kernel only on request (TCEMU_CUDA_FUSED_MMA=wgmma) and on compute capability 9.0: measured
/// on an H200 it is correct but 1.6x slower than the mma.sync kernel (it waits for every k-tile's wgmma
/// group before the promotion; docs/perf-notes.md section 4.3).
bool use_wgmma() {
  static const bool requested = [] {
    const char* e = std::getenv("TCEMU_CUDA_FUSED_MMA");
    return e && std::string(e) == "wgmma";
  }();
  return requested && compute_capability() == 90;
}

}  // namespace

bool supported(const Scheme& s) {
  const Choice c = choice_for(s.kind);
  return c.ok && table_matches(s, c.set) && compute_capability() >= 80;
}

template <class T>
void run(const Scheme& s, const Panels& pn, const Epilogue<T>& out, cudaStream_t stream) {
  const Choice c = choice_for(s.kind);
  if (!c.ok || !table_matches(s, c.set))
    throw InvalidArgument("tcemu cuda: scheme " + s.name + " has no fused kernel");
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
  a.ktiles = static_cast<int>((a.part_bytes + kRowBytes - 1) / kRowBytes);
  a.tiles_m = static_cast<int>((pn.m + kBM - 1) / kBM);
  a.tiles_n = static_cast<int>((pn.n + kBN - 1) / kBN);
  if (std::int64_t(a.tiles_m) * a.tiles_n > INT_MAX)
    throw InvalidArgument("tcemu cuda fused: " + std::to_string(pn.m) + " x " + std::to_string(pn.n) +
                          " needs more blocks than one launch allows");
  a.low_scale = s.groups.size() > 1 ? std::ldexp(1.f, s.groups[1].scale_exp) : 1.f;
  if (use_wgmma()) {
    auto go = [&](auto avail, auto launch_fn) {
      if (!avail()) return false;
      launch_fn(a, out, stream);
      return true;
    };
    bool done = false;
    switch (c.set) {
      case ProductSet::hi_cross:
        done = c.kind == MmaKind::tf32
                   ? go(wg::available<MmaKind::tf32, ProductSet::hi_cross, T>, wg::launch<MmaKind::tf32, ProductSet::hi_cross, T>)
                   : go(wg::available<MmaKind::f16, ProductSet::hi_cross, T>, wg::launch<MmaKind::f16, ProductSet::hi_cross, T>);
        break;
      case ProductSet::all_four:
        done = go(wg::available<MmaKind::f16, ProductSet::all_four, T>, wg::launch<MmaKind::f16, ProductSet::all_four, T>);
        break;
      case ProductSet::three:
        done = go(wg::available<MmaKind::bf16, ProductSet::three, T>, wg::launch<MmaKind::bf16, ProductSet::three, T>);
        break;
      case ProductSet::nine:
        done = go(wg::available<MmaKind::bf16, ProductSet::nine, T>, wg::launch<MmaKind::bf16, ProductSet::nine, T>);
        break;
    }
    if (done) return;
  }
  switch (c.set) {
    case ProductSet::hi_cross:
      if (c.kind == MmaKind::tf32) return launch<MmaKind::tf32, ProductSet::hi_cross, T>(a, out, stream);
      return launch<MmaKind::f16, ProductSet::hi_cross, T>(a, out, stream);
    case ProductSet::all_four: return launch<MmaKind::f16, ProductSet::all_four, T>(a, out, stream);
    case ProductSet::three: return launch<MmaKind::bf16, ProductSet::three, T>(a, out, stream);
    case ProductSet::nine: return launch<MmaKind::bf16, ProductSet::nine, T>(a, out, stream);
  }
}

template void run<float>(const Scheme&, const Panels&, const Epilogue<float>&, cudaStream_t);
template void run<double>(const Scheme&, const Panels&, const Epilogue<double>&, cudaStream_t);

}  // namespace tcemu::cuda::detail::fused
