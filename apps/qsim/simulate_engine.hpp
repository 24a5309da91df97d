#pragma once
/// \file simulate_engine.hpp
/// The simulation step of qsim written once (simulate.hpp's file comment describes it): the state and
/// its work buffers are Kokkos Views in the memory space of an execution space `Space`, and the
/// state-vector work (initial state, permutations, controlled-row copies, final scaling, download)
/// runs as Kokkos parallel patterns on that space. Two execution spaces instantiate it:
///   - Kokkos::DefaultHostExecutionSpace (simulate.cpp), with tcemu's host complex GEMM;
///   - Kokkos::Cuda (simulate_cuda.cpp, builds whose Kokkos has the CUDA backend and TCEMU_ENABLE_CUDA),
///     with tcemu::cuda::complex_gemm_device, qsim's in-place bit-indexed kernel
///     (tcemu/cuda/bit_gemm.hpp), measured faster than any permute + GEMM path, and the hand-written
///     tiled permutation (permute_cuda.hpp), measured faster than the Kokkos team kernel here
///     (docs/qsim.md, "One source on Kokkos").
/// What differs between the two sits behind BlockGemm<Space, T> (declared here, specialised next to
/// each instantiation; C = Kokkos::complex<T>, pointers into Space's memory):
///
///   struct BlockGemm<Space, T> {
///     BlockGemm(const Space&, const SimOptions&);
///     bool allow_high() const;                     // may dense blocks use Placement::high?
///     // y = x with U = make_u() (row-major 2^d x 2^d, std::complex<T>) applied along `positions`
///     // without a permutation, if this backend can: InPlace::applied; InPlace::unsupported (make_u
///     // not called); InPlace::rejected with `note` when U broke a range rule before the kernel ran
///     // (y not written); InPlace::declined with `note` when a row of x broke one while it ran (y
///     // unspecified).
///     template <class MakeU>
///     InPlace in_place(const C* x, C* y, int n, const std::vector<int>& positions, MakeU&& make_u,
///                      std::string& note);
///     // out = op(A) op(B) (alpha 1, beta 0), queued on the space's stream
///     tcemu::GemmReport gemm(Op, Op, MatrixView<const std::complex<T>> A,
///                            MatrixView<const std::complex<T>> B, MatrixView<std::complex<T>> out);
///     // y (2^n elements, apart from x) = the block's GEMM on x read through the permutation to the
///     // block's layout: source_positions[p] is the position in x's layout of new position p, the
///     // block's s qubits at new positions 0..s-1 and U (2^s x 2^s row-major, device) in their order.
///     // true: y holds what permute + gemm would write, rep its report; false: y unspecified
///     bool gathered(const C* x, C* y, int s, const std::vector<int>& source_positions, const C* u,
///                   tcemu::GemmReport& rep);
///     // the backend's hand-written tiled permutation (PermutationPlan words at `plan`); false when
///     // it has none (the Kokkos kernel runs then)
///     bool permute_tiled(const C* src, C* dst, const std::uint32_t* plan, int tile_bits,
///                        std::uint64_t tiles);
///   };
///
/// Kokkos::complex<T> and std::complex<T> share their layout (two T); the GEMM calls see the Views'
/// data() as std::complex<T>.
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <vector>

#include "app_common/kokkos_range.hpp"
#include "app_common/timing.hpp"
#include "circuit.hpp"
#include "qubit_layout.hpp"
#include "simulate.hpp"
#include "tcemu/error.hpp"
#include "tcemu/matrix.hpp"

namespace qsim::engine {

/// What the in-place path of a BlockGemm did with one block (the BlockGemm comment above).
enum class InPlace { unsupported, applied, rejected, declined };

/// The block GEMM of one execution space (see the file comment); specialised per space.
template <class Space, class T>
struct BlockGemm;

/// How a permutation whose lowest 5 positions change qubits runs on a GPU: hand (default: the
/// backend's hand-written tiled kernel, permute_cuda.hpp), kokkos (the Kokkos tiled team kernel
/// below), gather (the Kokkos element gather). Permutations that keep the lowest 5 positions (whole
/// 32-element runs move together) and every host permutation use the Kokkos gather. Read once from
/// TCEMU_QSIM_PERMUTE (cuda | kokkos | gather; another value is an InvalidArgument, exit status 2 in
/// the app). The default is measured: on an H100 at 30 qubits
/// the Kokkos tiled kernel took 798 ms of permutations per fp32 run against 497 ms for the
/// hand-written one (docs/qsim.md, "One source on Kokkos").
enum class PermuteKernel { hand, kokkos, gather };

inline PermuteKernel permute_kernel_from_environment() {
  static const PermuteKernel k = [] {
    const char* e = std::getenv("TCEMU_QSIM_PERMUTE");
    const std::string v = e ? e : "";
    if (v == "gather") return PermuteKernel::gather;
    if (v == "kokkos") return PermuteKernel::kokkos;
    if (v.empty() || v == "cuda") return PermuteKernel::hand;
    throw tcemu::InvalidArgument("TCEMU_QSIM_PERMUTE=" + v + ": expected cuda, kokkos or gather");
  }();
  return k;
}

/// The state's buffers in `Space`'s memory. Two-buffer mode: a block reads `cur` and writes `other`,
/// then they swap; `chunk` is empty. Single-buffer mode (simulate.hpp): `other` is empty and `chunk`
/// (a power of two >= min(2^n, 2^kMaxBlockQubits) amplitudes) takes one chunk of a block GEMM's rows at a time.
template <class Space, class T>
struct StateBuffers {
  using C = Kokkos::complex<T>;
  using View = Kokkos::View<C*, typename Space::memory_space>;
  View cur, other, chunk;
  bool single() const { return other.extent(0) == 0; }
};

/// k with a zero bit inserted at position p (k's bits p and up move up by one): the p-th bit of the
/// result is 0 and the others, in order, are k's. 64-bit throughout (states past 2^32 amplitudes).
KOKKOS_INLINE_FUNCTION std::uint64_t insert_zero_bit(std::uint64_t k, int p) {
  const std::uint64_t low = (std::uint64_t(1) << p) - 1;
  return ((k & ~low) << 1) | (k & low);
}

/// The pair of state indices the k-th iteration of a position swap (lo < hi) exchanges: (bit lo = 1,
/// bit hi = 0) and (bit lo = 0, bit hi = 1), the other bits k's in order; k < 2^(n-2).
KOKKOS_INLINE_FUNCTION Kokkos::pair<std::uint64_t, std::uint64_t> swap_pair(std::uint64_t k, int lo, int hi) {
  const std::uint64_t base = insert_zero_bit(insert_zero_bit(k, lo), hi);
  return {base | (std::uint64_t(1) << lo), base | (std::uint64_t(1) << hi)};
}

/// Exchanges bit positions a and b of the state's index in place (a != b, both < n): every amplitude
/// whose bits a and b differ trades places with its partner; one pass over half of the state.
template <class Space, class C>
void swap_positions(const Space& space, Kokkos::View<C*, typename Space::memory_space> state, int n, int a, int b) {
  const int lo = a < b ? a : b, hi = a < b ? b : a;
  Kokkos::parallel_for(
      "qsim::swap_positions", tcemu::app::Range64<Space>(space, 0, std::int64_t(1) << (n - 2)),
      KOKKOS_LAMBDA(const std::int64_t k) {
        const auto ij = swap_pair(std::uint64_t(k), lo, hi);
        const C t = state(ij.first);
        state(ij.first) = state(ij.second);
        state(ij.second) = t;
      });
}

/// True when `Space` runs on the host (there a permutation copies runs of elements per iteration; on
/// a GPU every element is one thread, or tiles go through team scratch memory).
template <class Space>
constexpr bool runs_on_host() {
  return Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Space::memory_space>::accessible;
}

/// dst = src permuted by `plan` (qubit_layout.hpp, PermutationPlan: tables at 0, tiles after), as a
/// gather: new index i reads old(i). On the host one iteration copies a run of 2^run_bits elements.
/// On a GPU each team first stages the four byte tables (4 x 256 words) in team scratch memory and
/// then gathers kGatherPerTeam consecutive elements, four per thread and step: the tables read from
/// global memory for every element cost about 22 ms per 30-qubit fp32 run on an H100 (docs/qsim.md),
/// which the former CUDA kernel avoided the same way (its tables in shared memory).
template <class Space, class C>
void permute_gather(const Space& space, Kokkos::View<const C*, typename Space::memory_space> src,
                    Kokkos::View<C*, typename Space::memory_space> dst,
                    Kokkos::View<const std::uint32_t*, typename Space::memory_space> plan, int n, int run_bits) {
  if constexpr (runs_on_host<Space>()) {
    const int chunk_bits = std::min(run_bits, n);
    const std::int64_t chunks = std::int64_t(1) << (n - chunk_bits);
    const std::uint64_t run = std::uint64_t(1) << chunk_bits;
    Kokkos::parallel_for(
        "qsim::permute_gather", tcemu::app::Range64<Space>(space, 0, chunks),
        KOKKOS_LAMBDA(const std::int64_t k) {
          const std::uint64_t i = std::uint64_t(k) << chunk_bits;
          const std::uint64_t old = plan(i & 255) | plan(256 + ((i >> 8) & 255)) | plan(512 + ((i >> 16) & 255)) |
                                    plan(768 + ((i >> 24) & 255));
          for (std::uint64_t j = 0; j < run; ++j) dst(i + j) = src(old + j);
        });
  } else {
    using Policy = Kokkos::TeamPolicy<Space>;
    using Member = typename Policy::member_type;
    using Tables = Kokkos::View<std::uint32_t*, typename Space::scratch_memory_space, Kokkos::MemoryUnmanaged>;
    constexpr std::int64_t kGatherPerTeam = std::int64_t(1) << 15;  // 128 elements per thread of 256
    constexpr int kInFlight = 4;  // independent loads per thread and step (the gather is latency-bound)
    const std::int64_t size = std::int64_t(1) << n;
    const std::int64_t per_team = std::min(size, kGatherPerTeam);
    const std::int64_t quarter = per_team >= kInFlight ? per_team / kInFlight : per_team;  // per_team: a power of 2
    const int parts = per_team >= kInFlight ? kInFlight : 1;
    const int league = static_cast<int>((size + per_team - 1) / per_team);
    const int team = static_cast<int>(std::min<std::int64_t>(256, quarter));
    Kokkos::parallel_for(
        "qsim::permute_gather",
        Policy(space, league, team).set_scratch_size(0, Kokkos::PerTeam(Tables::shmem_size(4 * 256))),
        KOKKOS_LAMBDA(const Member& member) {
          Tables t(member.team_scratch(0), 4 * 256);
          Kokkos::parallel_for(Kokkos::TeamThreadRange(member, 4 * 256), [&](const int j) { t(j) = plan(j); });
          member.team_barrier();
          const std::uint64_t base = std::uint64_t(member.league_rank()) * std::uint64_t(per_team);
          // Step j moves elements j, j + quarter, j + 2 quarter, j + 3 quarter of the team's range:
          // consecutive threads on consecutive elements, four loads in flight per thread.
          Kokkos::parallel_for(Kokkos::TeamThreadRange(member, quarter), [&](const std::int64_t j) {
            std::uint64_t old[kInFlight];
            C v[kInFlight];
            for (int q = 0; q < kInFlight; ++q) {
              const std::uint64_t i = base + std::uint64_t(j + q * quarter);
              old[q] = t(i & 255) | t(256 + ((i >> 8) & 255)) | t(512 + ((i >> 16) & 255)) | t(768 + ((i >> 24) & 255));
            }
            for (int q = 0; q < kInFlight; ++q)
              if (q < parts) v[q] = src(old[q]);
            for (int q = 0; q < kInFlight; ++q)
              if (q < parts) dst(base + std::uint64_t(j + q * quarter)) = v[q];
          });
        });
  }
}

/// The same permutation tile by tile through team scratch memory (PermutationPlan's tile tables):
/// 2^tile_bits elements read with consecutive threads on consecutive src addresses and written with
/// consecutive threads on consecutive dst addresses, so that both sides move whole 32-element runs.
template <class Space, class T>
void permute_tiled(const Space& space, Kokkos::View<const Kokkos::complex<T>*, typename Space::memory_space> src,
                   Kokkos::View<Kokkos::complex<T>*, typename Space::memory_space> dst,
                   Kokkos::View<const std::uint32_t*, typename Space::memory_space> plan, int tile_bits,
                   std::uint64_t tiles) {
  using Policy = Kokkos::TeamPolicy<Space>;
  using Member = typename Policy::member_type;
  using Words = Kokkos::View<std::uint32_t*, typename Space::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  using Reals = Kokkos::View<T*, typename Space::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  const int count = 1 << tile_bits;
  // The tile as 2*count reals: scratch memory is only guaranteed 8-byte alignment.
  const std::size_t bytes = 2 * Words::shmem_size(1024) + 3 * Words::shmem_size(count) + Reals::shmem_size(2 * count);
  const int team = runs_on_host<Space>() ? 1 : 256;  // host: used by the tests only (the gather runs there)
  const int league = static_cast<int>(std::min<std::uint64_t>(tiles, 132u * 8));
  using PP = PermutationPlan;
  Kokkos::parallel_for(
      "qsim::permute_tiled", Policy(space, league, team).set_scratch_size(0, Kokkos::PerTeam(bytes)),
      KOKKOS_LAMBDA(const Member& m) {
        Words t(m.team_scratch(0), 1024), base(m.team_scratch(0), 1024), dst_off(m.team_scratch(0), count),
            src_off(m.team_scratch(0), count), w2r(m.team_scratch(0), count);
        Reals tile(m.team_scratch(0), 2 * count);
        Kokkos::parallel_for(Kokkos::TeamThreadRange(m, 1024), [&](const int i) {
          t(i) = plan(PP::kTables + i);
          base(i) = plan(PP::kBase + i);
        });
        Kokkos::parallel_for(Kokkos::TeamThreadRange(m, count), [&](const int i) {
          dst_off(i) = plan(PP::kDstOffset + i);
          src_off(i) = plan(PP::kSrcOffset + i);
          w2r(i) = plan(PP::kDstToSrc + i);
        });
        m.team_barrier();
        for (std::uint64_t b = std::uint64_t(m.league_rank()); b < tiles; b += std::uint64_t(m.league_size())) {
          const std::uint32_t db = base(b & 255) | base(256 + ((b >> 8) & 255)) | base(512 + ((b >> 16) & 255)) |
                                   base(768 + ((b >> 24) & 255));
          const std::uint32_t sb = t(db & 255) | t(256 + ((db >> 8) & 255)) | t(512 + ((db >> 16) & 255)) |
                                   t(768 + ((db >> 24) & 255));
          Kokkos::parallel_for(Kokkos::TeamThreadRange(m, count), [&](const int r) {
            const Kokkos::complex<T> z = src(std::uint64_t(sb | src_off(r)));
            tile(2 * r) = z.real();
            tile(2 * r + 1) = z.imag();
          });
          m.team_barrier();
          Kokkos::parallel_for(Kokkos::TeamThreadRange(m, count), [&](const int w) {
            const std::uint32_t r = w2r(w);
            dst(std::uint64_t(db | dst_off(w))) = Kokkos::complex<T>(tile(2 * r), tile(2 * r + 1));
          });
          m.team_barrier();
        }
      });
}

/// ||state||^2 in FP64 as a Kokkos reduction on `space`. On the host each iteration sums a chunk of
/// 4096 amplitudes and the reduction adds the chunk sums (a blocked sum like state_metrics.hpp's
/// norm_squared, so that 2^30 terms keep ~1e-15 relative accuracy); on a GPU each amplitude is one
/// iteration of the backend's tree reduction.
template <class Space, class C>
double state_norm_squared(const Space& space, Kokkos::View<const C*, typename Space::memory_space> state) {
  const std::uint64_t size = state.extent(0);
  const int chunk_bits = runs_on_host<Space>() ? 12 : 0;
  const std::uint64_t chunk = std::uint64_t(1) << chunk_bits;
  double norm = 0;
  Kokkos::parallel_reduce(
      "qsim::norm_squared",
      tcemu::app::Range64<Space>(space, 0, std::int64_t((size + chunk - 1) >> chunk_bits)),
      KOKKOS_LAMBDA(const std::int64_t c, double& acc) {
        const std::uint64_t b = std::uint64_t(c) << chunk_bits, e = b + chunk < size ? b + chunk : size;
        double nn = 0;
        for (std::uint64_t k = b; k < e; ++k) {
          const C z = state(k);
          nn += double(z.real()) * z.real() + double(z.imag()) * z.imag();
        }
        acc += nn;
      },
      norm);
  return norm;
}

/// Accuracy of `state` (Space's memory, canonical order, unscaled, complex<T>) against `reference`
/// (host memory, 2^n complex128) as Kokkos reductions on `space`, one source for the host and a GPU:
/// the overlap <ref|psi> (real and imaginary part), ||psi||^2 and max_k |psi_k - ref_k|, in FP64. On
/// the host the reference is read where it lies and each iteration sums a chunk of 4096 amplitudes
/// (a blocked sum like compare_states'; the order in which the chunk sums combine is the host backend's); on a GPU the reference goes up in pieces of
/// `piece` amplitudes (a device buffer of 16 x piece bytes) and each amplitude is one iteration. The
/// state itself never leaves the space. Without a reference: the norm only, the rest NaN.
template <class Space, class C>
Accuracy measure_state(const Space& space, Kokkos::View<const C*, typename Space::memory_space> state,
                       const std::complex<double>* reference, std::uint64_t piece);

/// The sums behind measure_state, before they are combined (so that runs over MPI ranks can add the
/// ranks' sums first, distributed_engine.hpp): ||psi||^2, the overlap <ref|psi> and the largest
/// |psi_k - ref_k|^2; without a reference the overlap and error stay 0.
struct StateSums {
  double norm = 0, overlap_re = 0, overlap_im = 0, max_err2 = 0;
};

/// measure_state's reductions (same order, same operations), returned as sums.
template <class Space, class C>
StateSums state_sums(const Space& space, Kokkos::View<const C*, typename Space::memory_space> state,
                     const std::complex<double>* reference, std::uint64_t piece) {
  using Mem = typename Space::memory_space;
  using Z = Kokkos::complex<double>;
  using HostRef = Kokkos::View<const Z*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  StateSums sums;
  sums.norm = state_norm_squared<Space, C>(space, state);
  if (!reference) return sums;
  const std::uint64_t size = state.extent(0);
  const int chunk_bits = runs_on_host<Space>() ? 12 : 0;
  const std::uint64_t chunk = std::uint64_t(1) << chunk_bits;
  const HostRef host_ref(reinterpret_cast<const Z*>(reference), size);
  Kokkos::View<Z*, Mem> ref_piece;
  if constexpr (!runs_on_host<Space>())
    ref_piece = Kokkos::View<Z*, Mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "qsim::reference_piece"),
                                      std::min(size, piece));
  double re = 0, im = 0, err2 = 0;
  const std::uint64_t step = runs_on_host<Space>() ? size : ref_piece.extent(0);
  for (std::uint64_t first = 0; first < size; first += step) {
    const std::uint64_t count = std::min(step, size - first);
    Kokkos::View<const Z*, Mem> ref;
    if constexpr (runs_on_host<Space>()) {
      ref = host_ref;
    } else {
      Kokkos::deep_copy(space, Kokkos::subview(ref_piece, std::make_pair(std::size_t(0), std::size_t(count))),
                        Kokkos::subview(host_ref, std::make_pair(std::size_t(first), std::size_t(first + count))));
      ref = ref_piece;  // its first `count` amplitudes: reference amplitudes first..first+count-1
    }
    const std::uint64_t offset = runs_on_host<Space>() ? 0 : first;  // ref index = state index - offset
    const std::uint64_t begin = first, end = first + count;
    const tcemu::app::Range64<Space> policy(space, 0,
                                                                            std::int64_t((count + chunk - 1) >> chunk_bits));
    // One reduction per quantity (the built-in sum and max, shared by Kokkos 3.4 and 4): the pieces
    // are read three times, still far below the upload's cost on a GPU. Iteration c covers state
    // indices [begin + c chunk, min(end, begin + (c + 1) chunk)).
    double part_re = 0, part_im = 0, part_err2 = 0;
    Kokkos::parallel_reduce(
        "qsim::overlap_re", policy,
        KOKKOS_LAMBDA(const std::int64_t c, double& acc) {
          const std::uint64_t b = begin + (std::uint64_t(c) << chunk_bits), e = b + chunk < end ? b + chunk : end;
          double s = 0;
          for (std::uint64_t k = b; k < e; ++k) {
            const Z r = ref(k - offset);
            const C z = state(k);
            s += r.real() * double(z.real()) + r.imag() * double(z.imag());
          }
          acc += s;
        },
        part_re);
    Kokkos::parallel_reduce(
        "qsim::overlap_im", policy,
        KOKKOS_LAMBDA(const std::int64_t c, double& acc) {
          const std::uint64_t b = begin + (std::uint64_t(c) << chunk_bits), e = b + chunk < end ? b + chunk : end;
          double s = 0;
          for (std::uint64_t k = b; k < e; ++k) {
            const Z r = ref(k - offset);
            const C z = state(k);
            s += r.real() * double(z.imag()) - r.imag() * double(z.real());
          }
          acc += s;
        },
        part_im);
    Kokkos::parallel_reduce(  // the largest |psi_k - ref_k|^2 (its square root taken once, below)
        "qsim::max_amp_err", policy,
        KOKKOS_LAMBDA(const std::int64_t c, double& acc) {
          const std::uint64_t b = begin + (std::uint64_t(c) << chunk_bits), e = b + chunk < end ? b + chunk : end;
          for (std::uint64_t k = b; k < e; ++k) {
            const Z r = ref(k - offset);
            const C z = state(k);
            const double dr = double(z.real()) - r.real(), di = double(z.imag()) - r.imag();
            const double e2 = dr * dr + di * di;
            if (e2 > acc) acc = e2;
          }
        },
        Kokkos::Max<double>(part_err2));
    re += part_re;
    im += part_im;
    err2 = part_err2 > err2 ? part_err2 : err2;
  }
  sums.overlap_re = re;
  sums.overlap_im = im;
  sums.max_err2 = err2;
  return sums;
}

/// Accuracy from the (possibly rank-summed) sums: fidelity |<ref|psi>|^2, max amplitude error, norm
/// and drift; without a reference fidelity and max_amp_err are NaN.
inline Accuracy accuracy_from(const StateSums& sums, bool have_reference) {
  Accuracy a;
  a.norm = sums.norm;
  a.norm_drift = a.norm > 1.0 ? a.norm - 1.0 : 1.0 - a.norm;
  if (!have_reference) {
    a.fidelity = a.max_amp_err = std::nan("");
    return a;
  }
  a.fidelity = sums.overlap_re * sums.overlap_re + sums.overlap_im * sums.overlap_im;
  a.max_amp_err = std::sqrt(sums.max_err2);
  return a;
}

template <class Space, class C>
Accuracy measure_state(const Space& space, Kokkos::View<const C*, typename Space::memory_space> state,
                       const std::complex<double>* reference, std::uint64_t piece) {
  return accuracy_from(state_sums<Space, C>(space, state, reference, piece), reference != nullptr);
}

/// Applies `blocks` in order to the state in `buf` (canonical order in, canonical order out; n qubits;
/// two buffers of 2^n elements, or single-buffer mode: `other` empty and a chunk buffer), permuting
/// (two buffers) or swapping positions (one) as simulate.hpp describes. buf.cur holds the result (the
/// buffers may have been swapped). Adds to `stats` (blocks, permutations, position swaps, in-place
/// blocks, GEMM and permutation time, GEMM reports; not `seconds`). Throws tcemu::InvalidArgument
/// when a block does not fit n qubits or the buffers do not fit the mode; what the GEMMs throw.
template <class Space, class T>
void apply_blocks(const Space& space, StateBuffers<Space, T>& buf, int n, const std::vector<Block>& blocks,
                  const SimOptions& options, SimStats& st) {
  using C = Kokkos::complex<T>;
  using SC = std::complex<T>;
  using Mem = typename Space::memory_space;
  using tcemu::app::Clock;
  using tcemu::app::seconds_since;
  const std::uint64_t size = std::uint64_t(1) << n;
  const bool single = buf.single();
  const std::uint64_t chunk = buf.chunk.extent(0);
  if (buf.cur.extent(0) != size || (!single && buf.other.extent(0) != size))
    throw tcemu::InvalidArgument("qsim: the state buffers hold " + std::to_string(buf.cur.extent(0)) + " and " +
                                 std::to_string(buf.other.extent(0)) + " amplitudes, not 2^" + std::to_string(n));
  if (single && (chunk < std::min(size, std::uint64_t(1) << kMaxBlockQubits) || (chunk & (chunk - 1)) != 0))
    throw tcemu::InvalidArgument("qsim: single-buffer mode needs a chunk buffer of a power of two >= min(2^n, 2^" +
                                 std::to_string(kMaxBlockQubits) + ") amplitudes, not " + std::to_string(chunk));
  if (!single && n > kMaxPermutationQubits)
    throw tcemu::InvalidArgument("qsim: " + std::to_string(n) + " qubits need single-buffer mode (two-buffer permutations hold " +
                                 std::to_string(kMaxPermutationQubits) + "-bit indices)");
  if (single) st.single_buffer = true;
  BlockGemm<Space, T> gemm(space, options);
  const PermuteKernel permute_kernel = permute_kernel_from_environment();
  Kokkos::View<std::uint32_t*, Mem> plan_dev("qsim::permutation_plan", PermutationPlan::kWords);
  auto plan_host = Kokkos::create_mirror_view(plan_dev);
  Kokkos::View<C*, Mem> u_dev("qsim::block_matrix", std::size_t(1) << (2 * kMaxBlockQubits));
  Layout layout = Layout::identity(n);
  auto permute_to = [&](const Layout& target) {
    const auto t0 = Clock::now();
    if (single) {  // in place: one position swap per position that must change
      for (const auto& [a, b] : position_swaps(layout, target)) {
        swap_positions<Space, C>(space, buf.cur, n, a, b);
        ++st.position_swaps;
      }
      space.fence();
      layout = target;
      st.seconds_permute += seconds_since(t0);
      ++st.permutations;
      return;
    }
    const PermutationTables t = permutation_tables(layout, target);
    const bool tiled = !runs_on_host<Space>() && t.run_bits < 5 && n >= 10 && permute_kernel != PermuteKernel::gather;
    const PermutationPlan p = permutation_plan(t, tiled);
    std::copy(p.words.begin(), p.words.end(), plan_host.data());
    Kokkos::deep_copy(space, plan_dev, plan_host);
    const Kokkos::View<const C*, Mem> src = buf.cur;
    const Kokkos::View<const std::uint32_t*, Mem> plan = plan_dev;
    if (!tiled) {
      permute_gather<Space, C>(space, src, buf.other, plan, n, t.run_bits);
    } else {
      const std::uint64_t tiles = size >> p.tile_bits;
      if (permute_kernel != PermuteKernel::hand ||
          !gemm.permute_tiled(buf.cur.data(), buf.other.data(), plan_dev.data(), p.tile_bits, tiles))
        permute_tiled<Space, T>(space, src, buf.other, plan, p.tile_bits, tiles);
    }
    space.fence();
    std::swap(buf.cur, buf.other);
    layout = target;
    st.seconds_permute += seconds_since(t0);
    ++st.permutations;
  };
  std::vector<SC> host_u;
  for (std::size_t bi = 0; bi < blocks.size(); ++bi) {
    const Block& blk = blocks[bi];
    const int s = static_cast<int>(blk.qubits.size());
    const int c = static_cast<int>(blk.controls.size());
    if (s < 1 || s + c > n || s > kMaxBlockQubits)
      throw tcemu::InvalidArgument("block " + std::to_string(bi) + " does not fit the circuit");
    if (c == 0) {  // in place, where the backend can (no permutation: one pass over the state)
      std::vector<int> order = blk.qubits;  // by position, low to high: bit b of U's index = order[b]
      std::sort(order.begin(), order.end(), [&](int p, int q) { return layout.position_of[p] < layout.position_of[q]; });
      std::vector<int> positions;
      for (int q : order) positions.push_back(layout.position_of[q]);
      std::string note;
      const auto t0 = Clock::now();
      C* const y = single ? buf.cur.data() : buf.other.data();
      const InPlace r = gemm.in_place(buf.cur.data(), y, n, positions,
                                      [&] { return block_matrix<T>(reorder_matrix(blk.matrix, blk.qubits, order)); }, note);
      if (r != InPlace::unsupported) st.seconds_gemm += seconds_since(t0);
      // rejected: the kernel never ran (the state is intact in either mode): the block takes the
      // GEMM path below. declined: with two buffers x is intact and the block takes that path too;
      // in single-buffer mode the kernel wrote over x and there is no copy to redo the block from,
      // so the range policy decides: error stops the run, fallback and ignore keep the kernel's
      // result, fallback reporting it as a fallback with the rule that was broken.
      const bool kept = single && r == InPlace::declined;
      if (r == InPlace::declined || r == InPlace::rejected) {
        ++st.in_place_declined;
        if (kept && options.gemm.range_policy == tcemu::RangePolicy::error)
          throw tcemu::InvalidArgument("block " + std::to_string(bi) + ": the in-place " + options.gemm.scheme.name +
                                       " kernel found a row breaking its range rule in single-buffer mode (no copy "
                                       "to redo the block from): " + note);
        if (st.gemm.first_note.empty())
          st.gemm.first_note = kept ? "in-place kernel declined in single-buffer mode (no copy to redo the block "
                                      "from: kept its result): " + note
                                    : "in-place kernel declined: " + note;
      }
      if (r == InPlace::applied || kept) {
        if (!single) std::swap(buf.cur, buf.other);
        tcemu::GemmReport rep;
        rep.requested = rep.used = options.gemm.scheme;
        if (kept && options.gemm.range_policy == tcemu::RangePolicy::fallback) {
          rep.fell_back = true;
          rep.note = options.gemm.scheme.name + " kept in place: " + note;
        }
        record(st, rep);
        ++st.blocks;
        ++st.in_place;
        if (options.progress) options.progress(bi + 1, blocks.size());
        continue;
      }
    }
    // `high` (one GEMM over the whole 2^s x 2^(n-s) view) only where one call may see the whole state.
    const bool high_ok = gemm.allow_high() && !single && std::int64_t(size) <= kMaxGemmElements;
    const BlockPlan plan = blk.controls.empty() ? plan_dense(layout, blk.qubits, high_ok)
                                                : plan_controlled(layout, blk.qubits, blk.controls);
    auto upload_u = [&](const std::vector<int>& order) {  // U re-indexed to `order`, into u_dev
      host_u = block_matrix<T>(reorder_matrix(blk.matrix, blk.qubits, order));
      Kokkos::deep_copy(space, Kokkos::subview(u_dev, std::make_pair(std::size_t(0), host_u.size())),
                        Kokkos::View<const C*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
                            reinterpret_cast<const C*>(host_u.data()), host_u.size()));
    };
    const std::int64_t d = std::int64_t(1) << s, rows = static_cast<std::int64_t>(size >> s);
    if (plan.permute && c == 0 && !single && options.gather_permutations) {
      // The backend's GEMM may read the state through the permutation itself (no permutation pass:
      // BlockGemm::gathered), into the order-keeping layout whose low rows share their sectors; it
      // writes the block's result in that layout as permute + GEMM would.
      const BlockPlan in_order = plan_dense_in_order(layout, blk.qubits);
      upload_u(in_order.order);
      tcemu::GemmReport rep;
      const auto t0 = Clock::now();
      const bool done = gemm.gathered(buf.cur.data(), buf.other.data(), s, source_positions(layout, in_order.layout),
                                      u_dev.data(), rep);
      space.fence();
      st.seconds_gemm += seconds_since(t0);
      if (done) {
        std::swap(buf.cur, buf.other);
        layout = in_order.layout;
        record(st, rep);
        ++st.blocks;
        ++st.gathered;
        if (options.progress) options.progress(bi + 1, blocks.size());
        continue;
      }
    }
    if (plan.permute) permute_to(plan.layout);
    upload_u(plan.order);
    const SC* cur = reinterpret_cast<const SC*>(buf.cur.data());
    SC* other = reinterpret_cast<SC*>(single ? buf.chunk.data() : buf.other.data());
    const auto U = tcemu::row_major<const SC>(reinterpret_cast<const SC*>(u_dev.data()), d, d);
    const auto t0 = Clock::now();
    tcemu::GemmReport rep;
    bool have_rep = false;
    // Rows [first, first + count) of the low view times U^T, in chunks of at most chunk_rows rows: two
    // buffers write `other`'s same rows; one buffer writes the chunk buffer and copies it back over
    // the rows it read. The report kept is the first chunk's, or the first that fell back.
    const std::int64_t chunk_rows =
        std::max<std::int64_t>(1, (single ? std::int64_t(chunk) : kMaxGemmElements) >> s);
    auto low_rows = [&](std::int64_t first, std::int64_t count) {
      for (std::int64_t r0 = first; r0 < first + count; r0 += chunk_rows) {
        const std::int64_t m = std::min(chunk_rows, first + count - r0);
        SC* out = single ? other : other + r0 * d;
        tcemu::GemmReport ri = gemm.gemm(tcemu::Op::N, tcemu::Op::T, tcemu::row_major<const SC>(cur + r0 * d, m, d), U,
                                         tcemu::row_major<SC>(out, m, d));
        if (single) {
          const auto range = std::make_pair(std::size_t(r0 * d), std::size_t((r0 + m) * d));
          Kokkos::deep_copy(space, Kokkos::subview(buf.cur, range),
                            Kokkos::subview(buf.chunk, std::make_pair(std::size_t(0), std::size_t(m * d))));
        }
        if (!have_rep || (ri.fell_back && !rep.fell_back)) rep = std::move(ri);
        have_rep = true;
      }
    };
    if (c > 0) {  // controls at the top positions: only the last rows change
      const std::int64_t count = rows >> c, first_row = rows - count;
      low_rows(first_row, count);
      if (!single) {
        const auto range = std::make_pair(std::size_t(first_row * d), std::size_t(rows * d));
        Kokkos::deep_copy(space, Kokkos::subview(buf.cur, range), Kokkos::subview(buf.other, range));
      }
    } else if (plan.placement == Placement::low) {
      low_rows(0, rows);
      if (!single) std::swap(buf.cur, buf.other);
    } else {  // two buffers only (single-buffer mode plans `low`)
      rep = gemm.gemm(tcemu::Op::N, tcemu::Op::N, U, tcemu::row_major<const SC>(cur, d, rows),
                      tcemu::row_major<SC>(other, d, rows));
      std::swap(buf.cur, buf.other);
    }
    space.fence();
    st.seconds_gemm += seconds_since(t0);
    record(st, rep);
    ++st.blocks;
    if (options.progress) options.progress(bi + 1, blocks.size());
  }
  if (!layout.is_identity()) permute_to(Layout::identity(n));
}

/// The buffers of a run of `size` amplitudes in `buffers` mode (two state buffers, or one plus a
/// chunk buffer of chunk_elements amplitudes, kSingleBufferChunk when 0, at most `size`), uninitialised.
/// On the host the first buffer is `host_result` itself (resized to `size`: the run's result vector,
/// wrapped unmanaged); on a GPU every buffer is allocated in Space's memory.
template <class Space, class T>
StateBuffers<Space, T> allocate_state_buffers(std::size_t size, BufferMode buffers, std::int64_t chunk_elements,
                                              std::vector<std::complex<T>>& host_result) {
  using C = Kokkos::complex<T>;
  using View = typename StateBuffers<Space, T>::View;
  StateBuffers<Space, T> buf;
  if constexpr (runs_on_host<Space>()) {
    host_result.resize(size);
    buf.cur = View(reinterpret_cast<C*>(host_result.data()), size);  // unmanaged: the result vector
  } else {
    buf.cur = View(Kokkos::view_alloc(Kokkos::WithoutInitializing, "qsim::state_a"), size);
  }
  if (buffers == BufferMode::single) {
    const std::int64_t chunk = chunk_elements > 0 ? chunk_elements : kSingleBufferChunk;
    buf.chunk = View(Kokkos::view_alloc(Kokkos::WithoutInitializing, "qsim::chunk"),
                     std::min<std::size_t>(size, static_cast<std::size_t>(chunk)));
  } else {
    buf.other = View(Kokkos::view_alloc(Kokkos::WithoutInitializing, "qsim::state_b"), size);
  }
  return buf;
}

/// simulate() on `Space` (simulate.hpp) with `buffers` (two or single, already decided against the
/// memory): allocates the state buffers in Space's memory (on the host the first one is the result
/// vector itself), starts from sigma |0...0>, applies the blocks, divides by sigma, measures the
/// state (measure_state: against options.reference when given, else its norm) and copies it to the
/// result (a GPU's only with options.download). `seconds` ends before the measurement and a device's
/// final copy to the host (they are not simulation time). Throws tcemu::InvalidArgument when the
/// reference is not 2^n amplitudes.
template <class Space, class T>
SimResult<T> simulate_on(const Space& space, const std::vector<Block>& blocks, int n, const SimOptions& options,
                         BufferMode buffers) {
  using C = Kokkos::complex<T>;
  using View = typename StateBuffers<Space, T>::View;
  using HostView = Kokkos::View<C*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using tcemu::app::Clock;
  using tcemu::app::seconds_since;
  const auto t_start = Clock::now();
  SimResult<T> res;
  const std::size_t size = std::size_t(1) << n;
  StateBuffers<Space, T> buf = allocate_state_buffers<Space, T>(size, buffers, options.chunk_elements, res.state);
  const T sigma = static_cast<T>(state_scale(n));
  {
    auto a = buf.cur;
    Kokkos::parallel_for(
        "qsim::initial_state", tcemu::app::Range64<Space>(space, 0, std::int64_t(size)),
        KOKKOS_LAMBDA(const std::int64_t i) { a(i) = C(i == 0 ? sigma : T(0), T(0)); });
  }
  apply_blocks<Space, T>(space, buf, n, blocks, options, res.stats);
  {
    auto a = buf.cur;
    const T inv = static_cast<T>(1.0 / state_scale(n));
    Kokkos::parallel_for(
        "qsim::unscale", tcemu::app::Range64<Space>(space, 0, std::int64_t(size)),
        KOKKOS_LAMBDA(const std::int64_t i) { a(i) *= inv; });
  }
  space.fence();
  const std::complex<double>* reference = nullptr;
  if (options.reference) {
    if (options.reference->size() != size)
      throw tcemu::InvalidArgument("qsim: the reference state has " + std::to_string(options.reference->size()) +
                                   " amplitudes, not 2^" + std::to_string(n));
    reference = options.reference->data();
  }
  if constexpr (runs_on_host<Space>()) {  // the result vector is a buffer: copy only if the other holds it
    if (buf.cur.data() != reinterpret_cast<C*>(res.state.data())) {
      Kokkos::deep_copy(space, HostView(reinterpret_cast<C*>(res.state.data()), size), buf.cur);
      space.fence();
    }
    res.stats.seconds = seconds_since(t_start);
    res.accuracy = measure_state<Space, C>(space, buf.cur, reference, size);
  } else {
    res.stats.seconds = seconds_since(t_start);
    buf.other = View();  // room for the reference's pieces (the state is in buf.cur)
    buf.chunk = View();
    const std::int64_t piece = options.chunk_elements > 0 ? options.chunk_elements : kSingleBufferChunk;
    res.accuracy = measure_state<Space, C>(space, buf.cur, reference, std::uint64_t(piece));
    if (options.download) {
      res.state.resize(size);
      Kokkos::deep_copy(space, HostView(reinterpret_cast<C*>(res.state.data()), size), buf.cur);
      space.fence();
    }
  }
  res.norm_squared = res.accuracy.norm;
  return res;
}

// The engine's templates that hold Kokkos lambdas and are used by more than one translation unit
// are instantiated once per space: in simulate.cpp (host) and simulate_cuda.cpp (GPU), declared
// `extern` everywhere else (the MPI runs, distributed*.cpp). In CUDA builds nvcc's host-device lambda
// wrappers are numbered per translation unit, and with state_sums instantiated in two of them the
// linker kept a copy whose wrapper called through a null pointer (seen on an H100, docs/scaling.md).
#define TCEMU_QSIM_ENGINE_INSTANCES(EXTERN, SPACE, T)                                                           \
  EXTERN template StateSums state_sums<SPACE, Kokkos::complex<T>>(                                              \
      const SPACE&, Kokkos::View<const Kokkos::complex<T>*, SPACE::memory_space>, const std::complex<double>*, \
      std::uint64_t);                                                                                            \
  EXTERN template void apply_blocks<SPACE, T>(const SPACE&, StateBuffers<SPACE, T>&, int, const std::vector<Block>&, \
                                              const SimOptions&, SimStats&);                                     \
  EXTERN template void swap_positions<SPACE, Kokkos::complex<T>>(                                               \
      const SPACE&, Kokkos::View<Kokkos::complex<T>*, SPACE::memory_space>, int, int, int);
TCEMU_QSIM_ENGINE_INSTANCES(extern, Kokkos::DefaultHostExecutionSpace, float)
TCEMU_QSIM_ENGINE_INSTANCES(extern, Kokkos::DefaultHostExecutionSpace, double)
#if defined(KOKKOS_ENABLE_CUDA)
TCEMU_QSIM_ENGINE_INSTANCES(extern, Kokkos::Cuda, float)
TCEMU_QSIM_ENGINE_INSTANCES(extern, Kokkos::Cuda, double)
#endif

}  // namespace qsim::engine
