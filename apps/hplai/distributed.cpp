// hplai over a P x Q grid of MPI ranks (distributed.hpp, docs/scaling.md): the generator, the host LU,
// the refinement (vectors on every rank's host), the rows of the run (the GPU LU and the refinement's
// GPU block products: distributed_cuda.cpp).
#include "distributed.hpp"

#include <Kokkos_Core.hpp>
#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <type_traits>
#include <vector>

#include "cblas_trsm.hpp"
#include "app_common/auto_cost_model.hpp"
#include "app_common/sweep.hpp"
#include "app_common/timing.hpp"
#include "auto_choice.hpp"
#include "blas_int.hpp"
#include "dense.hpp"
#include "distributed_factor.hpp"
#include "factor.hpp"
#include "refine_impl.hpp"
#include "tcemu/error.hpp"
#include "tcemu/gemm.hpp"

namespace hplai {

void require_verifiable(const SchemeResult& baseline, const std::string& source);  // run.cpp

namespace {

using HostSpace = Kokkos::DefaultHostExecutionSpace;
using detail::LocalMatrix;
template <class T>
using Unmanaged = Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;

template <class T>
MPI_Datatype mpi_type() {
  return std::is_same_v<T, float> ? MPI_FLOAT : MPI_DOUBLE;
}

int to_int(std::int64_t v) {  // MPI counts are int
  if (v > std::numeric_limits<int>::max())
    throw tcemu::InvalidArgument("hplai over MPI: a message of " + std::to_string(v) + " entries exceeds MPI's int count");
  return static_cast<int>(v);
}

/// |x| as the one-process generator forms it (problem.cpp).
double magnitude(double x) { return x < 0 ? -x : x; }

/// a_ij of the generator before the diagonal rule: draw j n + i of the stream seeded with `seed`.
double draw(std::uint64_t seed, std::int64_t n, std::int64_t i, std::int64_t j) {
  Lcg s(seed);
  s.advance(static_cast<std::uint64_t>(j) * static_cast<std::uint64_t>(n) + static_cast<std::uint64_t>(i));
  return s.next();
}

/// problem.cpp's reference_rule_singular on draws computed from (i, j): the same answer on every
/// rank without the matrix (for random large n the second row already contradicts the sign rule).
bool reference_rule_singular(std::uint64_t seed, std::int64_t n) {
  std::vector<int> sign(static_cast<std::size_t>(n), 1);
  for (std::int64_t j = 1; j < n; ++j) {
    const double a = draw(seed, n, 0, j);
    if (a == 0) return true;
    sign[j] = a > 0 ? -1 : 1;
  }
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      if (i == j) continue;
      const double a = draw(seed, n, i, j);
      if (a == 0) return true;
      if ((a > 0 ? 1 : -1) != -sign[i] * sign[j]) return false;
    }
  return true;
}

/// This rank's part of the generated system: its local blocks of A (FP64), b (replicated: n entries)
/// and the norms the check needs, all bit for bit those of generate_system() and norm_inf().
struct LocalSystem {
  LocalMatrix<double> A;
  std::vector<double> b;
  double a_inf = 0, a_max = 0, b_inf = 0;
  std::string source;
};

LocalSystem generate_local(const Grid& g, const BlockCyclic& R, const BlockCyclic& C, std::uint64_t seed) {
  const std::int64_t n = R.n, nb = R.nb, lr = R.local_count(g.p), lc = C.local_count(g.q);
  LocalSystem s;
  s.A = LocalMatrix<double>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "hplai::local_A"), lr, lc);
  // Column by column, each run of nb rows from one jump of the stream (entry (i, j) is draw j n + i).
  for (std::int64_t lj = 0; lj < lc; ++lj) {
    const std::int64_t j = C.global(lj, g.q);
    for (std::int64_t li0 = 0; li0 < lr; li0 += nb) {
      Lcg stream(seed);
      stream.advance(static_cast<std::uint64_t>(j) * static_cast<std::uint64_t>(n) +
                     static_cast<std::uint64_t>(R.global(li0, g.p)));
      for (std::int64_t r = 0; r < std::min(nb, lr - li0); ++r) s.A(li0 + r, lj) = stream.next();
    }
  }
  // The diagonal rule needs whole rows: the rank holding a_ii draws row i (one step of n draws per
  // column: the affine map x -> mul x + add of n LCG steps) and sums it in the reference's order.
  const bool strict = reference_rule_singular(seed, n);
  Lcg zero(0), one(1);
  zero.advance(static_cast<std::uint64_t>(n));
  one.advance(static_cast<std::uint64_t>(n));
  const std::uint64_t add = zero.state(), mul = one.state() - add;
  std::vector<double> row(static_cast<std::size_t>(n));
  double a_inf = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    if (R.owner(i) != g.p || C.owner(i) != g.q) continue;
    Lcg stream(seed);
    stream.advance(static_cast<std::uint64_t>(i));
    std::uint64_t state = stream.state();
    for (std::int64_t j = 0; j < n; ++j) {
      row[j] = static_cast<double>(state * Lcg::kMul + Lcg::kAdd) * 0x1p-64 - 0.5;
      state = state * mul + add;
    }
    double d = 0;
    for (std::int64_t j = 0; j < n; ++j) d += magnitude(row[j]);
    const double old = row[i];
    row[i] = d - magnitude(old);
    if (strict) {
      row[i] += std::fabs(old);
      if (row[i] == 0) row[i] = 1;
    }
    double sum = 0;
    for (std::int64_t j = 0; j < n; ++j) sum += std::fabs(row[j]);
    a_inf = std::max(a_inf, sum);
    s.A(R.local(i), C.local(i)) = row[i];
  }
  double local_max[2] = {a_inf, 0};
  for (std::int64_t li = 0; li < lr; ++li)
    for (std::int64_t lj = 0; lj < lc; ++lj) local_max[1] = std::max(local_max[1], magnitude(s.A(li, lj)));
  double global_max[2];
  MPI_Allreduce(local_max, global_max, 2, MPI_DOUBLE, MPI_MAX, g.comm);
  s.a_inf = global_max[0];
  s.a_max = global_max[1];
  Lcg b(seed + 1);
  s.b.resize(static_cast<std::size_t>(n));
  for (auto& v : s.b) {
    v = b.next();
    s.b_inf = std::max(s.b_inf, std::fabs(v));
  }
  s.source = "generated (HPL-MxP, seed " + std::to_string(seed) + ")";
  if (strict) s.source += ", strictly dominant diagonal (the reference rule is singular for this n and seed)";
  return s;
}


template <class T>
double absmax(const T* v, std::int64_t count) {
  double m = 0;
  for (std::int64_t i = 0; i < count; ++i) m = std::max(m, magnitude(static_cast<double>(v[i])));
  return m;
}

/// The distributed blocked LU without pivoting of the local factors `lu` (distributed.hpp, steps
/// 1-4), operations per entry as factor_blocked's on one process. Throws SingularPivot on every
/// rank for the first bad pivot (the ranks go on to the end of the loop, then agree on it).
template <class T>
LuStats factor_distributed(const Grid& g, const BlockCyclic& R, const BlockCyclic& C, const LocalMatrix<T>& lu,
                           const LuOptions& options, double tiny) {
  using tcemu::app::Clock;
  using tcemu::app::seconds_since;
  const std::int64_t n = R.n, nb = R.nb, blocks = (n + nb - 1) / nb;
  const std::int64_t lr = R.local_count(g.p), lc = C.local_count(g.q), ld = lc;
  const bool scaled = options.scale_operands && wants_scaling<T>(options.gemm.scheme);
  DenseSolvers<HostSpace> solvers;
  const HostSpace space;
  std::int64_t bad_column = n;
  double bad_value = 0;
  LuStats st;
  std::vector<T> diag, panel, urow;
  const auto start = Clock::now();
  for (std::int64_t k = 0; k < blocks; ++k) {
    const auto [k0, kb, rest, pk, qk, rk, rk1, ck, ck1, rows, below, cols] = detail::block_step(g, R, C, k);
    auto t0 = Clock::now();
    // 1. diagonal block, down the process column; L21 = A21 U11^-1 on the column's ranks.
    diag.assign(static_cast<std::size_t>(kb * kb), T(0));
    if (g.q == qk) {
      if (g.p == pk) {
        T* D = &lu(rk, ck);
        if (bad_column == n) {
          try {
            solvers.factor_panel(D, kb, kb, ld, tiny, k0);
          } catch (const SingularPivot& e) {
            bad_column = e.column();
            bad_value = e.value();
          }
        }
        for (std::int64_t r = 0; r < kb; ++r) std::copy(D + r * ld, D + r * ld + kb, diag.data() + r * kb);
      }
      if (g.P > 1) MPI_Bcast(diag.data(), to_int(kb * kb), mpi_type<T>(), pk, g.col);
      // One trsm per local block (as the update below): the same calls on every grid.
      for (std::int64_t li = rk1; li < lr; li += nb)
        trsm(CblasRight, CblasUpper, CblasNonUnit, std::min(nb, lr - li), kb, diag.data(), kb, &lu(li, ck), ld);
      panel.resize(static_cast<std::size_t>(rows * kb));
      for (std::int64_t r = 0; r < rows; ++r)
        std::copy(&lu(rk + r, ck), &lu(rk + r, ck) + kb, panel.data() + r * kb);
    }
    // 2. the panel along the process rows.
    panel.resize(static_cast<std::size_t>(rows * kb));
    if (g.Q > 1) MPI_Bcast(panel.data(), to_int(rows * kb), mpi_type<T>(), qk, g.row);
    st.seconds_panel += seconds_since(t0);
    if (rest == 0) {
      if (options.progress) options.progress({k + 1, blocks, k0 + kb, seconds_since(start)});
      continue;
    }
    // 3. U12 = L11^-1 A12 on the diagonal's process row, down the process columns.
    t0 = Clock::now();
    urow.resize(static_cast<std::size_t>(kb * cols));
    if (g.p == pk && cols > 0) {
      for (std::int64_t lj = ck1; lj < lc; lj += nb)
        trsm(CblasLeft, CblasLower, CblasUnit, kb, std::min(nb, lc - lj), panel.data(), kb, &lu(rk, lj), ld);
      for (std::int64_t r = 0; r < kb; ++r) std::copy(&lu(rk + r, ck1), &lu(rk + r, ck1) + cols, urow.data() + r * cols);
    }
    if (g.P > 1) MPI_Bcast(urow.data(), to_int(kb * cols), mpi_type<T>(), pk, g.col);
    st.seconds_solve += seconds_since(t0);
    // 4. A22 -= L21 U12 on the local trailing blocks, operands scaled by the global maxima (lu.hpp).
    t0 = Clock::now();
    T* const L21 = panel.data() + (rk1 - rk) * kb;
    int sl = 0, su = 0;
    if (scaled) {
      const double local[2] = {absmax(L21, below * kb), absmax(urow.data(), kb * cols)};
      double global[2];
      MPI_Allreduce(local, global, 2, MPI_DOUBLE, MPI_MAX, g.comm);
      sl = operand_scale(global[0]);
      su = operand_scale(global[1]);
      const T fl = static_cast<T>(std::ldexp(1.0, sl)), fu = static_cast<T>(std::ldexp(1.0, su));
      if (sl != 0) std::for_each(L21, L21 + below * kb, [fl](T& v) { v *= fl; });
      if (su != 0) std::for_each(urow.begin(), urow.end(), [fu](T& v) { v *= fu; });
    }
    // One GEMM per local trailing block: a BLAS kernel may round an entry differently by where it sits in
    // the call (edge tiles; OpenBLAS's Haswell and Zen sgemm do), so calls of the grid's blocks, the
    // same on every grid, keep every grid's factors those of the 1 x 1 grid.
    if (below > 0 && cols > 0) {
      const T alpha = static_cast<T>(-std::ldexp(1.0, -(sl + su)));
      const Unmanaged<T> L(L21, below, kb), U(urow.data(), kb, cols);
      for (std::int64_t li = rk1; li < lr; li += nb)
        for (std::int64_t lj = ck1; lj < lc; lj += nb) {
          const auto rows_of = std::make_pair(li, std::min(li + nb, lr)), cols_of = std::make_pair(lj, std::min(lj + nb, lc));
          const auto Lb = Kokkos::subview(L, std::make_pair(li - rk1, rows_of.second - rk1), Kokkos::ALL);
          const auto Ub = Kokkos::subview(U, Kokkos::ALL, std::make_pair(lj - ck1, cols_of.second - ck1));
          st.gemm.add(tcemu::gemm(space, tcemu::Op::N, tcemu::Op::N, alpha, Lb, Ub, T(1),
                                  Kokkos::subview(lu, rows_of, cols_of), options.gemm));
        }
    }
    ++st.updates;  // one update step of the whole matrix (one GEMM per local trailing block)
    st.seconds_update += seconds_since(t0);
    if (options.progress) options.progress({k + 1, blocks, k0 + kb, seconds_since(start)});
  }
  st.seconds = seconds_since(start);
  detail::agree_on_factorisation(g, R, C, bad_column, bad_value, tiny, st);
  return st;
}

/// The refinement's operations (refine_impl.hpp) on FP64 vectors replicated on every rank, with the
/// FP64 local blocks A and the local factors lu (working precision T) on the host, or, when `gpu` is
/// set, both on the rank's GPU (the mat-vec's block products there, its sums and collectives on the
/// host; the preconditioner wholly there: gpu_precond_apply). Vector work is a plain loop on every
/// rank (same inputs, same order: same results everywhere).
template <class T>
struct DistributedOps {
  using Vec = std::vector<double>;
  const Grid& g;
  const BlockCyclic& R;
  const BlockCyclic& C;
  const LocalMatrix<double>& A;
  const LocalMatrix<T>& lu;
  const std::vector<double>& b;
  detail::GpuGrid* gpu = nullptr;
  std::int64_t n = R.n, nb = R.nb, blocks = (R.n + R.nb - 1) / R.nb;

  Vec vec() { return Vec(static_cast<std::size_t>(n)); }
  void load_b(Vec& x) { x = b; }
  double dot(const Vec& x, const Vec& y) {
    double s = 0;
    for (std::int64_t i = 0; i < n; ++i) s += x[i] * y[i];
    return s;
  }
  double nrm2(const Vec& x) { return std::sqrt(dot(x, x)); }
  double amax(const Vec& x) {
    double m = 0;
    for (double v : x) {
      if (v != v) return std::numeric_limits<double>::quiet_NaN();
      m = std::max(m, std::fabs(v));
    }
    return m;
  }
  void axpy(double a, const Vec& x, Vec& y) {
    for (std::int64_t i = 0; i < n; ++i) y[i] += a * x[i];
  }
  void scale(double a, const Vec& x, Vec& y) {
    for (std::int64_t i = 0; i < n; ++i) y[i] = a * x[i];
  }
  std::vector<double> to_host(const Vec& x) { return x; }
  void residual(const Vec& x, Vec& r) {
    matvec(x, r);
    for (std::int64_t i = 0; i < n; ++i) r[i] = b[i] - r[i];
  }

  /// w = A z: per local row and block column J the partial sum over J's columns; the partials of a
  /// row go to its process row (an MPI_Allreduce in which each slot has one nonzero term: exact), are
  /// added in J order, and the rows are gathered down the process columns.
  void matvec(const Vec& z, Vec& w) {
    const std::int64_t lr = R.local_count(g.p), lc = C.local_count(g.q), held = C.blocks_held(g.q);
    std::vector<double> mine;
    if (gpu && g.Q == 1) {
      detail::gpu_matvec(*gpu, g, C, z, true, mine);  // this rank holds every block column: summed there
    } else {
      std::vector<double> partial(static_cast<std::size_t>(lr * blocks), 0.0), local;
      if (gpu) {
        detail::gpu_matvec(*gpu, g, C, z, false, local);  // lr x held, column-major
        for (std::int64_t li = 0; li < lr; ++li)
          for (std::int64_t lbj = 0; lbj < held; ++lbj) partial[li * blocks + lbj * g.Q + g.q] = local[lbj * lr + li];
      } else {
        for (std::int64_t li = 0; li < lr; ++li)
          for (std::int64_t lj0 = 0; lj0 < lc; lj0 += nb) {
            const std::int64_t j0 = C.global(lj0, g.q), width = std::min(nb, lc - lj0);
            double s = 0;
            for (std::int64_t c = 0; c < width; ++c) s += A(li, lj0 + c) * z[j0 + c];
            partial[li * blocks + j0 / nb] = s;
          }
      }
      if (g.Q > 1) MPI_Allreduce(MPI_IN_PLACE, partial.data(), to_int(lr * blocks), MPI_DOUBLE, MPI_SUM, g.row);
      mine.resize(static_cast<std::size_t>(lr));
      for (std::int64_t li = 0; li < lr; ++li) {
        double s = 0;
        for (std::int64_t J = 0; J < blocks; ++J) s += partial[li * blocks + J];
        mine[li] = s;
      }
    }
    std::vector<int> counts(g.P), displs(g.P);
    for (int pp = 0, d = 0; pp < g.P; ++pp) {
      counts[pp] = to_int(R.local_count(pp));
      displs[pp] = d;
      d += counts[pp];
    }
    std::vector<double> all(static_cast<std::size_t>(n));
    MPI_Allgatherv(mine.data(), to_int(lr), MPI_DOUBLE, all.data(), counts.data(), displs.data(), MPI_DOUBLE, g.col);
    for (int pp = 0; pp < g.P; ++pp)
      for (std::int64_t li = 0; li < counts[pp]; ++li) w[R.global(li, pp)] = all[displs[pp] + li];
  }

  /// v = U^-1 L^-1 v with the distributed factors, in T (FP32 factors: v rounded to FP32, as the
  /// one-process preconditioner does). On the GPUs: gpu_precond_apply. On the host, block row I at a
  /// time (forward, then backward): the ranks of its process row form their partials L_IJ v_J (sum
  /// over J's columns in order), the diagonal's rank gathers them (MPI_Gatherv on the row
  /// communicator), subtracts them in J order, solves with the diagonal block and broadcasts v_I to
  /// every rank.
  void precond(Vec& v) {
    if (gpu) {
      detail::gpu_precond_apply<T>(*gpu, g, R, C, v);
      return;
    }
    std::vector<T> w(v.begin(), v.end());
    for (std::int64_t I = 0; I < blocks; ++I) solve_block_row(w, I, true);
    for (std::int64_t I = blocks - 1; I >= 0; --I) solve_block_row(w, I, false);
    for (std::int64_t i = 0; i < n; ++i) v[i] = static_cast<double>(w[i]);
  }

  void solve_block_row(std::vector<T>& w, std::int64_t I, bool lower) {
    const std::int64_t i0 = I * nb, kb = std::min(nb, n - i0);
    const int pI = static_cast<int>(I % g.P), qI = static_cast<int>(I % g.Q);
    std::vector<T> u(w.begin() + i0, w.begin() + i0 + kb);
    if (g.p == pI) {
      const std::int64_t li0 = R.local(i0);
      // my block columns J < I (lower) or J > I (upper), as local block indices [first, last)
      const auto [first, last] = C.blocks_beside(I, g.q, lower);
      std::vector<T> partial(static_cast<std::size_t>((last - first) * kb));
      for (std::int64_t lbj = first; lbj < last; ++lbj) {
        const std::int64_t J = lbj * g.Q + g.q, width = std::min(nb, n - J * nb);
        for (std::int64_t r = 0; r < kb; ++r) {
          T s = 0;
          const T* l = &lu(li0 + r, lbj * nb);
          for (std::int64_t c = 0; c < width; ++c) s += l[c] * w[J * nb + c];
          partial[(lbj - first) * kb + r] = s;
        }
      }
      std::vector<int> counts(g.Q), displs(g.Q);
      std::int64_t total = 0;
      for (int qq = 0; qq < g.Q; ++qq) {
        const auto [f, l] = C.blocks_beside(I, qq, lower);
        counts[qq] = to_int((l - f) * kb);
        displs[qq] = to_int(total);
        total += (l - f) * kb;
      }
      std::vector<T> all(static_cast<std::size_t>(g.q == qI ? total : 0));
      MPI_Gatherv(partial.data(), to_int(partial.size()), mpi_type<T>(), all.data(), counts.data(), displs.data(),
                  mpi_type<T>(), qI, g.row);
      if (g.q == qI) {
        for (std::int64_t J = lower ? 0 : I + 1; J < (lower ? I : blocks); ++J) {  // in J order
          const int qq = static_cast<int>(J % g.Q);
          const std::int64_t at = displs[qq] + (J / g.Q - C.blocks_beside(I, qq, lower).first) * kb;
          for (std::int64_t r = 0; r < kb; ++r) u[r] -= all[at + r];
        }
        const T* D = &lu(li0, C.local(i0));
        const std::int64_t ld = C.local_count(g.q);
        if (lower) {
          for (std::int64_t r = 0; r < kb; ++r)
            for (std::int64_t c = 0; c < r; ++c) u[r] -= D[r * ld + c] * u[c];
        } else {
          for (std::int64_t r = kb - 1; r >= 0; --r) {
            T s = u[r];
            for (std::int64_t c = r + 1; c < kb; ++c) s -= D[r * ld + c] * u[c];
            u[r] = s / D[r * ld + r];
          }
        }
      }
    }
    MPI_Bcast(u.data(), to_int(kb), mpi_type<T>(), pI * g.Q + qI, g.comm);
    std::copy(u.begin(), u.end(), w.begin() + i0);
  }
};

/// Seconds since `t0`, the slowest rank's.
double slowest_since(const Grid& g, tcemu::app::Clock::time_point t0) {
  const double mine = tcemu::app::seconds_since(t0);
  double slowest = mine;
  MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, g.comm);
  return slowest;
}

/// One row on the grid: factor in T with `scheme`'s updates, refine, check.
template <class T>
SchemeResult run_row(const Grid& g, const BlockCyclic& R, const BlockCyclic& C, const LocalSystem& sys,
                     const tcemu::Scheme& scheme, const RunOptions& options, bool baseline, detail::GpuGrid* gpu) {
  SchemeResult r;
  r.scheme = baseline ? "fp64" : scheme.name;
  r.storage = std::is_same_v<T, float> ? "fp32" : "fp64";
  r.baseline = baseline;
  LuOptions lo = lu_options(scheme, options, R.n);
  lo.nb = R.nb;
  // The host's factors (on the GPUs they stay in the GpuGrid, where the refinement uses them).
  LocalMatrix<T> lu;
  if (!gpu) lu = LocalMatrix<T>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "hplai::local_lu"), sys.A.extent(0),
                                sys.A.extent(1));
  MPI_Barrier(g.comm);
  const auto t0 = tcemu::app::Clock::now();
  if (!gpu) kernels::convert(HostSpace(), sys.A, lu);  // round A to the working precision (GPU: in factor_*_gpu)
  LuStats st;
  try {
    const double tiny = std::numeric_limits<T>::epsilon() / 2 * sys.a_max;
    st = gpu ? detail::factor_distributed_gpu<T>(g, R, C, lo, tiny, *gpu) : factor_distributed(g, R, C, lu, lo, tiny);
  } catch (const SingularPivot& e) {
    throw tcemu::InvalidArgument(scheme.name + ": " + e.what());
  }
  r.factor_seconds = slowest_since(g, t0);
  record_factorisation(r, st, scheme.name);
  if (baseline) r.used = "fp64-nopiv";
  MPI_Barrier(g.comm);
  const auto t1 = tcemu::app::Clock::now();
  DistributedOps<T> ops{g, R, C, sys.A, lu, sys.b, gpu};
  const RefineResult rr = detail::refine_generic(ops, R.n, sys.a_inf, sys.b_inf, options.refine);
  r.refine_seconds = slowest_since(g, t1);
  record_refinement(r, rr);
  r.total_seconds = r.factor_seconds + r.refine_seconds;
  r.gflops = r.total_seconds > 0 ? hpl_flops(R.n) / r.total_seconds * 1e-9 : 0;
  r.pass = r.scaled_residual < kPassThreshold;
  return r;
}

}  // namespace

Grid::Grid(MPI_Comm c, int P_, int Q_) : comm(c), P(P_), Q(Q_) {
  int size = 0;
  MPI_Comm_size(comm, &size);
  MPI_Comm_rank(comm, &rank);
  if (P < 1 || Q < 1 || static_cast<long long>(P) * Q != size)
    throw tcemu::InvalidArgument("--grid " + std::to_string(P) + "x" + std::to_string(Q) + " needs " +
                                 std::to_string(static_cast<long long>(P) * Q) + " MPI ranks; this run has " +
                                 std::to_string(size));
  p = rank / Q;
  q = rank % Q;
  MPI_Comm_split(comm, p, q, &row);
  MPI_Comm_split(comm, q, p, &col);
}

Grid::~Grid() {
  if (row != MPI_COMM_NULL) MPI_Comm_free(&row);
  if (col != MPI_COMM_NULL) MPI_Comm_free(&col);
}

void parse_grid(const std::string& text, int& P, int& Q) {
  const auto x = text.find('x');
  auto number = [](const std::string& s, int& v) {
    if (s.empty() || s.size() > 6 || s.find_first_not_of("0123456789") != std::string::npos) return false;
    v = std::stoi(s);
    return v >= 1;
  };
  if (x == std::string::npos || !number(text.substr(0, x), P) || !number(text.substr(x + 1), Q))
    throw tcemu::InvalidArgument("--grid " + text + ": expected PxQ with P, Q >= 1 (e.g. 2x2)");
  if (static_cast<long long>(P) * Q > (1 << 20))
    throw tcemu::InvalidArgument("--grid " + text + ": " + std::to_string(static_cast<long long>(P) * Q) +
                                 " ranks, more than 2^20");
}

std::int64_t BlockCyclic::blocks_held(int proc) const {
  const std::int64_t blocks = (n + nb - 1) / nb;
  return blocks > proc ? (blocks - proc + procs - 1) / procs : 0;
}

std::int64_t BlockCyclic::blocks_before(std::int64_t block, int proc) const {
  const std::int64_t b = block > proc ? (block - proc + procs - 1) / procs : 0;
  return std::min(b, blocks_held(proc));
}

std::int64_t BlockCyclic::local_count(int proc) const {
  const std::int64_t blocks = (n + nb - 1) / nb, held = blocks_held(proc);
  if (held == 0) return 0;
  const bool has_last = (blocks - 1) % procs == proc;
  return held * nb - (has_last ? blocks * nb - n : 0);
}

std::int64_t BlockCyclic::local_start(std::int64_t block, int proc) const {
  return std::min(blocks_before(block, proc) * nb, local_count(proc));
}

void detail::agree_on_factorisation(const Grid& g, const BlockCyclic& R, const BlockCyclic& C, std::int64_t bad_column,
                                    double bad_value, double tiny, LuStats& st) {
  std::int64_t first = bad_column;
  MPI_Allreduce(&bad_column, &first, 1, MPI_INT64_T, MPI_MIN, g.comm);
  if (first < R.n) {
    MPI_Bcast(&bad_value, 1, MPI_DOUBLE, R.owner(first) * g.Q + C.owner(first), g.comm);
    throw SingularPivot(first, bad_value, tiny);
  }
  std::int64_t fallbacks = st.gemm.fallbacks;
  MPI_Allreduce(&st.gemm.fallbacks, &fallbacks, 1, MPI_INT64_T, MPI_MAX, g.comm);
  st.gemm.fallbacks = fallbacks;
}

RunResult run_distributed(const Grid& g, std::int64_t n, std::uint64_t seed, const RunOptions& opt) {
  if (n < 1) throw tcemu::InvalidArgument("--n " + std::to_string(n) + " must be >= 1");
  if (opt.nb < 1) throw tcemu::InvalidArgument("--nb " + std::to_string(opt.nb) + " must be >= 1");
  if (opt.repeat < 1) throw tcemu::InvalidArgument("--repeat " + std::to_string(opt.repeat) + " must be >= 1");
  const std::int64_t nb = std::min(opt.nb, n);
  const BlockCyclic R{n, nb, g.P}, C{n, nb, g.Q};
  {  // --device auto resolves per rank: a job whose ranks disagree (GPUs on some nodes only) stops
    int range[2] = {-static_cast<int>(opt.device), static_cast<int>(opt.device)};
    MPI_Allreduce(MPI_IN_PLACE, range, 2, MPI_INT, MPI_MAX, g.comm);
    if (-range[0] != range[1])
      throw tcemu::InvalidArgument("--grid: --device resolved differently on the ranks (a GPU on some of them "
                                   "only); pass --device host or --device cuda");
  }
  // The GPU context (library handles, the broadcasts' NCCL communicators) once for the whole run, and
  // the GPUs' memory checked on every rank before the blocks are generated.
  const detail::GpuGridPtr gpu = opt.device == Device::cuda ? detail::make_gpu_grid(g) : nullptr;
  if (gpu) detail::check_gpu_memory(*gpu, g, R, C);
  const LocalSystem sys = generate_local(g, R, C, seed);
  RunResult out;
  out.n = n;
  out.nb = nb;
  out.source = sys.source + ", " + std::to_string(g.P) + "x" + std::to_string(g.Q) + " MPI process grid";
  out.solver = to_string(opt.refine.solver);
  out.device = to_string(opt.device);
  std::vector<tcemu::Scheme> todo;
  for (const auto& entry : tcemu::app::sweep_order(opt.schemes, {{tcemu::parse_scheme("fp64"), "baseline"}}))
    if (entry.role.empty()) todo.push_back(entry.scheme);
  auto median_of = [&](const std::function<SchemeResult()>& once) {
    std::vector<SchemeResult> runs;
    for (int i = 0; i < opt.repeat; ++i) runs.push_back(once());
    return tcemu::app::median_element(std::move(runs), [](const SchemeResult& r) { return r.total_seconds; });
  };
  if (gpu) {
    out.source += " on GPUs (broadcasts: " + detail::gpu_grid_transport(*gpu) + ")";
    detail::upload_local_system(*gpu, sys.A);  // once per run, not timed (as one process uploads A once)
  }
  auto one = [&](const tcemu::Scheme& s) {
    return median_of([&] {
      return s.target == tcemu::Target::fp64 ? run_row<double>(g, R, C, sys, s, opt, false, gpu.get())
                                             : run_row<float>(g, R, C, sys, s, opt, false, gpu.get());
    });
  };
  auto say = [&](std::size_t i, const SchemeResult& r) {
    if (!opt.progress) return;
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "hplai: [%zu/%zu] %-16s %-5s factor %.3f s, refine %.3f s (%d it), scaled residual %.3g %s\n",
                  i, todo.size() + 1, r.scheme.c_str(), r.storage.c_str(), r.factor_seconds, r.refine_seconds,
                  r.iterations, r.scaled_residual, r.pass ? "PASS" : "FAIL");
    *opt.progress << buf << std::flush;
  };
  const tcemu::Scheme fp64 = tcemu::parse_scheme("fp64");
  out.rows.push_back(median_of([&] { return run_row<double>(g, R, C, sys, fp64, opt, true, gpu.get()); }));
  require_verifiable(out.rows.back(), out.source);
  say(1, out.rows.back());
  for (std::size_t i = 0; i < todo.size(); ++i) {
    if (uses_auto_choice(todo[i]))
      out.rows.push_back(run_auto(auto_candidates(n, nb, tcemu::app::auto_cost_model(opt.device)), one, opt.progress));
    else
      out.rows.push_back(one(todo[i]));
    say(i + 2, out.rows.back());
  }
  const double base = out.rows.front().total_seconds;
  for (auto& r : out.rows) r.speedup = tcemu::app::speedup(base, r.total_seconds);
  return out;
}

}  // namespace hplai
