#pragma once
/// \file lu.hpp
/// Blocked right-looking LU factorisation without pivoting in the working precision (host), the
/// triangular solves that apply its factors, and the accuracy measure of the factors.
///
/// For each block column k0 = 0, nb, 2 nb, ... (kb = min(nb, n - k0) columns):
///  1. panel factorisation: the kb x kb diagonal block A11 = L11 U11 by an unblocked right-looking
///     loop (each pivot checked, see SingularPivot), then L21 = A21 U11^-1 (cblas_?trsm, right,
///     upper): the tall panel [A11; A21] becomes [L11\U11; L21];
///  2. U12 = L11^-1 A12 (cblas_?trsm, left, unit lower): the block row right of the panel;
///  3. trailing update A22 -= L21 U12 through tcemu::gemm_host with the chosen scheme: the O(n^3)
///     part of the work, and the only place the scheme enters.
/// The panel and the triangular solves run in the working precision T (FP32 for FP32-target schemes,
/// as sgetrf_nopiv in the HPL-AI reference; FP64 for FP64-target schemes).
///
/// Operand scaling of the trailing update: before the GEMM, an operand whose largest magnitude is
/// below 1 is multiplied by the power of two that brings that maximum into [1, 2), and the GEMM's
/// alpha undoes it (alpha = -2^-(sL + sU)). Scaling up by a power of two is exact in binary floating
/// point and is undone exactly afterwards. It keeps the small multipliers of L21 (about 2/n for the
/// HPL-MxP matrix) inside the FP16 range of the fp16-based schemes, which would otherwise fall back to
/// native FP32 for n >~ 32768 (HPL-MxP codes on FP16 hardware scale their panels for the same reason).
/// It is applied to the schemes whose parts lose precision above the working precision's smallest
/// normal binade (the FP16 split schemes except fp16x2-aligned, the tf32x2 and bf16x3 families,
/// bf16x9) and to `auto` (factor.hpp, wants_scaling lists them); for the others it could not change a
/// bit of the update (no subnormals), so it is skipped with the maxima it needs.
#include <cstdint>
#include <functional>
#include <string>

#include "app_common/gemm_log.hpp"
#include "tcemu/error.hpp"
#include "tcemu/gemm.hpp"
#include "tcemu/matrix.hpp"

namespace hplai {

/// A pivot u_jj of the factorisation is zero, not finite, or negligible in the working precision
/// (|u_jj| <= eps_T * max_ij |a_ij|, eps_T = 2^-24 for FP32 and 2^-53 for FP64): LU without
/// pivoting cannot continue. The message is "singular pivot at column j: ...".
class SingularPivot : public tcemu::InvalidArgument {
 public:
  SingularPivot(std::int64_t column, double value, double threshold);
  std::int64_t column() const { return column_; }  ///< 0-based column of the pivot
  double value() const { return value_; }          ///< the pivot u_jj as computed

 private:
  std::int64_t column_;
  double value_;
};

/// Progress of the factorisation after a panel (for progress lines).
struct PanelProgress {
  std::int64_t panel = 0;    ///< 1-based index of the panel just finished
  std::int64_t panels = 0;   ///< total number of panels, ceil(n / nb)
  std::int64_t column = 0;   ///< first column not yet factored
  double seconds = 0;        ///< wall clock since the factorisation started
};

/// Options of lu_factor.
struct LuOptions {
  std::int64_t nb = 256;       ///< block size (panel width), >= 1; clamped to n
  tcemu::GemmOptions gemm;     ///< scheme of the trailing updates (range policy: fallback)
  bool scale_operands = true;  ///< operand scaling of the trailing update (see the file comment)
  std::function<void(const PanelProgress&)> progress;  ///< called after each panel, or empty
};

/// What a factorisation did and how long it took (wall clock, seconds).
struct LuStats {
  double seconds = 0;          ///< whole factorisation
  double seconds_panel = 0;    ///< diagonal blocks + L21 solves
  double seconds_solve = 0;    ///< U12 solves
  double seconds_update = 0;   ///< trailing updates (split + products + combine)
  std::int64_t updates = 0;    ///< trailing-update GEMM calls
  /// Their reports folded: schemes used in order of first use, fallbacks to native arithmetic (the
  /// range check), the first fallback note (names the operand and rule).
  tcemu::app::GemmLog gemm;
};

/// Factors the n x n row-major matrix A (leading dimension lda >= n) in place into L (unit lower,
/// strictly below the diagonal) and U (upper, on and above the diagonal), A = L U, without pivoting.
/// T = float (FP32 storage) or double (FP64 storage). Requires Kokkos to be initialised.
/// Throws SingularPivot (see above), tcemu::InvalidArgument for nb < 1 or n < 1.
template <class T>
LuStats lu_factor(T* A, std::int64_t n, std::int64_t lda, const LuOptions& options);

/// Solves L U x = v in place (x overwrites v): forward substitution with the unit lower factor, then
/// back substitution with the upper factor, both in precision T (cblas_?trsv), on the factors
/// lu_factor left in LU (row-major, leading dimension lda).
template <class T>
void lu_solve(const T* LU, std::int64_t n, std::int64_t lda, T* v);

/// Backward error of the factors: ||A - L U||_F / ||A||_F, with L U formed in FP64 (dgemm), A the
/// n x n row-major FP64 matrix that was factored and LU the factors lu_factor produced from A
/// rounded to T. For a stable factorisation it is of the order of the working precision's unit
/// roundoff times a modest growth term; see docs/hplai.md. O(n^3): meant for tests and small n.
template <class T>
double factor_error(const double* A, const T* LU, std::int64_t n);

}  // namespace hplai
