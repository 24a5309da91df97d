// The device-independent execution decisions of the planning step (tcemu/planning.hpp), and the
// names of tcemu/execution.hpp's Overlap, OrientationPolicy, Implementation and Stage with
// ExecutionPlan::explain, the text those decisions are reported in.
#include "tcemu/planning.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "tcemu/error.hpp"
#include "tcemu/schemes/ozaki.hpp"

namespace tcemu {
namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

}  // namespace

Orientation orientation_for_layout(bool c_row_major) {
  Orientation o;
  o.swapped = c_row_major;
  o.reason = c_row_major ? "C^T (C is row-major; this implementation writes a column-major result)"
                         : "C (column-major)";
  return o;
}

Orientation orientation_for_tiles(std::int64_t m, std::int64_t n, bool c_row_major, BlockTile tile) {
  if (tile.rows <= 0 || tile.cols <= 0 || m <= 0 || n <= 0)
    throw InvalidArgument("orientation_for_tiles: tile " + std::to_string(tile.rows) + " x " +
                          std::to_string(tile.cols) + " on " + std::to_string(m) + " x " + std::to_string(n) +
                          " (all must be positive)");
  const std::int64_t rm = ceil_div(m, tile.rows), cn = ceil_div(n, tile.cols);  // C as is
  const std::int64_t rn = ceil_div(n, tile.rows), cm = ceil_div(m, tile.cols);  // C^T
  const std::int64_t as_c = rm * cn, as_ct = rn * cm;
  Orientation o;
  const bool tie = as_c == as_ct;
  o.swapped = tie ? c_row_major : as_ct < as_c;
  o.tiles = o.swapped ? as_ct : as_c;
  o.tiles_other = o.swapped ? as_c : as_ct;
  char line[256];
  std::snprintf(line, sizeof line, "%s: %dx%d tiles, %lld x %lld = %lld as C, %lld x %lld = %lld as C^T%s",
                o.swapped ? "C^T" : "C", tile.rows, tile.cols, (long long)rm, (long long)cn, (long long)as_c,
                (long long)rn, (long long)cm, (long long)as_ct, tie ? " (tie: C's layout)" : "");
  o.reason = line;
  return o;
}

ShapeClass implementation_shape_class(std::int64_t m, std::int64_t n, bool c_row_major) {
  return orientation_for_layout(c_row_major).swapped ? shape_class(n, m) : shape_class(m, n);
}

ImplementationChoice choose_split_implementation(const Scheme& scheme, bool has_fused, CudaKernels policy,
                                                 bool reads_c, ShapeClass shape, const CostModel* model) {
  if (!has_fused) return {Implementation::multipass, scheme.name + " has no fused kernel"};
  if (policy == CudaKernels::multipass) return {Implementation::multipass, "policy: multipass"};
  if (policy == CudaKernels::fused) return {Implementation::fused, "policy: fused"};
  const std::string cls = shape_class_rule(shape) + (reads_c ? ", beta != 0" : ", beta = 0");
  const ImplementationTiming* t = model ? model->find_implementation_timing(scheme.kind, reads_c, shape) : nullptr;
  if (!t) return {Implementation::fused, "auto: no calibrated timing for " + cls + ", fused"};
  const bool fused = t->fused_seconds <= t->multipass_seconds;
  char line[256];
  std::snprintf(line, sizeof line, "auto: %s, calibrated at %lldx%lldx%lld: fused %.4g ms, multi-pass %.4g ms",
                cls.c_str(), (long long)t->m, (long long)t->n, (long long)t->k, t->fused_seconds * 1e3,
                t->multipass_seconds * 1e3);
  return {fused ? Implementation::fused : Implementation::multipass, line};
}

bool products_before_planning(Overlap overlap, bool products_write_c, bool reads_c) {
  if (overlap == Overlap::none) return false;
  return !(products_write_c && reads_c);
}

Overlap parse_overlap(const std::string& name) {
  if (name.empty() || name == "auto" || name == "products-while-planning") return Overlap::products_while_planning;
  if (name == "none") return Overlap::none;
  throw InvalidArgument("unknown overlap policy '" + name + "' (expected none or products-while-planning)");
}

const char* to_string(Overlap o) {
  switch (o) {
    case Overlap::none: return "none";
    case Overlap::products_while_planning: return "products-while-planning";
  }
  return "?";
}

OrientationPolicy parse_orientation_policy(const std::string& name) {
  if (name.empty() || name == "auto" || name == "layout") return OrientationPolicy::layout;
  if (name == "tiles") return OrientationPolicy::tiles;
  throw InvalidArgument("unknown orientation policy '" + name + "' (expected tiles or layout)");
}

const char* to_string(OrientationPolicy o) {
  switch (o) {
    case OrientationPolicy::tiles: return "tiles";
    case OrientationPolicy::layout: return "layout";
  }
  return "?";
}

const char* to_string(Implementation i) {
  switch (i) {
    case Implementation::none: return "none";
    case Implementation::native: return "native";
    case Implementation::fused: return "fused";
    case Implementation::multipass: return "multi-pass";
    case Implementation::int_slices: return "int-slices";
    case Implementation::crt: return "crt";
    case Implementation::mixpert: return "mixpert";
  }
  return "?";
}

const char* to_string(Stage s) {
  switch (s) {
    case Stage::split: return "split";
    case Stage::plan: return "plan";
    case Stage::products: return "products";
    case Stage::combine: return "combine";
  }
  return "?";
}

ChunkPlan plan_chunking(const Scheme& scheme, Implementation implementation, std::int64_t k,
                        std::int64_t accumulation_chunk_override) {
  if (k < 0) throw InvalidArgument("plan_chunking: k = " + std::to_string(k) + " is negative");
  ChunkPlan c;
  c.k_chunk_length = k;
  const auto round16 = [](std::int64_t v) { return (v + 15) / 16 * 16; };
  if (implementation == Implementation::multipass && scheme.parts > 1) {
    if (accumulation_chunk_override >= 0) {
      c.accumulation_chunk = round16(accumulation_chunk_override);
    } else {
      // Hopper's Tensor Cores add each MMA step into the accumulator in a 25-bit window with
      // round-toward-zero (docs/accuracy.md): the error grows like the chunk length L (about
      // 1.2e-9 L for FP16/BF16 parts, twice for TF32), SGEMM's like sqrt(k) (about 1.8e-8 sqrt(k)).
      // Measured: k = 8192 -> 2048 (2.46e-6 vs SGEMM 1.62e-6), 4096 -> 1536, knn's 784 -> none.
      const bool tf32 = scheme.part == PartType::tf32;
      const std::int64_t lo = tf32 ? 256 : 512, hi = tf32 ? 1024 : 2048;
      const double len = (tf32 ? 12.0 : 24.0) * std::sqrt(static_cast<double>(k));
      const std::int64_t chunk = std::clamp(round16(static_cast<std::int64_t>(len)), lo, hi);
      c.accumulation_chunk = k <= chunk + chunk / 4 ? 0 : chunk;
    }
  }
  // INT8 products: INT32 sums of at most `longest` products of |v| <= 128 stay exact. int8-crt on the
  // GPU uses 2^16, below 2^30 for every modulus (p = 256 included), so no sum wraps.
  std::int64_t longest = 0;
  if (implementation == Implementation::int_slices) longest = split::kOzakiMaxChunkK;
  if (implementation == Implementation::crt) longest = std::int64_t{1} << 16;
  if (longest > 0 && k > 0) {
    c.k_chunks = (k + longest - 1) / longest;
    c.k_chunk_length = (k + c.k_chunks - 1) / c.k_chunks;
  }
  return c;
}

std::string ExecutionPlan::explain() const {
  std::string out = "execution: scheme " + (scheme.empty() ? std::string("(none)") : scheme);
  if (slices > 0) out += ", " + std::to_string(slices) + " slices";
  out += "\n  implementation: " + std::string(to_string(implementation));
  if (!implementation_reason.empty()) out += " (" + implementation_reason + ")";
  out += "\n  orientation: " + (orientation_reason.empty() ? std::string(swapped ? "C^T" : "C") : orientation_reason);
  out += "\n  overlap: " + std::string(to_string(overlap)) + "\n  stages:";
  for (std::size_t i = 0; i < stages.size(); ++i) out += (i ? " -> " : " ") + std::string(to_string(stages[i]));
  out += "\n  chunking: ";
  out += chunking.accumulation_chunk > 0
             ? "dominant group accumulated in chunks of " + std::to_string(chunking.accumulation_chunk) + " of k"
             : std::string("no accumulation chunks");
  if (chunking.k_chunks > 1)
    out += ", k in " + std::to_string(chunking.k_chunks) + " INT32-exact chunks of " +
           std::to_string(chunking.k_chunk_length);
  out += "\n  workspace: " + std::to_string(workspace_bytes) + " bytes\n";
  return out;
}

}  // namespace tcemu
