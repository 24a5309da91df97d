#pragma once
/// \file simulate.hpp
/// State-vector simulation of fused blocks, each block applied as one complex GEMM through tcemu.
///
/// The state of n qubits is 2^n amplitudes, complex64 (T = float, FP32-target schemes) or complex128
/// (T = double: fp64 and FP64-target schemes), held in two buffers: one GEMM (or permutation) reads
/// one and writes the other, then they swap (single-buffer mode below when two do not fit). Per block
/// (qubit_layout.hpp):
///   1. plan: are the block's qubits already the lowest (or highest) bit positions of the stored
///      index? If not, permute the state (one gather pass) so that they are the lowest. (The GPU
///      path, while its complex GEMM uses the real embedding, accepts only the lowest: see
///      simulate_cuda.cpp and docs/qsim.md);
///   2. re-index the block matrix U to the order its qubits have in the layout; round it to T;
///   3. GEMM: low placement M' = M U^T with M the row-major 2^(n-s) x 2^s view; high placement
///      M' = U M with M the row-major 2^s x 2^(n-s) view; a controlled block runs M' = M U^T on the
///      last 2^(n-s-c) rows only (controls at the top positions) and copies them back;
/// and at the end the state is permuted back to the canonical order (qubit q = bit q). A block GEMM
/// sees at most kMaxGemmElements amplitudes: larger states plan `low` only and run it in row chunks
/// (the rows of the low placement are independent), so that no GEMM call indexes more than 2^31 reals.
///
/// Single-buffer mode (BufferMode::single; chosen when two buffers and workspace do not fit, above
/// kMaxPermutationQubits, or forced by `--buffers single`): one state buffer plus a chunk buffer of
/// kSingleBufferChunk amplitudes. Permutations become in-place position swaps (each exchanges two
/// bit positions: a pass over half of the state; position_swaps, qubit_layout.hpp); dense blocks are
/// planned `low` only; a block GEMM runs chunk by chunk of rows into the chunk buffer, copied back
/// over the rows it read (a chunk's rows are read whole before they are written). The in-place
/// bit-indexed kernel (GPU, fp16x2-aligned) runs with y == x (its tiles read every element they
/// write before writing; tcemu/cuda/bit_gemm.hpp). When it rejects U before running, the block takes
/// the chunked GEMM; when a row of the state breaks its range rule while it runs, there is no copy to
/// redo the block from: RangePolicy::error stops the run (InvalidArgument), fallback keeps the
/// kernel's result and reports it as a fallback, ignore keeps it silently (each counted in
/// in_place_declined). Every scheme keeps its arithmetic: only the data movement differs.
///
/// Scaling: the state is stored multiplied by sigma = 2^min(12, floor(n/2)) (exact, a power of two),
/// so that typical amplitudes of a spread-out state are O(1) instead of 2^(-n/2). This keeps the
/// amplitudes inside the full-precision exponent range of the FP16-based splits (2^-14 and up) on
/// large circuits, while |amplitude| <= sigma <= 2^12 stays below their overflow bound (2^15).
/// The result is divided by sigma again; native fp32/fp64 results are unchanged by it bit for bit.
///
/// Rounding noise in block matrices: products of gate matrices leave parts like cos(pi/2) = 6e-17
/// where the exact value is 0. tcemu's complex GEMM multiplies real and imaginary parts separately, and
/// its range check would see a row of U whose imaginary parts are all ~1e-17 as a line "below the
/// full-precision range" and send the whole block to native FP32. For complex64 runs (T = float),
/// block_matrix() therefore sets real or imaginary parts below 2^-40 max|U| to exactly 0 before
/// rounding U to float: a change 2^16 times below FP32's resolution. complex128 runs use U unchanged.
#include <complex>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "app_common/gemm_log.hpp"
#include "fusion.hpp"
#include "state_metrics.hpp"
#include "tcemu/gemm.hpp"

#include "app_common/device.hpp"

namespace qsim {

/// Where the simulation runs (`--device`; app_common/device.hpp): host = Kokkos Views on
/// DefaultHostExecutionSpace and tcemu's host backend, cuda = Views on Kokkos::Cuda and
/// tcemu::cuda::complex_gemm_device (simulate_engine.hpp: one source for both).
using Device = tcemu::app::Device;

/// How many state buffers a run holds (file comment): automatic picks two where they fit (GPU: free
/// memory, choose_buffers; host: n <= kMaxPermutationQubits) and single otherwise.
enum class BufferMode { automatic, two, single };

/// "auto", "two", "single".
const char* to_string(BufferMode mode);
/// The BufferMode of `--buffers auto|two|single`; throws tcemu::InvalidArgument naming the value.
BufferMode parse_buffer_mode(const std::string& name);

/// SimOptions::gather_permutations from TCEMU_QSIM_GATHER: unset, empty or "on" -> true, "off" ->
/// false; another value throws tcemu::InvalidArgument "TCEMU_QSIM_GATHER=<value>: expected on or off".
bool gather_from_environment();

/// Largest block GEMM in amplitudes (2^30: 2^31 reals in complex64's real embedding); larger
/// states run each block GEMM in row chunks of this size.
constexpr std::int64_t kMaxGemmElements = std::int64_t(1) << 30;
/// Amplitudes of single-buffer mode's chunk buffer (2 GiB in complex128).
constexpr std::int64_t kSingleBufferChunk = std::int64_t(1) << 27;

/// Options of one simulation.
struct SimOptions {
  tcemu::GemmOptions gemm;   ///< scheme (and range policy) of every block GEMM
  Device device = Device::host;
  BufferMode buffers = BufferMode::automatic;  ///< two state buffers or one (file comment)
  /// The state the run is measured against (host memory, 2^n amplitudes, canonical order, the fp64
  /// run's): SimResult::accuracy then holds fidelity, max amplitude error and norm, computed by
  /// Kokkos reductions where the run ran (simulate_engine.hpp, measure_state); null: the norm only.
  const std::vector<std::complex<double>>* reference = nullptr;
  /// false: a GPU run leaves its final state on the GPU (SimResult::state stays empty; the norm is
  /// still measured there): for runs whose state nothing on the host reads (no reference to compare
  /// with, no amplitudes, samples or saved states), which saves the copy and its host memory (64 GiB
  /// at 33 qubits in complex64). Host runs always return the state (it is their buffer).
  bool download = true;
  /// Index bits of the largest vector one call of the GPU's bit-indexed kernel takes (its tables are
  /// 32-bit); larger states run it per segment of 2^bits amplitudes when the block's positions lie
  /// below `bits`. Tests set it small to run the per-segment path on small states.
  int in_place_segment_bits = 32;
  /// Whether a block whose qubits must move may skip the permutation pass where the backend's GEMM
  /// reads the state through it (BlockGemm::gathered: the GPU's int8-crt with N given, two buffers,
  /// docs/qsim.md "Permutations read in place"); false: every such block is permuted first. The app
  /// sets it from TCEMU_QSIM_GATHER (gather_from_environment).
  bool gather_permutations = true;
  /// Single-buffer mode's chunk buffer in amplitudes (a power of two >= 2^kMaxBlockQubits; 0:
  /// kSingleBufferChunk), also the pieces in which a GPU run uploads the reference to measure
  /// against it. Tests set it small to run several chunks on small states.
  std::int64_t chunk_elements = 0;
  /// Called after each block with (blocks done, blocks total); may print progress.
  std::function<void(std::size_t, std::size_t)> progress;
};

/// What a simulation did (seconds are wall clock).
struct SimStats {
  double seconds = 0;          ///< whole simulation: init, blocks, final permutation, unscaling
  double seconds_gemm = 0;     ///< inside the complex GEMM calls (split, products, combine)
  double seconds_permute = 0;  ///< state permutations
  double seconds_exchange = 0; ///< over MPI ranks: the global<->local swaps (pack, exchange, unpack)
  std::int64_t blocks = 0, permutations = 0;
  /// Blocks applied in place by the bit-indexed kernel (GPU, fp16x2-aligned, 4-6 qubits; no
  /// permutation: tcemu/cuda/bit_gemm.hpp), and attempts it declined (a range rule; the block then
  /// took the permute + GEMM path, except a row-rule decline in single-buffer mode: simulate.hpp).
  std::int64_t in_place = 0, in_place_declined = 0;
  /// Blocks whose GEMM read the state through the permutation instead of a permutation pass
  /// (SimOptions::gather_permutations; not counted in `permutations`).
  std::int64_t gathered = 0;
  /// Single-buffer mode: true when the run held one state buffer; position_swaps counts the in-place
  /// position swaps that replaced permutations (`permutations` counts layout changes either way).
  bool single_buffer = false;
  std::int64_t position_swaps = 0;
  /// The block GEMMs' reports folded: schemes that really ran with their counts, fallbacks to native
  /// arithmetic (the range check), the first note (a fallback's, or why the in-place kernel declined).
  tcemu::app::GemmLog gemm;
};

/// Final state (canonical order, unscaled) and statistics.
template <class T>
struct SimResult {
  /// 2^n amplitudes; index bit q = qubit q. Empty when SimOptions::download was false (GPU runs).
  std::vector<std::complex<T>> state;
  /// ||psi||^2 in FP64, a Kokkos reduction on the run's execution space before the state leaves it
  /// (on the host in chunks of 4096 added in order, as norm_squared in state_metrics.hpp does).
  double norm_squared = 0;
  /// Against SimOptions::reference when given (fidelity |<ref|psi>|^2, max |psi_k - ref_k|, norm,
  /// drift; the same Kokkos reductions); without one fidelity and max_amp_err are NaN.
  Accuracy accuracy;
  SimStats stats;
};

/// The scale sigma of the stored state for n qubits (see the file comment).
double state_scale(int num_qubits);

/// Simulates `blocks` on n qubits from |0...0> (see the file comment). T = float or double.
/// options.device auto runs on the GPU when gpu_path_built() and a GPU is present. Throws
/// tcemu::InvalidArgument (bad block, or the state does not fit in the GPU's memory),
/// tcemu::DeviceError (cuda requested but unavailable, or a CUDA failure), std::bad_alloc when the
/// state does not fit in host memory.
template <class T>
SimResult<T> simulate(const std::vector<Block>& blocks, int num_qubits, const SimOptions& options);

/// Host implementation of simulate() (simulate_engine.hpp on Kokkos::DefaultHostExecutionSpace).
template <class T>
SimResult<T> simulate_host(const std::vector<Block>& blocks, int num_qubits, const SimOptions& options);

/// Applies `blocks` in order to `state` (2^n amplitudes, canonical order: index bit q = qubit q, as
/// stored: scaled or not, the caller decides) on the host backend, permuting as simulate_host() does
/// and back to the canonical order at the end. Adds to `stats` (blocks, permutations, GEMM time and
/// reports; not `seconds`). Throws tcemu::InvalidArgument when state.size() != 2^n or a block does
/// not fit n qubits; what the GEMMs throw.
template <class T>
void apply_blocks_host(std::vector<std::complex<T>>& state, int n, const std::vector<Block>& blocks,
                       const SimOptions& options, SimStats& stats);

/// GPU implementation of simulate(): the same step (simulate_engine.hpp) on Kokkos::Cuda
/// (simulate_cuda.cpp). Throws tcemu::InvalidArgument when the state and its work buffers do not fit
/// in the GPU's free memory (check_device_memory_for), tcemu::DeviceError in builds without the GPU
/// path (gpu_path_built()).
template <class T>
SimResult<T> simulate_cuda(const std::vector<Block>& blocks, int num_qubits, const SimOptions& options);

/// True when this build has qsim's GPU path: tcemu's CUDA backend (TCEMU_ENABLE_CUDA) and a Kokkos
/// with the CUDA backend (KOKKOS_ENABLE_CUDA; docs/kokkos.md).
bool gpu_path_built();

/// The device of `--device name` for qsim: where the GPU path is built, `resolve()` (the apps' shared
/// resolution, app_common/device.hpp: it also loads the GPU cost model); without it `auto` becomes
/// host and `cuda` throws tcemu::DeviceError naming what the build lacks.
Device resolve_qsim_device(const std::string& name, const std::function<Device()>& resolve);

/// Free memory of the current GPU now (cudaMemGetInfo), in bytes; throws tcemu::DeviceError without
/// the GPU path or on a CUDA failure.
double free_device_memory_bytes();

/// GPU bytes per amplitude of a two-buffer simulation with complex<T> amplitudes: the two state
/// buffers and the block GEMM's workspace (at most about one more state: split parts of the state
/// operand).
template <class T>
constexpr double device_bytes_per_amplitude() {
  return 3.0 * 2.0 * sizeof(T);
}

/// Bytes a run of n qubits with complex<T> amplitudes needs on its device in `mode` (two or single):
/// two: 2^n * device_bytes_per_amplitude<T>(); single: the state, the chunk buffer and the chunk
/// GEMM's workspace (about two more chunks), 2^n + 3 min(2^n, chunk) amplitudes (chunk 0:
/// kSingleBufferChunk).
template <class T>
double device_bytes_needed(int num_qubits, BufferMode mode, std::int64_t chunk_elements = 0);

/// Throws tcemu::InvalidArgument ("--buffers two: N qubits need single-buffer mode ...") when
/// `requested` is two and num_qubits > kMaxPermutationQubits (the two-buffer permutations' indices).
void check_buffer_request(BufferMode requested, int num_qubits);

/// The buffer mode of a host run: automatic is two buffers up to kMaxPermutationQubits and single
/// beyond; two and single as requested (check_buffer_request rejects an impossible two). The host's
/// memory is checked apart (job.hpp, check_memory).
BufferMode resolve_host_buffers(BufferMode requested, int num_qubits);

/// What a GPU run's state buffers need (plan_device_buffers): the mode, its bytes and whether they
/// fit; `shortfall` is the phrase every caller's error message uses when they do not: "needs
/// 277025390592 bytes (258.0 GiB) of GPU memory in single-buffer mode (one state buffer, a chunk
/// buffer and GEMM workspace), but only ... bytes (...) are free".
struct GpuBufferPlan {
  BufferMode mode = BufferMode::two;
  double bytes_needed = 0;  ///< device bytes of `mode` (device_bytes_needed)
  bool fits = true;
  std::string shortfall;  ///< "" when fits
};

/// The buffer mode of a GPU run with `free_bytes` of free GPU memory (cudaMemGetInfo), decided before
/// anything is allocated: `requested` two or single (two also needs n <= kMaxPermutationQubits);
/// automatic: two where it fits, else single. Does not throw for lack of memory (fits = false);
/// throws tcemu::InvalidArgument for an impossible two (check_buffer_request).
template <class T>
GpuBufferPlan plan_device_buffers(int num_qubits, double free_bytes, BufferMode requested = BufferMode::automatic,
                                     std::int64_t chunk_elements = 0);

/// plan_device_buffers' mode, or tcemu::InvalidArgument when it does not fit, one line naming the
/// qubit count, the bytes needed and the bytes free: "--device cuda: the state of 35 qubits
/// (complex64) " + GpuBufferPlan::shortfall.
template <class T>
BufferMode choose_buffers(int num_qubits, double free_bytes, BufferMode requested = BufferMode::automatic,
                          std::int64_t chunk_elements = 0);

/// choose_buffers<T>(num_qubits, free_bytes) for its error only (kept for callers that only check).
template <class T>
void check_device_memory_for(int num_qubits, double free_bytes);

/// "103079215104 bytes (96.0 GiB)": a memory size for error messages.
std::string bytes_text(double bytes);

/// The block matrix in the state's precision T (see the file comment on rounding noise), row-major.
template <class T>
std::vector<std::complex<T>> block_matrix(const Matrix& m);

/// Records one GEMM report in `stats` (used-scheme histogram, fallbacks).
void record(SimStats& stats, const tcemu::GemmReport& report);

}  // namespace qsim
