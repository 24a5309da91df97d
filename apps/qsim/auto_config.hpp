#pragma once
/// \file auto_config.hpp
/// qsim's `auto` (FP32 target): the fastest configuration -- scheme, fusion width, in place or
/// permuted -- whose predicted infidelity keeps the fidelity against the fp64 run >= 1 - 1e-6
/// (issue 20). Decided once per job, before any simulation, from the fused circuit, core's cost model
/// (tcemu/select.hpp, docs/cost-model.md) and the scheme descriptors' error bounds; the report shows the
/// choice and every candidate (AutoConfig::explain, like core's Plan::explain).
///
/// Rule. Candidates: every FP32-target catalogue scheme that meets FP32 (Scheme::meets, i.e. at least
/// 22 bits) with a fixed part count, times every fusion width offered. The job offers one width,
/// --fuse: the in-place kernel's time per block is not a smooth function of the width (H200, 30
/// qubits: 10.1, 13.1 and 10.0 ms per block at d = 4, 5, 6; docs/history/2026-11-22-qsim-gpu-
/// sessions-2-5.md, session 5), which this model would get wrong (it predicts d = 5 fastest), and
/// core's calibration does not time that kernel. Per block of s qubits (c controls) of an n-qubit complex64 state, rows = 2^(n-s-c):
///   - path: in place when the simulator's bit-indexed kernel takes the block (`InPlaceSupport`, on
///     the GPU tcemu::cuda::BitGemm::supports; the simulator always takes it then), else permuted;
///   - time, permuted: one permutation (read + write of the state at the model's bandwidth) plus
///     CostModel::predict_seconds of the real-embedded GEMM rows x 2^(s+1) x 2^(s+1) (the measured fit
///     of the scheme where the model has one, else its rate formula: at qsim's shapes, 2^20+ rows,
///     the fixed costs the rate formula leaves out are negligible and it includes the split passes);
///     in place: one read + one write of the state plus the scheme's products at its part's rate (the
///     kernel splits in registers; no permutation, no split pass);
///   - infidelity (per block, u = 2^-precision_bits, the descriptor's normwise bound): schemes whose
///     sums are biased -- a truncating split (Markidis, LE-GEMM, Ozaki slices, CRT, MixPert tiles), or
///     on the GPU the per-element Tensor Core splits (families one_pass and parts with FP16 / BF16 /
///     TF32 parts), whose unaligned hi x hi sums the Tensor Cores truncate (docs/accuracy.md,
///     docs/qsim.md "Session 7") -- lose u of the norm per block, so 1 - F = sum_b u; the others
///     (native, line-aligned, host splits: every sum rounds to nearest) drift as a random walk over
///     blocks and over the block's 2^s amplitudes: 1 - F = sqrt(sum_b u^2 / 2^s_b).
///   Check against measurements (docs/qsim.md): fp16x2 on the GPU, 28 qubits, 58 blocks of <= 6:
///   predicted 1.4e-5, measured 1.65e-5; fp16x2-aligned, 30 qubits --fuse 6: predicted 2.4e-7,
///   measured 1.8e-7; native fp32, 28 qubits: 5.7e-8 against 2.7e-8; host int8-ozaki (20 qubits, 48
///   blocks): 2.9e-6 against 1.0e-6.
/// A configuration is eligible when its predicted 1 - F <= the limit; the fastest eligible one wins
/// (ties: catalogue order, then the wider fusion). Native fp32 is always a candidate; when none is
/// eligible (a circuit too deep for FP32 itself), the most accurate configuration is taken and the
/// explanation says so.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "circuit.hpp"
#include "simulate.hpp"
#include "tcemu/scheme.hpp"
#include "tcemu/select.hpp"

namespace qsim {

/// The fidelity auto keeps: 1 - F <= 1e-6 against the fp64 run (issue 20).
inline constexpr double kAutoInfidelityLimit = 1e-6;

/// Whether the simulator applies a dense block of d qubits of an n-qubit complex64 state in place
/// (bit-indexed kernel, no permutation) with `scheme`. An empty function: never.
using InPlaceSupport = std::function<bool(const tcemu::Scheme& scheme, int d, int n)>;

/// The blocks of one fusion width: per block its qubit count s and control count c.
struct FusionOption {
  int fuse = 0;                        ///< the --fuse width that produced the blocks
  std::vector<int> block_qubits;       ///< s per block, in order
  std::vector<int> block_controls;     ///< c per block (same length)
};

/// One (scheme, fusion width) configuration as auto saw it.
struct AutoCandidate {
  tcemu::Scheme scheme;
  int fuse = 0;
  std::int64_t blocks = 0, in_place_blocks = 0;  ///< blocks, and of those the ones run in place
  double predicted_seconds = 0;                 ///< all blocks (permutations included)
  double predicted_infidelity = 0;              ///< 1 - F, see the file comment
  bool biased = false;                          ///< norm loss per block (linear) or random walk
  bool eligible = false;                        ///< predicted_infidelity <= the limit
  std::string cost_source;                      ///< "fit" (measured), "rates", or "fit + rates"
};

/// What auto chose for the job, and why.
struct AutoConfig {
  AutoCandidate chosen;
  std::vector<AutoCandidate> candidates;  ///< every configuration considered, in catalogue order
  double limit = kAutoInfidelityLimit;
  std::string device;                     ///< the cost model's device
  bool none_eligible = false;             ///< no configuration met the limit: the most accurate ran
  /// One line for the report, e.g. "auto: fp16x2-aligned, --fuse 6, in place (63 blocks), predicted
  /// 459.1 ms, 1 - F 2.4e-07 <= 1e-06 (fastest of 4 eligible of 8); fp32 --fuse 6 predicted 1148 ms".
  std::string summary() const;
  /// Multi-line text: the rule, every candidate (time, infidelity, path, cost source, eligibility).
  std::string explain() const;
};

/// True when `scheme`'s block GEMMs lose norm systematically on `device` (see the file comment):
/// a truncating split rule, or on the GPU a one-pass / per-element split scheme with Tensor Core
/// parts (FP16, BF16, TF32).
bool biased_sums(const tcemu::Scheme& scheme, Device device);

/// Predicted 1 - F of running blocks of `block_qubits` qubits with `scheme` on `device` (file comment).
double predicted_infidelity(const tcemu::Scheme& scheme, const std::vector<int>& block_qubits, Device device);

/// Predicted seconds of one block of s qubits with c controls on an n-qubit complex64 state, in place
/// or permuted (file comment). Throws tcemu::InvalidArgument for an automatic scheme.
double predicted_block_seconds(const tcemu::Scheme& scheme, int s, int c, int n, bool in_place,
                               const tcemu::CostModel& model);

/// The configurations auto considers: native fp32 and every FP32-target catalogue scheme that
/// meets(fp32) with a fixed part count (parts > 0), in catalogue order.
std::vector<tcemu::Scheme> auto_schemes();

/// Chooses the configuration (file comment). `fusions`: one entry per fusion width (at least one).
/// Throws tcemu::InvalidArgument when `fusions` is empty or a block's lists disagree in length.
AutoConfig choose_auto_config(const std::vector<FusionOption>& fusions, int num_qubits, const tcemu::CostModel& model,
                              Device device, const InPlaceSupport& in_place, double limit = kAutoInfidelityLimit);

/// The fusion options of `circuit` for the given widths (fuse() of each). Throws
/// tcemu::InvalidArgument for a width outside 1..kMaxBlockQubits.
std::vector<FusionOption> fusion_options(const Circuit& circuit, const std::vector<int>& widths);

/// The simulator's in-place rule on `device`: tcemu::cuda::BitGemm::supports on the GPU (unless
/// TCEMU_QSIM_IN_PLACE=off), none on the host (auto_device.cpp). The GPU simulator
/// (simulate_cuda.cpp) applies exactly this rule, so auto predicts the path that runs.
InPlaceSupport auto_in_place_support(Device device);

}  // namespace qsim
