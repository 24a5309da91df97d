#pragma once
// Where each split part goes in the TN panels so that every product group is one contiguous window of
// both panels ([A_hi | A_lo] . [B_lo ; B_hi]): one cuBLAS GEMM per group, no copies.
#include <vector>

#include "tcemu/scheme.hpp"

namespace tcemu::cuda::detail {

/// Group g is the GEMM of panel-A positions [off_a, off_a + len) with panel-B positions
/// [off_b, off_b + len), scaled by 2^scale_exp in the combine.
struct GroupWindow {
  int off_a = 0, off_b = 0, len = 0, scale_exp = 0;
};

/// Part sequences of the two panels and each group's window (same order as Scheme::groups).
struct PartLayout {
  std::vector<int> seq_a, seq_b;
  std::vector<GroupWindow> windows;
};

/// Builds the layout for `groups`; with `swap` the roles of the operands are exchanged (the product
/// (a, b) becomes (b, a): used when C is row-major and the backend computes C^T = op(B)^T op(A)^T).
/// Largest groups are placed first; a smaller group reuses a window of the panels when its part
/// sequence appears there (in its own order or reversed), else its sequence is appended. For the
/// catalogue this gives panels of `parts` copies, except Markidis / EGEMM-TC (4: one accumulator of
/// all four products).
PartLayout make_part_layout(const std::vector<ProductGroup>& groups, bool swap);

}  // namespace tcemu::cuda::detail
