#include "problem.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "tcemu/error.hpp"
#include "app_common/io/hdf5.hpp"

namespace hplai {
namespace {

using GenSpace = Kokkos::DefaultExecutionSpace;
using GenMatrix = Kokkos::View<double**, Kokkos::LayoutRight, GenSpace::memory_space>;
using GenVector = Kokkos::View<double*, GenSpace::memory_space>;

/// |x| on the host and on a GPU (x for -0: the sums below cannot tell).
KOKKOS_INLINE_FUNCTION double magnitude(double x) { return x < 0 ? -x : x; }

/// Fills A (n x n, row-major) with the reference's draws: column j is the stream seeded with `seed`
/// advanced by j * n draws, so any split of the columns gives the reference's values. Each work item
/// owns `Width` adjacent columns and writes them row by row: 64 on the host (rows written 64
/// contiguous entries at a time), 1 on a GPU (a warp's 32 columns make one coalesced store per row).
template <int Width>
struct FillColumns {
  GenMatrix A;
  std::uint64_t seed;
  std::int64_t n;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t block) const {
    const std::int64_t j0 = block * Width, j1 = j0 + Width < n ? j0 + Width : n;
    Lcg col[Width];
    for (std::int64_t j = j0; j < j1; ++j) {
      col[j - j0] = Lcg(seed);
      col[j - j0].advance(static_cast<std::uint64_t>(j) * static_cast<std::uint64_t>(n));
    }
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = j0; j < j1; ++j) A(i, j) = col[j - j0].next();
  }
};

/// The reference's diagonal rule, one row per work item: a_ii = (sum over the whole row in column
/// order, the reference's order, so the rounding is the same) - |old a_ii|; the old diagonal is kept.
struct DiagonalRule {
  GenMatrix A;
  GenVector old_diagonal;
  std::int64_t n;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const {
    double d = 0;
    for (std::int64_t j = 0; j < n; ++j) d += magnitude(A(i, j));
    old_diagonal(i) = A(i, i);
    A(i, i) = d - magnitude(A(i, i));
  }
};

/// True when the reference rule a_ii = sum_{j != i} |a_ij| may have made A singular. Every row then
/// has |a_ii| equal to its off-diagonal sum, and (Taussky) such a matrix whose off-diagonal entries
/// are all nonzero is singular exactly when signs s_i = +-1 exist with sign(a_ij) = -s_i s_j for all
/// i != j (then A s = 0). Always true for n = 1 (a_11 = 0); for n = 2 whenever a_12 and a_21 share a
/// sign; for random large n the first rows contradict the signs almost at once. A zero off-diagonal
/// entry answers true (conservatively: the strict rule is then used).
bool reference_rule_singular(const double* A, std::int64_t n) {
  std::vector<int> sign(static_cast<std::size_t>(n), 1);
  for (std::int64_t j = 1; j < n; ++j) {
    if (A[j] == 0) return true;
    sign[j] = A[j] > 0 ? -1 : 1;  // from row 0: sign(a_0j) = -s_0 s_j with s_0 = +1
  }
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      if (i == j) continue;
      const double a = A[i * n + j];
      if (a == 0) return true;
      if ((a > 0 ? 1 : -1) != -sign[i] * sign[j]) return false;  // a contradiction: nonsingular
    }
  return true;
}

}  // namespace

System generate_system(std::int64_t n, std::uint64_t seed) {
  if (n < 1) throw tcemu::InvalidArgument("--n " + std::to_string(n) + " must be >= 1");
  if (n > 3037000499LL)  // n * n must fit an int64
    throw tcemu::InvalidArgument("--n " + std::to_string(n) + " is too large");
  System sys;
  sys.n = n;
  sys.source = "generated (HPL-MxP, seed " + std::to_string(seed) + ")";
  sys.A.resize(static_cast<std::size_t>(n * n));
  std::vector<double> old_diagonal(static_cast<std::size_t>(n));
  {
    // Generated where the default execution space runs, then brought to the host (no copy when
    // that space is the host: the Views alias sys.A and old_diagonal).
    using HostMatrix = Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;
    using HostVector = Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;
    const HostMatrix host_A(sys.A.data(), n, n);
    const HostVector host_old(old_diagonal.data(), n);
    const GenMatrix A = Kokkos::create_mirror_view(GenSpace::memory_space(), host_A);
    const GenVector old = Kokkos::create_mirror_view(GenSpace::memory_space(), host_old);
    const GenSpace space;
    constexpr bool on_host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, GenSpace::memory_space>::accessible;
    constexpr int width = on_host ? 64 : 1;
    Kokkos::parallel_for("hplai::generate", Kokkos::RangePolicy<GenSpace>(space, 0, (n + width - 1) / width),
                         FillColumns<width>{A, seed, n});
    Kokkos::parallel_for("hplai::diagonal", Kokkos::RangePolicy<GenSpace>(space, 0, n), DiagonalRule{A, old, n});
    Kokkos::deep_copy(space, host_A, A);  // no-op when they alias
    Kokkos::deep_copy(space, host_old, old);
    space.fence();
  }
  double* A = sys.A.data();
  if (reference_rule_singular(A, n)) {
    // Strict dominance (a_ii = sum_j |a_ij|, the old diagonal included) is nonsingular for any n.
    for (std::int64_t i = 0; i < n; ++i) {
      A[i * n + i] += std::fabs(old_diagonal[i]);
      if (A[i * n + i] == 0) A[i * n + i] = 1;
    }
    sys.source += ", strictly dominant diagonal (the reference rule is singular for this n and seed)";
  }
  Lcg b(seed + 1);
  sys.b.resize(static_cast<std::size_t>(n));
  for (auto& v : sys.b) v = b.next();
  return sys;
}

System load_system(const std::string& path) {
  tcemu::app::io::Reader in(path);
  auto A = in.read<double>("/A", 2);
  if (A.rows() != A.cols())
    throw tcemu::InvalidArgument(path + ": dataset /A is " + std::to_string(A.rows()) + " x " +
                                 std::to_string(A.cols()) + ", not square");
  tcemu::app::io::require_finite(A, path, "/A");
  const auto binfo = in.info("/b");
  const int brank = static_cast<int>(binfo.shape.size());
  if (brank == 2 && binfo.shape[1] != 1)
    throw tcemu::InvalidArgument(path + ": dataset /b is " + std::to_string(binfo.shape[0]) + " x " +
                                 std::to_string(binfo.shape[1]) + "; expected a vector of " +
                                 std::to_string(A.rows()) + " entries");
  auto b = in.read<double>("/b", brank == 2 ? 2 : 1);
  if (b.rows() != A.rows())
    throw tcemu::InvalidArgument(path + ": dataset /b has " + std::to_string(b.rows()) +
                                 " entries but /A is " + std::to_string(A.rows()) + " x " +
                                 std::to_string(A.cols()));
  tcemu::app::io::require_finite(b, path, "/b");
  System sys;
  sys.n = A.rows();
  sys.A = std::move(A.data);
  sys.b = std::move(b.data);
  sys.source = path;
  return sys;
}

double norm_inf(const System& sys) {
  double best = 0;
  for (std::int64_t i = 0; i < sys.n; ++i) {
    double s = 0;
    const double* r = sys.row(i);
    for (std::int64_t j = 0; j < sys.n; ++j) s += std::fabs(r[j]);
    best = std::max(best, s);
  }
  return best;
}

}  // namespace hplai
