#pragma once
/// \file distributed_engine.hpp
/// qsim over MPI ranks written once for every Kokkos execution space (distributed.hpp describes the
/// method): the rank's slice of 2^L amplitudes lives in `Space`'s memory, runs of local blocks go
/// through the one-process engine (simulate_engine.hpp, apply_blocks: permutations, block GEMMs,
/// in-place kernel), and a global<->local swap packs the half of the slice to trade into a buffer,
/// trades it through a SliceExchange (exchange.hpp) and unpacks the partner's half, in pieces of at
/// most `piece` amplitudes so that the buffers stay small beside the slice. Instantiated on
/// Kokkos::DefaultHostExecutionSpace (distributed.cpp) and Kokkos::Cuda (distributed_cuda.cpp).
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <complex>
#include <cstdint>
#include <string>
#include <vector>

#include "app_common/kokkos_range.hpp"
#include "app_common/timing.hpp"
#include "distributed.hpp"
#include "exchange.hpp"
#include "simulate_engine.hpp"
#include "tcemu/error.hpp"

namespace qsim::engine {

/// The swap of a global position with local position `local_pos` (distributed.hpp): the amplitudes of
/// `slice` (2^L) whose local bit `local_pos` is 1 - b (b: this rank's bit of the global position) go
/// to `partner`, and the partner's amplitudes at the same local indices take their place. Runs in
/// pieces of send.extent(0) amplitudes (send and recv alike): pack, exchange, unpack.
template <class Space, class C>
void exchange_half(const Space& space, Kokkos::View<C*, typename Space::memory_space> slice, int L, int local_pos,
                   int b, int partner, Kokkos::View<C*, typename Space::memory_space> send,
                   Kokkos::View<C*, typename Space::memory_space> recv, SliceExchange& exchange) {
  using Policy = tcemu::app::Range64<Space>;
  const std::uint64_t half = std::uint64_t(1) << (L - 1);
  const std::uint64_t piece = send.extent(0);
  const std::uint64_t set_bit = std::uint64_t(1 - b) << local_pos;
  for (std::uint64_t k0 = 0; k0 < half; k0 += piece) {
    const std::int64_t len = static_cast<std::int64_t>(std::min(piece, half - k0));
    Kokkos::parallel_for(
        "qsim::pack_half", Policy(space, 0, len),
        KOKKOS_LAMBDA(const std::int64_t k) { send(k) = slice(insert_zero_bit(k0 + std::uint64_t(k), local_pos) | set_bit); });
    space.fence();
    exchange.exchange(send.data(), recv.data(), static_cast<std::size_t>(len) * sizeof(C), partner);
    Kokkos::parallel_for(
        "qsim::unpack_half", Policy(space, 0, len),
        KOKKOS_LAMBDA(const std::int64_t k) { slice(insert_zero_bit(k0 + std::uint64_t(k), local_pos) | set_bit) = recv(k); });
  }
  space.fence();
}

/// Runs `plan` (plan_distributed) on this rank's slice in `Space`'s memory with `buffers` (two or
/// single, decided by the caller for 2^L amplitudes) and swap pieces of `piece` amplitudes: sigma
/// |0...0> at rank 0, the steps, the final local position swaps, division by sigma, then the metrics
/// (state_sums where the slice lies, against options.reference, this rank's reference slice of 2^L
/// amplitudes in host memory, when given; summed over the ranks). The slice comes back in host memory
/// (DistributedResult::local_state, canonical order) on the host always and on a GPU when
/// options.download. Every rank must call it with the same plan (collective through `exchange`).
template <class Space, class T>
DistributedResult<T> simulate_distributed_on(const Space& space, const DistributedPlan& plan, int n,
                                             const SimOptions& options, MPI_Comm comm, SliceExchange& exchange,
                                             BufferMode buffers, std::int64_t piece) {
  using C = Kokkos::complex<T>;
  using View = typename StateBuffers<Space, T>::View;
  using HostView = Kokkos::View<C*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using Policy = tcemu::app::Range64<Space>;
  using tcemu::app::Clock;
  using tcemu::app::seconds_since;
  const auto t_start = Clock::now();
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  DistributedResult<T> res;
  res.global_qubits = plan.global_qubits;
  res.ranks = ranks;
  res.exchange = exchange.name();
  const int L = n - plan.global_qubits;
  const std::size_t size = std::size_t(1) << L;
  SimOptions local_options = options;
  local_options.progress = nullptr;

  StateBuffers<Space, T> buf = allocate_state_buffers<Space, T>(size, buffers, options.chunk_elements, res.local_state);
  const std::size_t piece_size = L > 0 ? std::min<std::size_t>(size / 2, static_cast<std::size_t>(piece)) : 1;
  View send(Kokkos::view_alloc(Kokkos::WithoutInitializing, "qsim::swap_send"), piece_size);
  View recv(Kokkos::view_alloc(Kokkos::WithoutInitializing, "qsim::swap_recv"), piece_size);
  {
    auto a = buf.cur;
    const T sigma = rank == 0 ? static_cast<T>(state_scale(n)) : T(0);  // the one-process scale
    Kokkos::parallel_for(
        "qsim::initial_slice", Policy(space, 0, std::int64_t(size)),
        KOKKOS_LAMBDA(const std::int64_t i) { a(i) = C(i == 0 ? sigma : T(0), T(0)); });
  }
  for (const DistributedStep& step : plan.steps) {
    if (step.kind == DistributedStep::Kind::local_blocks) {
      apply_blocks<Space, T>(space, buf, L, step.blocks, local_options, res.stats);
      continue;
    }
    const int j = step.global_pos - L;
    const auto t0 = Clock::now();
    exchange_half<Space, C>(space, buf.cur, L, step.local_pos, (rank >> j) & 1, rank ^ (1 << j), send, recv, exchange);
    res.stats.seconds_exchange += seconds_since(t0);
    ++res.swaps;
  }
  if (!plan.local_swaps.empty()) {  // the final local order: position swaps in place
    const auto t0 = Clock::now();
    for (const auto& ab : plan.local_swaps) swap_positions<Space, C>(space, buf.cur, L, ab.first, ab.second);
    space.fence();
    res.stats.seconds_permute += seconds_since(t0);
    ++res.stats.permutations;
  }
  {
    auto a = buf.cur;
    const T inv = static_cast<T>(1.0 / state_scale(n));
    Kokkos::parallel_for(
        "qsim::unscale_slice", Policy(space, 0, std::int64_t(size)), KOKKOS_LAMBDA(const std::int64_t i) { a(i) *= inv; });
  }
  space.fence();
  res.stats.seconds = seconds_since(t_start);
  // The metrics where the slice lies (the one-process reductions), then summed over the ranks.
  const std::complex<double>* reference = options.reference ? options.reference->data() : nullptr;
  if (reference && options.reference->size() != size)
    throw tcemu::InvalidArgument("qsim over MPI: the reference slice has " + std::to_string(options.reference->size()) +
                                 " amplitudes, not 2^" + std::to_string(L));
  buf.other = View();  // room for the reference's pieces on a GPU
  buf.chunk = View();
  StateSums sums = state_sums<Space, C>(space, buf.cur, reference, static_cast<std::uint64_t>(piece));
  double add[3] = {sums.norm, sums.overlap_re, sums.overlap_im};
  if (MPI_Allreduce(MPI_IN_PLACE, add, 3, MPI_DOUBLE, MPI_SUM, comm) != MPI_SUCCESS ||
      MPI_Allreduce(MPI_IN_PLACE, &sums.max_err2, 1, MPI_DOUBLE, MPI_MAX, comm) != MPI_SUCCESS)
    throw tcemu::Error("qsim over MPI: MPI_Allreduce failed");
  sums.norm = add[0];
  sums.overlap_re = add[1];
  sums.overlap_im = add[2];
  res.accuracy = accuracy_from(sums, reference != nullptr);
  if constexpr (runs_on_host<Space>()) {
    if (buf.cur.data() != reinterpret_cast<C*>(res.local_state.data()))
      Kokkos::deep_copy(space, HostView(reinterpret_cast<C*>(res.local_state.data()), size), buf.cur);
  } else if (options.download) {
    res.local_state.resize(size);
    Kokkos::deep_copy(space, HostView(reinterpret_cast<C*>(res.local_state.data()), size), buf.cur);
  }
  space.fence();
  return res;
}

}  // namespace qsim::engine
