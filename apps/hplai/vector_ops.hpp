#pragma once
/// \file vector_ops.hpp
/// refine_impl.hpp's vector-operations backend, written once on Kokkos Views for any execution
/// space: FP64 vectors as `Kokkos::View<double*>` in the space's memory, the element-wise work and
/// reductions with Kokkos parallel patterns (kernels.hpp), A x through DenseSolvers<Space>::gemv
/// (CBLAS / cuBLAS), and the preconditioner a callable on the vector.
#include <Kokkos_Core.hpp>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "dense.hpp"
#include "kernels.hpp"

namespace hplai {

/// Ops for refine_generic (refine_impl.hpp). A: n x n row-major FP64, b: n entries, both in Space's
/// memory; Precond: callable as precond(Vec&), applying v <- M^-1 v.
template <class Space, class Precond>
struct ViewOps {
  using Vec = Kokkos::View<double*, typename Space::memory_space>;
  using Matrix = Kokkos::View<const double**, Kokkos::LayoutRight, typename Space::memory_space>;
  using ConstVec = Kokkos::View<const double*, typename Space::memory_space>;

  Space space;
  DenseSolvers<Space>& solvers;
  Matrix A;
  ConstVec b;
  Precond preconditioner;
  std::int64_t n;

  Vec vec() { return Vec(Kokkos::view_alloc(Kokkos::WithoutInitializing, "hplai::vector"), n); }
  void load_b(Vec& x) { Kokkos::deep_copy(space, x, b); }
  void precond(Vec& v) { preconditioner(v); }
  void residual(const Vec& x, Vec& r) {  // r = b - A x
    load_b(r);
    solvers.gemv(A.data(), n, -1.0, x.data(), 1.0, r.data());
  }
  void matvec(const Vec& z, Vec& w) { solvers.gemv(A.data(), n, 1.0, z.data(), 0.0, w.data()); }
  double dot(const Vec& a, const Vec& c) { return kernels::dot(space, a, c); }
  double nrm2(const Vec& a) { return std::sqrt(kernels::dot(space, a, a)); }
  double amax(const Vec& a) { return kernels::amax(space, a); }
  void axpy(double a, const Vec& x, Vec& y) { kernels::axpy(space, a, x, y); }
  void scale(double a, const Vec& x, Vec& y) { kernels::scale_into(space, a, x, y); }
  std::vector<double> to_host(const Vec& v) {
    std::vector<double> h(static_cast<std::size_t>(n));
    Kokkos::deep_copy(space, Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(h.data(), n), v);
    space.fence();
    return h;
  }
};

template <class Space, class Precond>
ViewOps<Space, Precond> make_view_ops(const Space& space, DenseSolvers<Space>& solvers,
                                      typename ViewOps<Space, Precond>::Matrix A,
                                      typename ViewOps<Space, Precond>::ConstVec b, Precond precond) {
  return ViewOps<Space, Precond>{space, solvers, A, b, std::move(precond), static_cast<std::int64_t>(b.extent(0))};
}

}  // namespace hplai
