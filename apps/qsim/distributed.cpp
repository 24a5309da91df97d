// qsim over MPI ranks on the host backend: local blocks, global<->local qubit swaps (distributed.hpp).
#include "distributed.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

#include "app_common/environment.hpp"
#include "app_common/sweep.hpp"
#include "app_common/timing.hpp"
#include <cstdio>
#include <cstdlib>
#include "qubit_layout.hpp"
#include "tcemu/error.hpp"

namespace qsim {

namespace {

using tcemu::app::Clock;
using tcemu::app::seconds_since;

void check_mpi(int rc, const char* what) {
  if (rc != MPI_SUCCESS) throw tcemu::Error(std::string("qsim over MPI: ") + what + " failed");
}

/// Largest message in bytes (MPI counts are int).
constexpr std::size_t kMaxMessageBytes = std::size_t(1) << 30;

int comm_size(MPI_Comm comm) {
  int r = 1;
  check_mpi(MPI_Comm_size(comm, &r), "MPI_Comm_size");
  return r;
}
int comm_rank(MPI_Comm comm) {
  int r = 0;
  check_mpi(MPI_Comm_rank(comm, &r), "MPI_Comm_rank");
  return r;
}

/// Exchanges buffer `send` with `partner`'s into `recv` (same size), in messages below 1 GiB.
void exchange_bytes(const void* send, void* recv, std::size_t bytes, int partner, MPI_Comm comm) {
  const char* s = static_cast<const char*>(send);
  char* r = static_cast<char*>(recv);
  for (std::size_t off = 0; off < bytes; off += kMaxMessageBytes) {
    const int count = static_cast<int>(std::min(kMaxMessageBytes, bytes - off));
    check_mpi(MPI_Sendrecv(s + off, count, MPI_BYTE, partner, 0, r + off, count, MPI_BYTE, partner, 0, comm,
                           MPI_STATUS_IGNORE),
              "MPI_Sendrecv");
  }
}

/// Swaps global position `global_pos` with local position `local_pos` (see the file comment of
/// distributed.hpp): with b = this rank's bit j, the amplitudes whose local bit is 1 - b are exchanged
/// with the partner rank (rank XOR 2^j), at the same local indices.
template <class C>
void swap_positions(std::vector<C>& slice, DistributedLayout& layout, int global_pos, int local_pos,
                    std::vector<C>& send, std::vector<C>& recv, MPI_Comm comm) {
  const int j = global_pos - layout.local_qubits;
  const int rank = comm_rank(comm);
  const int b = (rank >> j) & 1;
  const int partner = rank ^ (1 << j);
  const std::size_t half = slice.size() / 2;
  const std::size_t bit = std::size_t(1) << local_pos;
  send.resize(half);
  recv.resize(half);
  // Indices with local bit = 1 - b, in ascending order: runs of `bit` consecutive amplitudes.
  const std::size_t first = b ? 0 : bit;
  std::size_t k = 0;
  for (std::size_t base = first; base < slice.size(); base += 2 * bit, k += bit)
    std::memcpy(static_cast<void*>(send.data() + k), static_cast<const void*>(slice.data() + base), bit * sizeof(C));
  exchange_bytes(send.data(), recv.data(), half * sizeof(C), partner, comm);
  k = 0;
  for (std::size_t base = first; base < slice.size(); base += 2 * bit, k += bit)
    std::memcpy(static_cast<void*>(slice.data() + base), static_cast<const void*>(recv.data() + k), bit * sizeof(C));
  const int qg = layout.qubit_at[static_cast<std::size_t>(global_pos)];
  const int ql = layout.qubit_at[static_cast<std::size_t>(local_pos)];
  std::swap(layout.qubit_at[static_cast<std::size_t>(global_pos)], layout.qubit_at[static_cast<std::size_t>(local_pos)]);
  layout.position_of[static_cast<std::size_t>(qg)] = local_pos;
  layout.position_of[static_cast<std::size_t>(ql)] = global_pos;
}

std::vector<int> block_qubits(const Block& b) {
  std::vector<int> q = b.qubits;
  q.insert(q.end(), b.controls.begin(), b.controls.end());
  return q;
}

/// The local position to give up for a global qubit of blocks[bi]: not used by the block, holding the
/// local qubit whose next use (from block bi on) lies furthest ahead (never used again: best).
int victim_position(const DistributedLayout& layout, const std::vector<Block>& blocks, std::size_t bi) {
  const std::vector<int> here = block_qubits(blocks[bi]);
  int best = -1;
  std::size_t best_next = 0;
  for (int p = layout.local_qubits - 1; p >= 0; --p) {
    const int q = layout.qubit_at[static_cast<std::size_t>(p)];
    if (std::find(here.begin(), here.end(), q) != here.end()) continue;
    std::size_t next = bi + 1;
    while (next < blocks.size()) {
      const auto used = block_qubits(blocks[next]);
      if (std::find(used.begin(), used.end(), q) != used.end()) break;
      ++next;
    }
    if (best < 0 || next > best_next) {
      best = p;
      best_next = next;
    }
    if (next == blocks.size()) break;  // never used again: cannot do better
  }
  return best;
}

}  // namespace

DistributedLayout DistributedLayout::canonical(int n, int local) {
  DistributedLayout l;
  l.num_qubits = n;
  l.local_qubits = local;
  for (int q = 0; q < n; ++q) {
    l.qubit_at.push_back(q);
    l.position_of.push_back(q);
  }
  return l;
}

int global_qubits_for(MPI_Comm comm, int n, const std::vector<Block>& blocks) {
  const int ranks = comm_size(comm);
  if (ranks & (ranks - 1))
    throw tcemu::InvalidArgument("qsim over MPI: " + std::to_string(ranks) + " ranks is not a power of two");
  int g = 0;
  while ((1 << g) < ranks) ++g;
  int widest = 0;
  for (const auto& b : blocks) widest = std::max(widest, static_cast<int>(b.qubits.size() + b.controls.size()));
  if (g > n - widest) {
    const long long most = 1LL << std::max(0, n - widest);
    throw tcemu::InvalidArgument("qsim over MPI: " + std::to_string(ranks) + " ranks are too many for " +
                                 std::to_string(n) + " qubits with blocks of " + std::to_string(widest) +
                                 " qubits (at most " + std::to_string(most) + (most == 1 ? " rank)" : " ranks)"));
  }
  return g;
}

template <class T>
DistributedResult<T> simulate_distributed(const std::vector<Block>& blocks, int n, const SimOptions& options,
                                          MPI_Comm comm) {
  using C = std::complex<T>;
  const auto t_start = Clock::now();
  DistributedResult<T> res;
  res.global_qubits = global_qubits_for(comm, n, blocks);
  res.ranks = 1 << res.global_qubits;
  const int L = n - res.global_qubits;
  const int rank = comm_rank(comm);
  SimOptions local_options = options;
  local_options.progress = nullptr;
  std::vector<C> slice(std::size_t(1) << L), send, recv;
  if (rank == 0) slice[0] = C(static_cast<T>(state_scale(n)));  // same scale as the one-process run
  DistributedLayout layout = DistributedLayout::canonical(n, L);

  std::vector<Block> segment;  // consecutive local blocks, renamed to local positions
  auto flush = [&] {
    if (segment.empty()) return;
    apply_blocks_host<T>(slice, L, segment, local_options, res.stats);
    segment.clear();
  };
  for (std::size_t bi = 0; bi < blocks.size(); ++bi) {
    const Block& blk = blocks[bi];
    for (int q : block_qubits(blk)) {
      if (q < 0 || q >= n) throw tcemu::InvalidArgument("block " + std::to_string(bi) + " does not fit the circuit");
      if (!layout.is_global(q)) continue;
      flush();
      swap_positions(slice, layout, layout.position_of[static_cast<std::size_t>(q)],
                     victim_position(layout, blocks, bi), send, recv, comm);
      ++res.swaps;
    }
    Block local = blk;
    for (int& q : local.qubits) q = layout.position_of[static_cast<std::size_t>(q)];
    for (int& q : local.controls) q = layout.position_of[static_cast<std::size_t>(q)];
    segment.push_back(std::move(local));
  }
  flush();

  // Back to canonical: qubit p at every global position p, then one local permutation.
  for (int p = L; p < n; ++p) {
    if (layout.qubit_at[static_cast<std::size_t>(p)] == p) continue;
    int from = layout.position_of[static_cast<std::size_t>(p)];
    if (from >= L) {  // qubit p sits at another global position: through local position 0 first
      swap_positions(slice, layout, from, 0, send, recv, comm);
      ++res.swaps;
      from = 0;
    }
    swap_positions(slice, layout, p, from, send, recv, comm);
    ++res.swaps;
  }
  Layout local_from = Layout::identity(L);
  for (int p = 0; p < L; ++p) {
    local_from.qubit_at[static_cast<std::size_t>(p)] = layout.qubit_at[static_cast<std::size_t>(p)];
    local_from.position_of[static_cast<std::size_t>(layout.qubit_at[static_cast<std::size_t>(p)])] = p;
  }
  if (!local_from.is_identity()) {
    const auto t0 = Clock::now();
    std::vector<C> out(slice.size());
    permute_state(slice.data(), out.data(), permutation_tables(local_from, Layout::identity(L)));
    slice.swap(out);
    res.stats.seconds_permute += seconds_since(t0);
    ++res.stats.permutations;
  }
  const T inv = static_cast<T>(1.0 / state_scale(n));
  for (auto& z : slice) z *= inv;
  res.local_state = std::move(slice);
  res.stats.seconds = seconds_since(t_start);
  return res;
}

template <class T>
std::vector<std::complex<T>> gather_state(const std::vector<std::complex<T>>& local, MPI_Comm comm, int root) {
  using C = std::complex<T>;
  const int ranks = comm_size(comm), rank = comm_rank(comm);
  const std::size_t bytes = local.size() * sizeof(C);
  if (rank != root) {
    for (std::size_t off = 0; off < bytes; off += kMaxMessageBytes)
      check_mpi(MPI_Send(reinterpret_cast<const char*>(local.data()) + off,
                         static_cast<int>(std::min(kMaxMessageBytes, bytes - off)), MPI_BYTE, root, 1, comm),
                "MPI_Send");
    return {};
  }
  std::vector<C> full(local.size() * static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r) {
    char* dst = reinterpret_cast<char*>(full.data() + local.size() * static_cast<std::size_t>(r));
    if (r == rank) {
      std::memcpy(dst, local.data(), bytes);
      continue;
    }
    for (std::size_t off = 0; off < bytes; off += kMaxMessageBytes)
      check_mpi(MPI_Recv(dst + off, static_cast<int>(std::min(kMaxMessageBytes, bytes - off)), MPI_BYTE, r, 1, comm,
                         MPI_STATUS_IGNORE),
                "MPI_Recv");
  }
  return full;
}

template <class T>
double distributed_norm2(const std::vector<std::complex<T>>& local, MPI_Comm comm) {
  double sum = 0, total = 0;
  for (const auto& z : local) sum += std::norm(std::complex<double>(z));
  check_mpi(MPI_Allreduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, comm), "MPI_Allreduce");
  return total;
}

template <class T>
std::complex<double> distributed_overlap(const std::vector<std::complex<double>>& ref,
                                         const std::vector<std::complex<T>>& local, MPI_Comm comm) {
  if (ref.size() != local.size()) throw tcemu::InvalidArgument("distributed_overlap: slices of different sizes");
  std::complex<double> sum = 0;
  for (std::size_t k = 0; k < ref.size(); ++k) sum += std::conj(ref[k]) * std::complex<double>(local[k]);
  double part[2] = {sum.real(), sum.imag()}, total[2] = {0, 0};
  check_mpi(MPI_Allreduce(part, total, 2, MPI_DOUBLE, MPI_SUM, comm), "MPI_Allreduce");
  return {total[0], total[1]};
}

template <class T>
double distributed_max_abs_error(const std::vector<std::complex<double>>& ref,
                                 const std::vector<std::complex<T>>& local, MPI_Comm comm) {
  if (ref.size() != local.size()) throw tcemu::InvalidArgument("distributed_max_abs_error: slices of different sizes");
  double worst = 0, total = 0;
  for (std::size_t k = 0; k < ref.size(); ++k) worst = std::max(worst, std::abs(std::complex<double>(local[k]) - ref[k]));
  check_mpi(MPI_Allreduce(&worst, &total, 1, MPI_DOUBLE, MPI_MAX, comm), "MPI_Allreduce");
  return total;
}

namespace {

template <class T>
SchemeRun run_one_distributed(const Circuit& c, const std::vector<Block>& blocks, const tcemu::Scheme& scheme,
                              const RunConfig& cfg, std::vector<std::complex<double>>* reference, MPI_Comm comm,
                              std::int64_t& swaps) {
  SimOptions opt;
  opt.gemm = tcemu::app::gemm_options(scheme);
  opt.gemm.range_policy = cfg.range_policy;
  opt.device = Device::host;
  DistributedResult<T> sim = simulate_distributed<T>(blocks, c.num_qubits, opt, comm);
  swaps += sim.swaps;
  SchemeRun r;
  r.scheme = scheme;
  r.precision = sizeof(T) == 4 ? "complex64" : "complex128";
  r.stats = sim.stats;
  r.used = sim.stats.gemm.used_counts();
  const double nn = distributed_norm2(sim.local_state, comm);
  if (reference->empty()) {
    r.accuracy = {1.0, 0.0, nn, std::fabs(nn - 1.0)};
    if constexpr (std::is_same_v<T, double>) *reference = std::move(sim.local_state);
  } else {
    const std::complex<double> overlap = distributed_overlap(*reference, sim.local_state, comm);
    r.accuracy = {std::norm(overlap), distributed_max_abs_error(*reference, sim.local_state, comm), nn, std::fabs(nn - 1.0)};
  }
  return r;
}

}  // namespace

JobResult run_job_distributed(const Circuit& c, const RunConfig& cfg, MPI_Comm comm, std::int64_t* swaps_out) {
  if (cfg.device != Device::host)
    throw tcemu::InvalidArgument("qsim over MPI: only --device host runs over several ranks so far");
  if (!cfg.amplitudes.empty() || cfg.shots > 0 || cfg.keep_states)
    throw tcemu::InvalidArgument("qsim over MPI: --amplitudes, --shots and the states of --output need one rank so far");
  JobResult job;
  const auto t0 = Clock::now();
  const std::vector<Block> blocks = fuse(c, cfg.fuse);
  job.seconds_fusion = seconds_since(t0);
  job.fusion = summarize(blocks, c.num_qubits);
  (void)global_qubits_for(comm, c.num_qubits, blocks);  // the rank-count error before any run
  const auto order = tcemu::app::sweep_order(cfg.schemes, {{tcemu::parse_scheme("fp64", tcemu::Target::fp64), "reference"}});
  std::vector<std::complex<double>> reference;
  std::int64_t swaps = 0;
  for (std::size_t i = 0; i < order.size(); ++i) {
    const auto& s = order[i].scheme;
    SchemeRun r = i == 0 || uses_double(s) ? run_one_distributed<double>(c, blocks, s, cfg, &reference, comm, swaps)
                                           : run_one_distributed<float>(c, blocks, s, cfg, &reference, comm, swaps);
    if (cfg.log) {
      char line[200];
      std::snprintf(line, sizeof line, "[%zu/%zu] %-16s done: %.3f s on rank 0, 1 - fidelity %.2e", i + 1, order.size(),
                    s.name.c_str(), r.stats.seconds, 1.0 - r.accuracy.fidelity);
      cfg.log(line);
    }
    job.runs.push_back(std::move(r));
  }
  if (swaps_out) *swaps_out = swaps;
  return job;
}

#define TCEMU_QSIM_DISTRIBUTED(T)                                                                                   \
  template DistributedResult<T> simulate_distributed<T>(const std::vector<Block>&, int, const SimOptions&, MPI_Comm); \
  template std::vector<std::complex<T>> gather_state<T>(const std::vector<std::complex<T>>&, MPI_Comm, int);       \
  template double distributed_norm2<T>(const std::vector<std::complex<T>>&, MPI_Comm);                               \
  template std::complex<double> distributed_overlap<T>(const std::vector<std::complex<double>>&,                    \
                                                       const std::vector<std::complex<T>>&, MPI_Comm);              \
  template double distributed_max_abs_error<T>(const std::vector<std::complex<double>>&,                            \
                                               const std::vector<std::complex<T>>&, MPI_Comm);
TCEMU_QSIM_DISTRIBUTED(float)
TCEMU_QSIM_DISTRIBUTED(double)
#undef TCEMU_QSIM_DISTRIBUTED

}  // namespace qsim
