#include "problem.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <functional>
#include <thread>
#include <limits>

#include "tcemu/error.hpp"
#include "app_common/io/hdf5.hpp"

namespace hplai {
namespace {

/// Runs f(0) .. f(count - 1) on all hardware threads (blocks handed out dynamically).
void parallel_for_blocks(std::int64_t count, const std::function<void(std::int64_t)>& f) {
  const unsigned threads = std::max(1u, std::min<unsigned>(std::thread::hardware_concurrency(), 64u));
  std::atomic<std::int64_t> next{0};
  auto worker = [&] {
    for (std::int64_t b = next++; b < count; b = next++) f(b);
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads && t < count; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
}

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

void Lcg::advance(std::uint64_t steps) {
  // x -> a x + c applied `steps` times is x -> A x + C with (A, C) built by repeated squaring of
  // the affine map (A1, C1) = (a, c): (A, C) o (A, C) = (A^2, A C + C).
  std::uint64_t mul = kMul, add = kAdd;
  while (steps != 0) {
    if (steps & 1) state_ = state_ * mul + add;
    add = add * (mul + 1);
    mul = mul * mul;
    steps >>= 1;
  }
}

System generate_system(std::int64_t n, std::uint64_t seed) {
  if (n < 1) throw tcemu::InvalidArgument("--n " + std::to_string(n) + " must be >= 1");
  if (n > 3037000499LL)  // n * n must fit an int64
    throw tcemu::InvalidArgument("--n " + std::to_string(n) + " is too large");
  System sys;
  sys.n = n;
  sys.source = "generated (HPL-MxP, seed " + std::to_string(seed) + ")";
  sys.A.assign(static_cast<std::size_t>(n * n), 0.0);
  double* A = sys.A.data();
  // Blocks of 64 columns in parallel: column j is the stream advanced by j * n draws, so any split
  // of the columns gives the reference's values; rows are written 64 contiguous entries at a time.
  const std::int64_t blocks = (n + 63) / 64;
  parallel_for_blocks(blocks, [=](std::int64_t blk) {
    const std::int64_t j0 = blk * 64, j1 = std::min(n, j0 + 64);
    std::vector<Lcg> col;
    for (std::int64_t j = j0; j < j1; ++j) {
      col.emplace_back(seed);
      col.back().advance(static_cast<std::uint64_t>(j) * static_cast<std::uint64_t>(n));
    }
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = j0; j < j1; ++j) A[i * n + j] = col[j - j0].next();
  });
  std::vector<double> old_diagonal(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) old_diagonal[i] = A[i * n + i];
  // Diagonal: the sum over the whole row in column order (the reference's order, so the rounding is
  // the same), minus the old diagonal's magnitude.
  parallel_for_blocks(blocks, [=](std::int64_t blk) {
    for (std::int64_t i = blk * 64; i < std::min(n, blk * 64 + 64); ++i) {
      double d = 0;
      for (std::int64_t j = 0; j < n; ++j) d += std::fabs(A[i * n + j]);
      A[i * n + i] = d - std::fabs(A[i * n + i]);
    }
  });
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
