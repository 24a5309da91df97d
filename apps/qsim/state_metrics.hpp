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

/// The draws of sample_states: `shots` seeded uniforms in [0, 1) times `total`, ascending in `sorted`;
/// order[k] is the draw number of sorted[k] (equal draws get equal answers, in any order).
struct SortedDraws {
  std::vector<double> sorted;
  std::vector<std::size_t> order;
};
SortedDraws sorted_draws(std::int64_t shots, std::uint64_t seed, double total);

/// Positions where two runs' samples differ (SchemeRun::samples_differing); 0 when either is empty
/// (the sizes must then agree otherwise).
std::int64_t samples_differing(const std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b);

/// The inverse-CDF sweep of one slice of a state: psi holds the amplitudes of basis indices
/// first_index, first_index + 1, ...; the running sum of |psi_k|^2 starts at cdf_start. Each of the
/// `count` ascending draws sorted[0..count) gets the first index whose running sum exceeds it; draws
/// the slice's last sum does not exceed (rounding) get its last index with a nonzero amplitude
/// (first_index when there is none). Writes out[0..count). sample_states is this sweep over the whole
/// state from 0; the distributed sampler (distributed.hpp) runs it per rank from the sums of the
/// slices before.
template <class T>
void sweep_slice(const std::vector<std::complex<T>>& psi, std::uint64_t first_index, double cdf_start,
                 const double* sorted, std::size_t count, std::uint64_t* out);

/// Value of the classical register after measuring basis state `basis` with `measurements`
/// (qubit, clbit) pairs in program order (a later measurement into the same bit wins):
/// sum_j bit_j 2^j. With no measurements, `basis` itself.
std::uint64_t classical_value(std::uint64_t basis, const std::vector<std::pair<int, int>>& measurements);

}  // namespace qsim
