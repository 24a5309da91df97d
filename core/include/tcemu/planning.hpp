#pragma once
/// \file planning.hpp
/// The execution decisions of the planning step that do not need a device, shared by the backends
/// and tested without one: fused or multi-pass per scheme and shape class from a calibrated cost
/// model, the orientation of C for a tiled kernel, and whether a split scheme's products run before
/// planning (ExecutionPolicy::overlap). What they decided lands in GemmReport::plan.execution.
#include <cstdint>
#include <string>

#include "tcemu/execution.hpp"
#include "tcemu/scheme.hpp"
#include "tcemu/select.hpp"

namespace tcemu {

/// Block tile of a Tensor Core kernel, in accumulator rows x columns. The CUDA backend computes
/// acc = X . Y^T column-major, X's lines being the rows: op(A)'s rows, or op(B)'s columns when swapped.
struct BlockTile {
  int rows = 0, cols = 0;
};

/// The orientation of one call: which of C (m x n) or C^T (n x m) the backend computes.
struct Orientation {
  bool swapped = false;          ///< compute C^T = op(B)^T . op(A)^T
  std::int64_t tiles = 0;        ///< block tiles of the chosen orientation (0 when no tile decided it)
  std::int64_t tiles_other = 0;  ///< block tiles of the other orientation
  std::string reason;            ///< one line for the report, with the tile arithmetic where used
};

/// The orientation for implementations that see one layout (multi-pass, cuBLAS, Ozaki, MixPert):
/// swapped exactly when C is row-major, so that C is column-major to them.
Orientation orientation_for_layout(bool c_row_major);

/// The orientation for a kernel with block tile `tile` that writes C with any strides (the fused
/// kernels): the one with fewer tiles, ceil(rows / tile.rows) * ceil(cols / tile.cols) with
/// (rows, cols) = (m, n) unswapped and (n, m) swapped; on a tie the layout's (orientation_for_layout).
/// E.g. knn's 1,024 x 60,000 row-major C with 128 x 192 tiles: 8 x 313 = 2,504 tiles unswapped
/// against 469 x 6 = 2,814 swapped. Throws InvalidArgument when a tile side or m, n is not positive.
Orientation orientation_for_tiles(std::int64_t m, std::int64_t n, bool c_row_major, BlockTile tile);

/// Fused kernel or multi-pass, and why (ExecutionPlan::implementation / implementation_reason).
struct ImplementationChoice {
  Implementation implementation = Implementation::multipass;
  std::string reason;
};

/// The shape class (tcemu/select.hpp) the implementation choice of a call on an m x n C uses: that of
/// the problem as the layout orientation (orientation_for_layout) presents it to the kernel, i.e.
/// shape_class(n, m) when C is row-major, else shape_class(m, n). E.g. knn's 1,024 x 60,000 row-major
/// C: tall. The implementation is decided first, on this class, and the orientation after it: under
/// OrientationPolicy::tiles a fused kernel may then run the other orientation, which the calibration
/// times the same way (it runs each class's representative under the caller's policy).
ShapeClass implementation_shape_class(std::int64_t m, std::int64_t n, bool c_row_major);

/// The implementation of a split-part scheme (ImplFamily parts, one_pass, line_aligned) on the CUDA
/// backend: multi-pass when it has no fused kernel (`has_fused` false) or `policy` is multipass;
/// fused when `policy` is fused; for automatic the faster of the two in `model`'s
/// ImplementationTiming of (scheme.kind, reads_c, shape) (a tie goes to fused, the more accurate),
/// and fused when `model` is null or has no such timing. `reads_c`: beta != 0; `shape`: the class of
/// the problem as the kernel sees it (implementation_shape_class). The reason names the beta and
/// shape classes and, when a timing decided, its shape and both times in ms.
ImplementationChoice choose_split_implementation(const Scheme& scheme, bool has_fused, CudaKernels policy,
                                                 bool reads_c, ShapeClass shape, const CostModel* model);

/// How k is cut for `scheme` run as `implementation` on a problem of inner dimension k (ExecutionPlan::
/// chunking); the executors use exactly this.
///  - Multi-pass split schemes with more than one part: the dominant group accumulates in chunks of
///    about 24 sqrt(k) elements (12 sqrt(k) for TF32 parts), rounded up to 16 and clamped to
///    [512, 2048] ([256, 1024] for TF32), none when k is at most 1.25 chunks; this keeps the error near
///    SGEMM's at every k (a fixed 2048 gave 2.1x SGEMM's error at k = 4096; docs/cost-model.md,
///    docs/accuracy.md). `accumulation_chunk_override` (ExecutionPolicy::accumulation_chunk) >= 0
///    forces a length (rounded up to 16; 0 = none).
///  - INT8 families (int8-ozaki slices, int8-crt): the fewest chunks of at most 2^17 elements, of equal
///    length (ceil(k / chunks)), so that INT32 sums of INT8 products are exact.
/// Throws InvalidArgument for k < 0.
ChunkPlan plan_chunking(const Scheme& scheme, Implementation implementation, std::int64_t k,
                        std::int64_t accumulation_chunk_override);

/// Whether a split scheme's products are queued before planning under `overlap`: never for
/// Overlap::none; for products_while_planning, unless they write C (`products_write_c`: the fused
/// kernel, multi-pass GEMMs straight into C) while C is read (`reads_c`, beta != 0): a fallback
/// could then not undo them.
bool products_before_planning(Overlap overlap, bool products_write_c, bool reads_c);

}  // namespace tcemu
