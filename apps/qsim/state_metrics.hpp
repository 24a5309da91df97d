#pragma once
/// \file state_metrics.hpp
/// Accuracy of a simulated state against the FP64 reference, amplitudes of given basis states, and
/// seeded sampling of measurement outcomes.
#include <complex>
#include <cstdint>
#include <utility>
#include <vector>

namespace qsim {

/// Accuracy of a state psi against the reference phi (the fp64 run), both 2^n amplitudes.
struct Accuracy {
  double fidelity = 0;     ///< |<phi|psi>|^2 (no renormalisation: norm errors count)
  double max_amp_err = 0;  ///< max_k |psi_k - phi_k|
  double norm = 0;         ///< ||psi||^2
  double norm_drift = 0;   ///< | ||psi||^2 - 1 |
};

/// Computes Accuracy in FP64 with blocked (pairwise-like) summation, so that the sums over 2^30 terms
/// keep ~1e-15 relative accuracy. T = float or double. Sizes must agree.
template <class T>
Accuracy compare_states(const std::vector<std::complex<double>>& reference, const std::vector<std::complex<T>>& psi);

/// ||psi||^2 with the same blocked summation.
template <class T>
double norm_squared(const std::vector<std::complex<T>>& psi);

/// `shots` basis-state indices drawn from |psi_k|^2 / ||psi||^2 (inverse-CDF sampling with sorted
/// seeded uniforms: one pass over the state, O(2^n + shots log shots), no extra state-sized memory).
/// The same seed draws the same uniforms for every state, so two nearly equal states give nearly
/// the same samples: differences show where their distributions differ. Returned in draw order.
template <class T>
std::vector<std::uint64_t> sample_states(const std::vector<std::complex<T>>& psi, std::int64_t shots,
                                         std::uint64_t seed);

/// Value of the classical register after measuring basis state `basis` with `measurements`
/// (qubit, clbit) pairs in program order (a later measurement into the same bit wins):
/// sum_j bit_j 2^j. With no measurements, `basis` itself.
std::uint64_t classical_value(std::uint64_t basis, const std::vector<std::pair<int, int>>& measurements);

}  // namespace qsim
