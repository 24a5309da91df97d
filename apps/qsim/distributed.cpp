// qsim over MPI ranks (distributed.hpp): the plan of local blocks and global<->local qubit swaps, the
// host run of it (distributed_engine.hpp on the host space), MPI on host memory, the collectives.
#include "distributed.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>

#include "app_common/environment.hpp"
#include "app_common/mpi_agreement.hpp"
#include "app_common/sweep.hpp"
#include "block_gemm_host.hpp"
#include "app_common/timing.hpp"
#include "distributed_engine.hpp"
#include "exchange.hpp"
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

/// Exchanges the qubits at positions a and b of the layout.
void swap_in_layout(DistributedLayout& layout, int a, int b) {
  const int qa = layout.qubit_at[static_cast<std::size_t>(a)];
  const int qb = layout.qubit_at[static_cast<std::size_t>(b)];
  std::swap(layout.qubit_at[static_cast<std::size_t>(a)], layout.qubit_at[static_cast<std::size_t>(b)]);
  layout.position_of[static_cast<std::size_t>(qa)] = b;
  layout.position_of[static_cast<std::size_t>(qb)] = a;
}

/// MPI on host memory.
class HostMpiExchange final : public SliceExchange {
 public:
  explicit HostMpiExchange(MPI_Comm comm) : comm_(comm) {}
  void exchange(const void* send, void* recv, std::size_t bytes, int partner) override {
    mpi_exchange_bytes(send, recv, bytes, partner, comm_);
  }
  std::string name() const override { return "mpi"; }

 private:
  MPI_Comm comm_;
};

}  // namespace

ExchangeChoice exchange_choice_from_environment() {
  const char* e = std::getenv("TCEMU_QSIM_EXCHANGE");
  const std::string v = e ? e : "";
  if (v.empty() || v == "auto") return ExchangeChoice::automatic;
  if (v == "nccl") return ExchangeChoice::nccl;
  if (v == "mpi") return ExchangeChoice::mpi;
  throw tcemu::InvalidArgument("TCEMU_QSIM_EXCHANGE=" + v + ": expected auto, nccl or mpi");
}

ExchangeChoice agreed_exchange_choice(MPI_Comm comm) {
  int code = -1;
  std::string error;
  try {
    code = static_cast<int>(exchange_choice_from_environment());
  } catch (const tcemu::InvalidArgument& e) {
    error = e.what();
  }
  int range[2] = {-code, code};  // -min, max
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, range, 2, MPI_INT, MPI_MAX, comm), "MPI_Allreduce");
  if (range[0] > 0)  // some rank's value is bad
    throw tcemu::InvalidArgument(error.empty() ? "TCEMU_QSIM_EXCHANGE has a bad value on another MPI rank "
                                                 "(expected auto, nccl or mpi)"
                                               : error);
  if (-range[0] != range[1])
    throw tcemu::InvalidArgument("TCEMU_QSIM_EXCHANGE differs between the MPI ranks (give every rank the same "
                                 "environment, e.g. mpirun -x TCEMU_QSIM_EXCHANGE)");
  return static_cast<ExchangeChoice>(code);
}

void mpi_exchange_bytes(const void* send, void* recv, std::size_t bytes, int partner, MPI_Comm comm) {
  const char* s = static_cast<const char*>(send);
  char* r = static_cast<char*>(recv);
  for (std::size_t off = 0; off < bytes; off += kMaxMessageBytes) {
    const int count = static_cast<int>(std::min(kMaxMessageBytes, bytes - off));
    check_mpi(MPI_Sendrecv(s + off, count, MPI_BYTE, partner, 0, r + off, count, MPI_BYTE, partner, 0, comm,
                           MPI_STATUS_IGNORE),
              "MPI_Sendrecv");
  }
}

std::unique_ptr<SliceExchange> make_host_exchange(MPI_Comm comm) { return std::make_unique<HostMpiExchange>(comm); }

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

DistributedPlan plan_distributed(const std::vector<Block>& blocks, int n, int g) {
  DistributedPlan plan;
  plan.num_qubits = n;
  plan.global_qubits = g;
  const int L = n - g;
  DistributedLayout layout = DistributedLayout::canonical(n, L);
  auto swap_step = [&](int global_pos, int local_pos) {
    DistributedStep s;
    s.kind = DistributedStep::Kind::swap;
    s.global_pos = global_pos;
    s.local_pos = local_pos;
    plan.steps.push_back(std::move(s));
    swap_in_layout(layout, global_pos, local_pos);
    ++plan.swaps;
  };
  auto local_block = [&](Block b) {
    if (plan.steps.empty() || plan.steps.back().kind != DistributedStep::Kind::local_blocks)
      plan.steps.emplace_back();
    plan.steps.back().blocks.push_back(std::move(b));
  };
  for (std::size_t bi = 0; bi < blocks.size(); ++bi) {
    const Block& blk = blocks[bi];
    const std::vector<int> qubits = block_qubits(blk);
    if (static_cast<int>(qubits.size()) > L)
      throw tcemu::InvalidArgument("block " + std::to_string(bi) + " has " + std::to_string(qubits.size()) +
                                   " qubits, more than the " + std::to_string(L) + " local qubits");
    for (int q : qubits) {
      if (q < 0 || q >= n) throw tcemu::InvalidArgument("block " + std::to_string(bi) + " does not fit the circuit");
      if (layout.is_global(q)) swap_step(layout.position_of[static_cast<std::size_t>(q)], victim_position(layout, blocks, bi));
    }
    Block local = blk;
    for (int& q : local.qubits) q = layout.position_of[static_cast<std::size_t>(q)];
    for (int& q : local.controls) q = layout.position_of[static_cast<std::size_t>(q)];
    local_block(std::move(local));
  }
  // Back to canonical: qubit p at every global position p, then local position swaps.
  for (int p = L; p < n; ++p) {
    if (layout.qubit_at[static_cast<std::size_t>(p)] == p) continue;
    int from = layout.position_of[static_cast<std::size_t>(p)];
    if (from >= L) {  // qubit p sits at another global position: through local position 0 first
      swap_step(from, 0);
      from = 0;
    }
    swap_step(p, from);
  }
  for (int p = 0; p < L; ++p) {
    const int at = layout.position_of[static_cast<std::size_t>(p)];
    if (at == p) continue;
    plan.local_swaps.emplace_back(p, at);
    swap_in_layout(layout, p, at);
  }
  return plan;
}

template <class T>
DistributedResult<T> simulate_distributed(const std::vector<Block>& blocks, int n, const SimOptions& options,
                                          MPI_Comm comm, SliceExchange* exchange) {
  const DistributedPlan plan = plan_distributed(blocks, n, global_qubits_for(comm, n, blocks));
  if (options.device == Device::cuda) return simulate_distributed_cuda<T>(plan, options, comm, exchange);
  const int L = n - plan.global_qubits;
  std::unique_ptr<SliceExchange> own;
  if (!exchange) {
    own = make_host_exchange(comm);
    exchange = own.get();
  }
  const std::int64_t piece = options.chunk_elements > 0 ? options.chunk_elements : kSingleBufferChunk;
  return engine::simulate_distributed_on<Kokkos::DefaultHostExecutionSpace, T>(
      Kokkos::DefaultHostExecutionSpace(), plan, n, options, comm, *exchange,
      resolve_host_buffers(options.buffers, L), piece);
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
/// The draws are gathered with int counts: throws tcemu::InvalidArgument beyond INT_MAX shots.
void check_shots_fit_mpi(std::int64_t shots) {
  if (shots > std::numeric_limits<int>::max())
    throw tcemu::InvalidArgument("qsim over MPI: " + std::to_string(shots) + " shots are more than an MPI count holds");
}
}  // namespace

template <class T>
std::vector<std::uint64_t> distributed_samples(const std::vector<std::complex<T>>& local, std::int64_t shots,
                                               std::uint64_t seed, MPI_Comm comm, int root) {
  check_shots_fit_mpi(shots);
  const int ranks = comm_size(comm), rank = comm_rank(comm);
  if (shots <= 0) return {};
  // Every rank knows every slice's share of the sum, so every rank knows which draws each one answers.
  std::vector<double> parts(static_cast<std::size_t>(ranks));
  const double mine = norm_squared(local);
  check_mpi(MPI_Allgather(&mine, 1, MPI_DOUBLE, parts.data(), 1, MPI_DOUBLE, comm), "MPI_Allgather");
  std::vector<double> offsets(parts.size());
  double total = 0;
  for (std::size_t r = 0; r < parts.size(); ++r) {
    offsets[r] = total;
    total += parts[r];
  }
  const SortedDraws d = sorted_draws(shots, seed, total);
  const std::vector<double>& sorted = d.sorted;
  // A draw belongs to the last rank with a nonzero share whose offset it reaches (rank 0 when every
  // share is zero: the one-process sampler then answers index 0).
  std::vector<int> begin(parts.size(), 0), count(parts.size(), 0);
  int owner = -1;
  for (int r = 0; r < ranks; ++r) {
    if (!(parts[static_cast<std::size_t>(r)] > 0)) continue;
    begin[static_cast<std::size_t>(r)] =
        owner < 0 ? 0
                  : static_cast<int>(std::lower_bound(sorted.begin(), sorted.end(), offsets[static_cast<std::size_t>(r)]) -
                                     sorted.begin());
    if (owner >= 0) count[static_cast<std::size_t>(owner)] = begin[static_cast<std::size_t>(r)] - begin[static_cast<std::size_t>(owner)];
    owner = r;
  }
  if (owner < 0) owner = 0;
  count[static_cast<std::size_t>(owner)] = static_cast<int>(sorted.size()) - begin[static_cast<std::size_t>(owner)];
  const std::size_t me = static_cast<std::size_t>(rank);
  std::vector<std::uint64_t> answers(static_cast<std::size_t>(count[me]));
  sweep_slice(local, static_cast<std::uint64_t>(local.size()) * static_cast<std::uint64_t>(rank), offsets[me],
              sorted.data() + begin[me], answers.size(), answers.data());
  std::vector<std::uint64_t> gathered(rank == root ? sorted.size() : 0);
  check_mpi(MPI_Gatherv(answers.data(), count[me], MPI_UINT64_T, gathered.data(), count.data(), begin.data(),
                        MPI_UINT64_T, root, comm),
            "MPI_Gatherv");
  if (rank != root) return {};
  std::vector<std::uint64_t> out(sorted.size());
  for (std::size_t k = 0; k < d.order.size(); ++k) out[d.order[k]] = gathered[k];
  return out;
}

template <class T>
std::vector<std::complex<double>> distributed_amplitudes(const std::vector<std::complex<T>>& local,
                                                         const std::vector<std::uint64_t>& indices, MPI_Comm comm) {
  const int ranks = comm_size(comm), rank = comm_rank(comm);
  const std::uint64_t slice = local.size();
  std::vector<double> values(2 * indices.size(), 0.0);
  for (std::size_t i = 0; i < indices.size(); ++i) {
    if (slice == 0 || indices[i] / slice >= static_cast<std::uint64_t>(ranks))
      throw tcemu::InvalidArgument("qsim over MPI: basis index " + std::to_string(indices[i]) + " is outside the " +
                                   std::to_string(slice * static_cast<std::uint64_t>(ranks)) + " amplitudes");
    if (indices[i] / slice != static_cast<std::uint64_t>(rank)) continue;
    const std::complex<T> z = local[static_cast<std::size_t>(indices[i] % slice)];
    values[2 * i] = z.real();
    values[2 * i + 1] = z.imag();
  }
  if (!values.empty())
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_DOUBLE, MPI_SUM, comm),
              "MPI_Allreduce");
  std::vector<std::complex<double>> out;
  for (std::size_t i = 0; i < indices.size(); ++i) out.emplace_back(values[2 * i], values[2 * i + 1]);
  return out;
}

namespace {

/// Each rank's host memory for its slice of L = n - g qubits, agreed over the ranks before any run;
/// the ranks of one host share its MemAvailable. On the host the largest run's need for the slice
/// (host_bytes_needed: the complex128 reference slice, two state buffers and the GEMM's workspace);
/// on GPUs the complex128 reference slice and one slice brought down (amplitudes, samples, states).
/// Throws tcemu::InvalidArgument naming the rank short by the most and its numbers.
void check_host_memory_over_ranks(const Circuit& c, const RunConfig& cfg, int global_qubits, MPI_Comm comm) {
  const int L = c.num_qubits - global_qubits;
  double need = 0;
  std::string what;
  if (cfg.device == Device::cuda) {
    need = host_bytes_of_gpu_job(cfg.schemes, L, true);
    what = "the complex128 reference slice and one slice brought down from the GPU";
  } else {
    tcemu::Scheme worst;
    need = host_job_bytes(cfg.schemes, L, BufferMode::automatic, true, &worst);
    what = "the complex128 reference slice and the " + worst.name + " run's buffers";
  }
  const int sharing = tcemu::app::ranks_on_my_host(comm);
  const double available = available_memory_bytes() / sharing;
  const std::string phrase = "its slice of " + std::to_string(L) + " qubits needs about " + bytes_text(need) +
                             " of host memory (" + what + "), but only " + bytes_text(available) +
                             " are available to it (its host's MemAvailable over " + std::to_string(sharing) +
                             " rank(s) there)";
  const tcemu::app::Shortfall worst = tcemu::app::worst_shortfall(comm, need - available, phrase);
  if (!worst.fits) throw tcemu::InvalidArgument("qsim over MPI: " + worst.text);
}

template <class T>
SchemeRun run_one_distributed(const Circuit& c, const std::vector<Block>& blocks, const tcemu::Scheme& scheme,
                              const RunConfig& cfg, const std::vector<std::uint64_t>& indices,
                              std::vector<std::complex<double>>* reference, MPI_Comm comm, SliceExchange& transport,
                              std::int64_t& swaps) {
  SimOptions opt;
  opt.gemm = tcemu::app::gemm_options(scheme);
  opt.gemm.range_policy = cfg.range_policy;
  opt.device = cfg.device;
  // The reference run keeps its slices (in host memory); the others are measured where they ran.
  const bool is_reference = reference->empty();
  opt.reference = is_reference ? nullptr : reference;
  opt.download = is_reference || !indices.empty() || cfg.shots > 0 || cfg.keep_states;
  DistributedResult<T> sim = simulate_distributed<T>(blocks, c.num_qubits, opt, comm, &transport);
  swaps += sim.swaps;
  SchemeRun r;
  r.scheme = scheme;
  r.precision = sizeof(T) == 4 ? "complex64" : "complex128";
  r.stats = sim.stats;
  r.used = sim.stats.gemm.used_counts();
  r.accuracy = sim.accuracy;
  r.amplitudes = distributed_amplitudes(sim.local_state, indices, comm);
  if (cfg.shots > 0) {
    r.samples = distributed_samples(sim.local_state, cfg.shots, cfg.seed, comm);
    for (auto& v : r.samples) v = classical_value(v, c.measurements);
  }
  if (cfg.keep_states) {
    const std::vector<std::complex<T>> full = gather_state(sim.local_state, comm);
    r.state.assign(full.begin(), full.end());
  }
  if (is_reference) {
    r.accuracy.fidelity = 1.0;
    r.accuracy.max_amp_err = 0.0;
    if constexpr (std::is_same_v<T, double>) *reference = std::move(sim.local_state);
  }
  return r;
}

}  // namespace

JobResult run_job_distributed(const Circuit& c, const RunConfig& cfg, MPI_Comm comm, std::int64_t* swaps_out,
                              std::string* exchange_out) {
  check_shots_fit_mpi(cfg.shots);  // before any run
  if (!cfg.reference || cfg.buffers != BufferMode::automatic)
    throw tcemu::InvalidArgument("qsim over MPI: --no-reference and --buffers need one rank so far");
  if (cfg.keep_states && c.num_qubits > kMaxSavedStateQubits)
    throw tcemu::InvalidArgument("qsim over MPI: the states of " + std::to_string(c.num_qubits) +
                                 " qubits are too large to save (at most " + std::to_string(kMaxSavedStateQubits) + ")");
  std::vector<std::uint64_t> indices;
  for (const auto& b : cfg.amplitudes) indices.push_back(parse_bitstring(b, c.num_qubits));
  JobResult job;
  const auto t0 = Clock::now();
  const std::vector<Block> blocks = fuse(c, cfg.fuse);
  job.seconds_fusion = seconds_since(t0);
  job.fusion = summarize(blocks, c.num_qubits);
  const int global_qubits = global_qubits_for(comm, c.num_qubits, blocks);  // the rank-count error before any run
  const auto order = tcemu::app::sweep_order(cfg.schemes, {{tcemu::parse_scheme("fp64", tcemu::Target::fp64), "reference"}});
  std::vector<std::complex<double>> reference;
  std::int64_t swaps = 0;
  (void)agreed_exchange_choice(comm);  // a bad TCEMU_QSIM_EXCHANGE fails every run, host ones too
  {  // --device auto resolves per rank: a job whose ranks disagree (GPUs on some nodes only) stops
    int range[2] = {-static_cast<int>(cfg.device), static_cast<int>(cfg.device)};
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, range, 2, MPI_INT, MPI_MAX, comm), "MPI_Allreduce");
    if (-range[0] != range[1])
      throw tcemu::InvalidArgument("qsim over MPI: --device resolved differently on the ranks (a GPU on some of "
                                   "them only); pass --device host or --device cuda");
  }
  check_host_memory_over_ranks(c, cfg, global_qubits, comm);
  // One transport for every run (an NCCL communicator is made once).
  const std::unique_ptr<SliceExchange> transport =
      cfg.device == Device::cuda ? make_gpu_exchange(comm) : make_host_exchange(comm);
  for (std::size_t i = 0; i < order.size(); ++i) {
    const auto& s = order[i].scheme;
    SchemeRun r = i == 0 || uses_double(s)
                      ? run_one_distributed<double>(c, blocks, s, cfg, indices, &reference, comm, *transport, swaps)
                      : run_one_distributed<float>(c, blocks, s, cfg, indices, &reference, comm, *transport, swaps);
    if (i > 0) r.samples_differing = samples_differing(r.samples, job.runs[0].samples);  // rank 0's samples
    if (cfg.log) {
      char line[240];
      std::snprintf(line, sizeof line, "[%zu/%zu] %-16s done: %.3f s on rank 0 (swaps %.3f s), 1 - fidelity %.2e", i + 1,
                    order.size(), s.name.c_str(), r.stats.seconds, r.stats.seconds_exchange, 1.0 - r.accuracy.fidelity);
      cfg.log(line);
    }
    job.runs.push_back(std::move(r));
  }
  if (swaps_out) *swaps_out = swaps;
  if (exchange_out) *exchange_out = transport->name();
  return job;
}

#define TCEMU_QSIM_DISTRIBUTED(T)                                                                                   \
  template DistributedResult<T> simulate_distributed<T>(const std::vector<Block>&, int, const SimOptions&, MPI_Comm,  \
                                                        SliceExchange*);                                            \
  template std::vector<std::complex<T>> gather_state<T>(const std::vector<std::complex<T>>&, MPI_Comm, int);       \
  template double distributed_norm2<T>(const std::vector<std::complex<T>>&, MPI_Comm);                               \
  template std::complex<double> distributed_overlap<T>(const std::vector<std::complex<double>>&,                    \
                                                       const std::vector<std::complex<T>>&, MPI_Comm);              \
  template double distributed_max_abs_error<T>(const std::vector<std::complex<double>>&,                            \
                                               const std::vector<std::complex<T>>&, MPI_Comm);                     \
  template std::vector<std::uint64_t> distributed_samples<T>(const std::vector<std::complex<T>>&, std::int64_t,      \
                                                             std::uint64_t, MPI_Comm, int);                         \
  template std::vector<std::complex<double>> distributed_amplitudes<T>(const std::vector<std::complex<T>>&,          \
                                                                       const std::vector<std::uint64_t>&, MPI_Comm);
TCEMU_QSIM_DISTRIBUTED(float)
TCEMU_QSIM_DISTRIBUTED(double)
#undef TCEMU_QSIM_DISTRIBUTED

}  // namespace qsim
