// Fidelity, amplitude error, norm drift and sampling (state_metrics.hpp).
#include "state_metrics.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <thread>
#include <vector>

#include "gates.hpp"
#include "tcemu/error.hpp"

namespace qsim {

namespace {
constexpr std::size_t kChunk = 4096;

/// Runs fn(c) for every chunk c in [0, chunks) on the machine's threads (contiguous ranges). The
/// callers keep one partial per chunk and add the partials in chunk order afterwards, so the result
/// is bit-identical to the serial chunked sum whatever the thread count (a 2^30-amplitude state took
/// ~20 s per scheme serially on the lent GPU machine's host).
template <class Fn>
void for_chunks(std::size_t chunks, Fn fn) {
  const std::size_t hw = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t nt = std::min<std::size_t>(hw, std::max<std::size_t>(1, chunks / 64));
  if (nt <= 1) {
    for (std::size_t c = 0; c < chunks; ++c) fn(c);
    return;
  }
  std::vector<std::thread> pool;
  for (std::size_t t = 0; t < nt; ++t)
    pool.emplace_back([&, t] {
      for (std::size_t c = chunks * t / nt; c < chunks * (t + 1) / nt; ++c) fn(c);
    });
  for (auto& th : pool) th.join();
}
}  // namespace

template <class T>
Accuracy compare_states(const std::vector<std::complex<double>>& ref, const std::vector<std::complex<T>>& psi) {
  if (ref.size() != psi.size())
    throw tcemu::InvalidArgument("compare_states: states of " + std::to_string(ref.size()) + " and " +
                                 std::to_string(psi.size()) + " amplitudes");
  const std::size_t chunks = (ref.size() + kChunk - 1) / kChunk;
  std::vector<std::complex<double>> part_overlap(chunks);
  std::vector<double> part_norm(chunks), part_err(chunks);
  for_chunks(chunks, [&](std::size_t c) {
    const std::size_t b = c * kChunk, e = std::min(ref.size(), b + kChunk);
    std::complex<double> o = 0;
    double nn = 0, er = 0;
    for (std::size_t k = b; k < e; ++k) {
      const std::complex<double> z(psi[k].real(), psi[k].imag());
      o += std::conj(ref[k]) * z;
      nn += std::norm(z);
      er = std::max(er, std::abs(z - ref[k]));
    }
    part_overlap[c] = o;
    part_norm[c] = nn;
    part_err[c] = er;
  });
  std::complex<double> overlap = 0;
  double norm = 0, err = 0;
  for (std::size_t c = 0; c < chunks; ++c) {
    overlap += part_overlap[c];
    norm += part_norm[c];
    err = std::max(err, part_err[c]);
  }
  return {std::norm(overlap), err, norm, std::fabs(norm - 1.0)};
}

template <class T>
double norm_squared(const std::vector<std::complex<T>>& psi) {
  const std::size_t chunks = (psi.size() + kChunk - 1) / kChunk;
  std::vector<double> part(chunks);
  for_chunks(chunks, [&](std::size_t c) {
    double nn = 0;
    for (std::size_t k = c * kChunk; k < std::min(psi.size(), (c + 1) * kChunk); ++k)
      nn += double(psi[k].real()) * psi[k].real() + double(psi[k].imag()) * psi[k].imag();
    part[c] = nn;
  });
  double norm = 0;
  for (double v : part) norm += v;
  return norm;
}

SortedDraws sorted_draws(std::int64_t shots, std::uint64_t seed, double total) {
  std::vector<double> u(static_cast<std::size_t>(std::max<std::int64_t>(shots, 0)));
  Rng rng(seed);
  for (auto& x : u) x = rng.uniform() * total;
  SortedDraws d;
  d.order.resize(u.size());
  std::iota(d.order.begin(), d.order.end(), std::size_t(0));
  std::sort(d.order.begin(), d.order.end(), [&](std::size_t i, std::size_t j) { return u[i] < u[j]; });
  d.sorted.resize(u.size());
  for (std::size_t k = 0; k < u.size(); ++k) d.sorted[k] = u[d.order[k]];
  return d;
}

std::int64_t samples_differing(const std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b) {
  if (a.empty() || b.empty()) return 0;
  if (a.size() != b.size()) throw tcemu::InvalidArgument("samples_differing: " + std::to_string(a.size()) + " and " +
                                                         std::to_string(b.size()) + " samples");
  std::int64_t n = 0;
  for (std::size_t k = 0; k < a.size(); ++k) n += a[k] != b[k];
  return n;
}

template <class T>
void sweep_slice(const std::vector<std::complex<T>>& psi, std::uint64_t first_index, double cdf_start,
                 const double* sorted, std::size_t count, std::uint64_t* out) {
  double cdf = cdf_start;
  std::size_t k = 0;
  std::uint64_t last_nonzero = 0;
  for (std::size_t idx = 0; idx < psi.size() && k < count; ++idx) {
    const double p = double(psi[idx].real()) * psi[idx].real() + double(psi[idx].imag()) * psi[idx].imag();
    if (p > 0) last_nonzero = idx;
    cdf += p;
    while (k < count && sorted[k] < cdf) out[k++] = first_index + idx;
  }
  for (; k < count; ++k) out[k] = first_index + last_nonzero;  // rounding of the running sum
}

template <class T>
std::vector<std::uint64_t> sample_states(const std::vector<std::complex<T>>& psi, std::int64_t shots,
                                         std::uint64_t seed) {
  std::vector<std::uint64_t> out(static_cast<std::size_t>(std::max<std::int64_t>(shots, 0)));
  if (out.empty() || psi.empty()) return out;
  const SortedDraws d = sorted_draws(shots, seed, norm_squared(psi));
  std::vector<std::uint64_t> answers(d.sorted.size());
  sweep_slice(psi, 0, 0.0, d.sorted.data(), d.sorted.size(), answers.data());
  for (std::size_t k = 0; k < d.order.size(); ++k) out[d.order[k]] = answers[k];
  return out;
}

std::uint64_t classical_value(std::uint64_t basis, const std::vector<std::pair<int, int>>& measurements) {
  if (measurements.empty()) return basis;
  std::uint64_t v = 0;
  for (const auto& [q, c] : measurements) {
    if (c >= 64) continue;  // a register wider than 64 bits keeps its low 64 bits
    const std::uint64_t bit = (basis >> q) & 1u;
    v = (v & ~(std::uint64_t(1) << c)) | (bit << c);
  }
  return v;
}

template Accuracy compare_states<float>(const std::vector<std::complex<double>>&, const std::vector<std::complex<float>>&);
template Accuracy compare_states<double>(const std::vector<std::complex<double>>&, const std::vector<std::complex<double>>&);
template double norm_squared<float>(const std::vector<std::complex<float>>&);
template double norm_squared<double>(const std::vector<std::complex<double>>&);
template std::vector<std::uint64_t> sample_states<float>(const std::vector<std::complex<float>>&, std::int64_t, std::uint64_t);
template std::vector<std::uint64_t> sample_states<double>(const std::vector<std::complex<double>>&, std::int64_t, std::uint64_t);
template void sweep_slice<float>(const std::vector<std::complex<float>>&, std::uint64_t, double, const double*, std::size_t,
                                 std::uint64_t*);
template void sweep_slice<double>(const std::vector<std::complex<double>>&, std::uint64_t, double, const double*,
                                  std::size_t, std::uint64_t*);

}  // namespace qsim
