#pragma once
/// \file job.hpp
/// One qsim job: fuse the circuit once, simulate it with the FP64 reference and then with every
/// requested scheme, and measure each result against the reference.
#include <complex>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "circuit.hpp"
#include "fusion.hpp"
#include "simulate.hpp"
#include "state_metrics.hpp"
#include "tcemu/scheme.hpp"

namespace qsim {

/// Largest circuit whose full final state is written to --output (2^20 amplitudes = 16 MiB per
/// scheme); above it only the requested amplitudes and the samples are written.
constexpr int kMaxSavedStateQubits = 20;

/// Most samples per scheme (--shots): 80 MB of int64 samples per scheme, kept for every scheme.
constexpr std::int64_t kMaxShots = 10'000'000;

/// What to run.
struct RunConfig {
  std::vector<tcemu::Scheme> schemes;  ///< in order; fp64 always runs first as the reference
  int fuse = 5;                        ///< --fuse d
  Device device = Device::host;        ///< already resolved (host or cuda)
  std::int64_t shots = 0;              ///< samples per scheme (0: none)
  std::uint64_t seed = 1;              ///< sampling seed (the same for every scheme)
  std::vector<std::string> amplitudes; ///< bitstrings whose amplitudes are reported
  bool keep_states = false;            ///< keep final states (for --output, n <= kMaxSavedStateQubits)
  /// What a block GEMM does when an operand leaves the scheme's range (tcemu::RangePolicy).
  tcemu::RangePolicy range_policy = tcemu::RangePolicy::fallback;
  /// GPU implementation of the multi-part schemes (tcemu::ExecutionPolicy::kernels; automatic keeps
  /// the environment's choice, app_common/environment.hpp; the host ignores it).
  tcemu::CudaKernels cuda_kernels = tcemu::CudaKernels::automatic;
  /// State buffers of every run (simulate.hpp, BufferMode; `--buffers`).
  BufferMode buffers = BufferMode::automatic;
  /// Run the fp64 reference first and measure every run against it. false (`--no-reference`, for
  /// states whose complex128 copy does not fit): only the requested schemes run, each reports its
  /// norm and norm drift, fidelity and max_amp_err are NaN.
  bool reference = true;
  /// Progress sink (one line, no newline); empty: silent.
  std::function<void(const std::string&)> log;
};

/// Result of one scheme.
struct SchemeRun {
  tcemu::Scheme scheme;            ///< as requested
  std::string used;                ///< what the block GEMMs ran: "fp16x2", or "int8-ozaki:7 x40, int8-ozaki:8 x2"
  const char* precision = "";      ///< "complex64" or "complex128": the state vector's type
  SimStats stats;
  Accuracy accuracy;               ///< against the fp64 run (exactly 1 / 0 / drift for fp64 itself; NaN / NaN / drift without it)
  std::vector<std::complex<double>> amplitudes;  ///< of RunConfig::amplitudes, in order
  std::vector<std::uint64_t> samples;            ///< classical register values (state_metrics.hpp)
  std::int64_t samples_differing = 0;            ///< samples unequal to the fp64 run's (same seed)
  std::vector<std::complex<double>> state;       ///< final state when RunConfig::keep_states
  /// `auto` with the FP32 target: what it chose and why (AutoConfig::summary, auto_config.hpp); "" otherwise.
  std::string auto_choice;
};

/// Whole job.
struct JobResult {
  FusionSummary fusion;
  double seconds_fusion = 0;
  std::vector<SchemeRun> runs;  ///< runs[0] is the fp64 reference, then the schemes in order
};

/// Bytes of host memory per amplitude a two-buffer host run of `scheme` needs: the complex128
/// reference state (kept for the comparisons), two state buffers of the scheme's type, the complex
/// GEMM's real/imaginary temporaries and the split parts/packing of the host backend (upper estimate).
double host_bytes_per_amplitude(const tcemu::Scheme& scheme);
/// Bytes of host memory a host run of `scheme` on n qubits needs with `buffers` (automatic: two up to
/// kMaxPermutationQubits: resolve_host_buffers, simulate.hpp): two: 2^n host_bytes_per_amplitude; single: the
/// reference, the state, and a chunk buffer with the chunk GEMM's workspace (5 chunks); without
/// `reference` the reference's 16 bytes per amplitude are left out.
double host_bytes_needed(const tcemu::Scheme& scheme, int num_qubits, BufferMode buffers = BufferMode::automatic,
                         bool reference = true);
/// Memory the machine has available now (MemAvailable), in bytes.
double available_memory_bytes();
/// The host memory of a job's largest host run on n qubits (host_bytes_needed of each scheme and, when
/// `reference`, of the fp64 reference) and that run's scheme (`worst`, when not null; untouched when
/// `schemes` is empty and there is no reference). check_memory's rule, and each rank's over MPI.
double host_job_bytes(const std::vector<tcemu::Scheme>& schemes, int num_qubits, BufferMode buffers, bool reference,
                      tcemu::Scheme* worst = nullptr);
/// The host memory of a GPU job on n qubits: the complex128 reference (when `reference`) and one state
/// of the widest run brought down (check_device_memory's host rule, and each rank's over MPI).
double host_bytes_of_gpu_job(const std::vector<tcemu::Scheme>& schemes, int num_qubits, bool reference);
/// Throws tcemu::InvalidArgument when the circuit's largest host run (host_bytes_needed; the fp64
/// reference's too when `reference`) does not fit in `available` bytes: "circuit 'X' (28 qubits): the
/// fp64 run needs about 25769803776 bytes (24.0 GiB) of host memory (...), but only 23299948544 bytes
/// (21.7 GiB) are available".
void check_memory(const Circuit& circuit, const std::vector<tcemu::Scheme>& schemes, double available,
                  BufferMode buffers = BufferMode::automatic, bool reference = true);

/// Checks a GPU job before anything is allocated. GPU: the largest run (the fp64 reference when
/// `reference`, else the widest requested state) must fit in `free_bytes` in the buffer mode it will
/// get (choose_buffers, simulate.hpp: two buffers where they fit, else one). Host: the complex128
/// reference (when `reference`) and one downloaded state of the widest other run (an upper bound: a
/// state comes down only for amplitudes, samples or saved states) must fit in `available_host` bytes. Throws tcemu::InvalidArgument in one line naming the circuit, qubits,
/// bytes needed and bytes free: "circuit 'X' (35 qubits): the fp32 run needs 277025390592 bytes
/// (258.0 GiB) of GPU memory in single-buffer mode (...), but only ... bytes (...) are free on the GPU".
void check_device_memory(const Circuit& circuit, const std::vector<tcemu::Scheme>& schemes, double free_bytes,
                         double available_host, BufferMode buffers = BufferMode::automatic, bool reference = true);

/// True when the scheme keeps the state in complex128 (fp64 and the FP64-target schemes).
bool uses_double(const tcemu::Scheme& scheme);

/// The schemes qsim sweeps for `--scheme <list> --target <target>`: `parsed` (the list parsed for
/// the target), plus int8-crt (Ozaki scheme II, FP64 target: complex128 state, each block GEMM one
/// real int8-crt product on the real embedding with its certified N, or native FP64 where none is
/// certified) at the end when the target is fp64 and the list is `all` and does not hold it already:
/// the catalogue leaves int8-crt out of `all`, but it is the FP64-target scheme of complex128 runs.
std::vector<tcemu::Scheme> schemes_for_target(std::vector<tcemu::Scheme> parsed, const std::string& list,
                                              tcemu::Target target);

/// Runs the job (see the file comment). `auto` with the FP32 target runs the configuration
/// choose_auto_config picks (auto_config.hpp: scheme and path at config.fuse); with
/// config.log set its explanation is logged. The circuit must be validated. Throws what simulate() throws,
/// and tcemu::InvalidArgument for an amplitude bitstring of the wrong length.
JobResult run_job(const Circuit& circuit, const RunConfig& config);

}  // namespace qsim
