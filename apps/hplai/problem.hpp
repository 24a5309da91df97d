#pragma once
/// \file problem.hpp
/// The linear system hplai solves: the HPL-MxP (HPL-AI) reference generator, or /A and /b from an
/// HDF5 file, validated.
///
/// Generator (HPL-AI reference implementation, github.com/hpl-ai/hpl-ai, matgen.c, the version with
/// the LCG and the "Fix diag dominant" commit):
///  - an LCG x_{k+1} = 6364136223846793005 * x_k + 1 (mod 2^64); a draw is x_{k+1} * 2^-64 - 0.5,
///    uniform in [-0.5, 0.5];
///  - A is filled column by column (a_00, a_10, ..., a_{n-1,0}, a_01, ...) from the stream seeded
///    with `seed`; then each diagonal entry is replaced by the sum of the absolute values of the
///    off-diagonal entries of its row: a_ii = sum_{j != i} |a_ij| (row diagonal dominance, weak, so
///    LU without pivoting exists and is stable: growth factor <= 2);
///  - b is drawn from a second stream seeded with `seed + 1`.
/// With seed 1 (the default) this is bit for bit the reference's system.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <string>
#include <vector>

namespace hplai {

/// A dense system A x = b in FP64. A is n x n row-major (a_ij at A[i * n + j]); b has n entries.
struct System {
  std::int64_t n = 0;
  std::vector<double> A;
  std::vector<double> b;
  std::string source;  ///< "generated (seed S)" or the input file's path

  const double* row(std::int64_t i) const { return A.data() + i * n; }
};

/// The HPL-AI reference's linear congruential generator (see the file comment).
class Lcg {
 public:
  static constexpr std::uint64_t kMul = 6364136223846793005ULL;
  static constexpr std::uint64_t kAdd = 1ULL;

  KOKKOS_INLINE_FUNCTION explicit Lcg(std::uint64_t seed = 0) : state_(seed) {}
  /// Next draw, uniform in [-0.5, 0.5] (the reference's lcg_rand_double).
  KOKKOS_INLINE_FUNCTION double next() {
    state_ = state_ * kMul + kAdd;
    return static_cast<double>(state_) * 0x1p-64 - 0.5;
  }
  /// Skips `steps` draws in O(log steps) (the reference's lcg_advance), so that columns or blocks
  /// of A can be generated independently (the generator does this per column).
  KOKKOS_INLINE_FUNCTION void advance(std::uint64_t steps) {
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
  KOKKOS_INLINE_FUNCTION std::uint64_t state() const { return state_; }

 private:
  std::uint64_t state_;
};

/// Generates the HPL-MxP system of order n with the given seed (see the file comment). A is filled
/// and its diagonal rule applied by Kokkos parallel loops on Kokkos::DefaultExecutionSpace (the GPU
/// in a build with a CUDA-enabled Kokkos, then copied to the host; the host space otherwise): one
/// source, the reference's values bit for bit on either. Where the
/// reference's diagonal rule gives a singular matrix (always for n = 1; for small n and some seeds;
/// docs/hplai.md "The generator") the diagonal is made strictly dominant and `source` says so, so
/// every n >= 1 gives a nonsingular system.
/// Throws tcemu::InvalidArgument when n < 1, or when n * n * 8 bytes would overflow.
System generate_system(std::int64_t n, std::uint64_t seed);

/// Reads /A (n x n, float32 or float64) and /b (n, float32 or float64; an n x 1 dataset is accepted)
/// from an HDF5 file. Throws tcemu::IoError for a missing file/dataset, a wrong rank or dtype, an
/// empty dataset or a NaN/Inf element (the message names the file, the dataset and the element), and
/// tcemu::InvalidArgument when A is not square or b's length differs from n.
System load_system(const std::string& path);

/// ||A||_inf = max_i sum_j |a_ij| (the max row sum), in FP64.
double norm_inf(const System& sys);

}  // namespace hplai
