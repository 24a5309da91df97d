#pragma once
/// \file outputs.hpp
/// qsim's outputs: the table on stdout, the --json object, and the --output HDF5 file.
#include <string>

#include "job.hpp"
#include "app_common/io/hdf5.hpp"

namespace qsim {

/// What the report needs to know about the job besides the results.
struct ReportContext {
  const Circuit* circuit = nullptr;
  int fuse = 0;
  Device device = Device::host;
  std::vector<std::string> bitstrings;  ///< --amplitudes, in order
  std::int64_t shots = 0;
  std::uint64_t seed = 0;
};

/// Prints the circuit/fusion summary and one row per scheme: scheme, used, state type, time_ms,
/// speedup over the native run of the same state type (fp32 for complex64, fp64 for complex128),
/// GEMM share, permutations, fallbacks, 1 - fidelity, max_amp_err, norm drift; then the requested
/// amplitudes and the most frequent fp64 samples.
void print_table(const JobResult& job, const ReportContext& ctx);

/// Prints one JSON object on one line:
/// {"app":"qsim","circuit":...,"num_qubits":...,"gates":...,"fuse":...,"blocks":...,"device":...,
///  "results":[{"scheme","used","precision","time_ms","gemm_ms","gemm_share","permute_ms","permutations",
///  "fidelity","infidelity","max_amp_err","norm","norm_drift","fallbacks","samples_differing",
///  "amplitudes":[{"bitstring","re","im"}], "auto_choice" (FP32-target auto only: AutoConfig::summary)}]}
void print_json(const JobResult& job, const ReportContext& ctx);

/// Writes --output into `out` and commits it (the Writer's tmp + rename: nothing half-written is left
/// if anything fails before the commit). Root attributes: circuit, num_qubits, fuse, shots, seed, bitstrings
/// (comma-separated). Per scheme, group /<scheme>/ with time_ms, gemm_ms, fidelity, max_amp_err, norm
/// (float64 [1]), amplitudes (float64 [k, 2], when --amplitudes), samples (int64 [shots], classical
/// register values, when --shots), and state (float64 [2^n, 2], canonical order, only when
/// n <= kMaxSavedStateQubits).
void write_output(tcemu::app::io::Writer& out, const JobResult& job, const ReportContext& ctx);


}  // namespace qsim
