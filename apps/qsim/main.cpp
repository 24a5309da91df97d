// qsim: state-vector quantum circuit simulation with fused gates applied as tcemu's emulated complex
// GEMMs, every scheme side by side against the FP64 reference. See `qsim --help`.
#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "app_common/app_main.hpp"
#include "app_common/cli.hpp"
#include "app_common/mpi_session.hpp"
#include "app_common/paths.hpp"
#include "app_common/text.hpp"
#include "circuit_h5.hpp"
#include "circuit_generators.hpp"
#include "qasm.hpp"
#include "qasm_expr.hpp"
#include "outputs.hpp"
#include "job.hpp"
#include "tcemu/error.hpp"
#include "app_common/io/hdf5.hpp"
#include "tcemu/scheme.hpp"
#ifdef TCEMU_QSIM_HAVE_MPI
#include "distributed.hpp"
#endif

namespace {

const char* kDescription =
    "qsim - state-vector quantum circuit simulation with tcemu's emulated complex GEMMs.\n"
    "\n"
    "The state vector of n qubits (2^n complex amplitudes) evolves from |0...0> through the circuit.\n"
    "Consecutive gates are fused greedily into blocks of at most d qubits (--fuse d); each block is one\n"
    "2^s x 2^s unitary U applied as ONE complex GEMM M' = M U^T on the state viewed as a 2^(n-s) x 2^s\n"
    "matrix, after a qubit permutation that makes the block's qubits the lowest index bits (skipped when\n"
    "they already are, or are the highest). The GEMM runs with each tcemu scheme in turn: complex64\n"
    "state for FP32-target schemes, complex128 for fp64 and the FP64-target ones (--target fp64 makes\n"
    "int8-ozaki, int8-crt and auto FP64-target, and adds int8-crt, Ozaki scheme II with a certified\n"
    "modulus count per GEMM, to --scheme all). The native fp64 run always comes first and is the reference.\n";

const char* kFooter =
    "\nCircuits (exactly one of):\n"
    "  --qasm F.qasm      OpenQASM 2.0 with qelib1.inc (embedded); barrier ignored, final measure ->\n"
    "                     sampling; mid-circuit measure, reset after gates, if, opaque: rejected\n"
    "  --input F.h5       qsim circuit file (/circuit, layout in docs/qsim.md; --save-circuit writes one)\n"
    "  --generate SPEC    brickwork:n=28,depth=20,seed=1[,d=2]   Haar-random d-qubit bricks\n"
    "                     sycamore:n=20,depth=14,seed=1[,layout=line|grid]   sqrt(X/Y/W) + fSim(pi/2,pi/6)\n"
    "                     qft:n=16[,input=J]   QFT of basis state |J>\n"
    "                     ghz:n=20             (|0..0> + |1..1>)/sqrt(2)\n"
    "                     random:n=12,gates=200,seed=1[,targets=3,controls=2]\n"
    "  At most 34 qubits, and the state vectors must fit in memory, checked before any allocation (host\n"
    "  memory, or the GPU's free memory for --device cuda; the error names the bytes). A run holds two\n"
    "  state buffers plus GEMM workspace (48 B per amplitude in complex128, 24 B in complex64 on the GPU);\n"
    "  where they do not fit, or past 32 qubits, one (--buffers single: blocks applied chunk by chunk,\n"
    "  permutations as in-place position swaps; about 1.1x the state): on a 141 GB GPU 32 qubits fit in\n"
    "  complex128 and 33 in complex64. The host keeps the complex128 reference (--no-reference skips it).\n"
    "\nMetrics (one row per scheme, all against the fp64 run):\n"
    "  time_ms      wall clock of the simulation (blocks, permutations, GEMMs); vs_nat = time of native\n"
    "               fp32 (complex64 rows) or fp64 (complex128 rows) / this time; on the GPU the native\n"
    "               runs call cuBLAS CGEMM / ZGEMM (TCEMU_QSIM_NATIVE=tcemu: tcemu's SGEMM/DGEMM path)\n"
    "  gemm%        share of the time inside the complex GEMM calls; perms: state permutations\n"
    "               (fp16x2-aligned on the GPU applies dense 4-6-qubit blocks in place, without one;\n"
    "               --json counts them as in_place_blocks; TCEMU_QSIM_IN_PLACE=off disables it;\n"
    "               int8-crt:N reads a permuted block's state through the permutation instead:\n"
    "               gathered_blocks, TCEMU_QSIM_GATHER=off disables it)\n"
    "  fallb        block GEMMs the range check sent to native arithmetic (note names the first;\n"
    "               --range-policy ignore keeps the scheme: with the state scaling qsim applies, only\n"
    "               tiny-amplitude lines, whose absolute error stays negligible, trigger it)\n"
    "  1-fidelity   1 - |<psi_fp64|psi>|^2 (no renormalisation)\n"
    "  max_amp_err  max_k |psi_k - psi_fp64_k|;  norm_drift  | ||psi||^2 - 1 |\n"
    "\nFP32 fidelity on deep circuits: the standard splits (fp16x2, tf32x2, bf16x3) lose ~1e-7 of the norm\n"
    "per block to the Tensor Cores' truncation (1-F ~1e-5 after 40-60 blocks at 28-30 qubits);\n"
    "the line-aligned schemes (fp16x2-aligned, tf32x2-aligned, bf16x3-aligned) put hi parts on a\n"
    "per-line grid so those sums are exact (1-F 3e-8 to 2e-7 at 28-30 qubits). fp16x2-aligned on the\n"
    "GPU with --fuse 4..6 runs each block in place in one pass (no permutation; fastest):\n"
    "  qsim --generate brickwork:n=30,depth=20,seed=1 --fuse 6 --scheme fp32,fp16x2-aligned --device cuda\n"
    "  On a 141 GB GPU: 32 qubits against fp64 (single-buffer fp64 run), 33 in complex64 without it:\n"
    "  qsim --generate brickwork:n=32,depth=20,seed=1 --fuse 6 --scheme fp16x2-aligned --device cuda\n"
    "  qsim --generate brickwork:n=33,depth=20,seed=1 --fuse 6 --scheme fp16x2-aligned --no-reference --device cuda\n"
    "\nBitstrings (--amplitudes) are written highest qubit first: \"0011\" = qubits 0 and 1 set.\n"
    "\nOutput (--output O.h5, temporary name renamed on success): per scheme /<scheme>/{time_ms, gemm_ms,\n"
    "fidelity, max_amp_err, norm} (float64 [1]), amplitudes [k,2] (--amplitudes), samples int64 [shots]\n"
    "(--shots; classical register values, or basis indices without measure), state [2^n,2] (n <= 20 only).\n"
    "\nErrors print one line 'qsim: error: <file or option>: <problem>' and exit with status 2;\n"
    "no output file is created then. Inputs must be regular files; --output and --save-circuit are\n"
    "checked before any work and may not name an input. SIGINT/SIGTERM remove the temporary output\n"
    "(exit status 130/143).\n"
    "\nExamples:\n"
    "  qsim --generate brickwork:n=20,depth=20,seed=1 --fuse 5\n"
    "  qsim --qasm circuits/qft_n18.qasm --scheme fp32,fp16x2,tf32x2,bf16x3 --amplitudes 000000000000000000\n"
    "  qsim --generate brickwork:n=24,depth=20,seed=1 --scheme int8-ozaki,auto --target fp64 --json\n"
    "  qsim --generate brickwork:n=30,depth=20,seed=1 --scheme int8-crt --target fp64 --device cuda\n"
    "  qsim --qasm adder_n10.qasm --scheme fp16x2 --shots 1000 --output out.h5\n"
    "  qsim --generate sycamore:n=16,depth=12,seed=3 --save-circuit syc16.h5\n";

/// The --help footer: kFooter's examples plus the resource limits, from the constants that enforce them.
std::string footer() {
  const std::string limits =
      "\nLimits (each an error past it, checked before the memory or time it guards is spent):\n"
      "  qubits <= " + std::to_string(qsim::kMaxQubits) + "; gates <= " + std::to_string(qsim::kMaxGates) +
      " (after expanding gate definitions; any source);\n"
      "  classical bits <= " + std::to_string(qsim::kMaxClassicalBits) + " (samples keep the low 64); measurements <= " +
      std::to_string(qsim::kMaxMeasurements) + "; --shots <= " + std::to_string(qsim::kMaxShots) + ";\n"
      "  OpenQASM: the file and its includes <= " + std::to_string(qsim::kMaxQasmSourceBytes >> 20) +
      " MiB in all, includes nested <= " + std::to_string(qsim::kMaxIncludeDepth) + " levels (no cycles),\n"
      "  gate expansion <= " + std::to_string(qsim::kMaxExpansionSteps) +
      " steps (calls + expression operations), expressions nested <= " +
      std::to_string(qsim::qasm::kMaxExprNesting) + " levels\n"
      "  (parentheses, function calls, exponents), a gate's parameters <= " + std::to_string(qsim::kMaxGateParameters) +
      " and qubit arguments <= " + std::to_string(qsim::kMaxGateQubitArguments) + ".\n";
  std::string text = kFooter;
  const auto examples = text.find("\nExamples:");
  return text.insert(examples == std::string::npos ? text.size() : examples, limits);
}

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}


}  // namespace

int main(int argc, char** argv) {
  tcemu::app::MpiSession mpi(&argc, &argv);
  tcemu::app::CommandLine cli("qsim", kDescription, footer());
  std::string qasm_path, input, generator, output, save_circuit, amplitudes, range_policy = "fallback",
                                                                          kernels = "auto", buffers = "auto";
  bool no_reference = false;
  int fuse = 5;
  std::int64_t shots = 0;
  std::uint64_t seed = 1;
  auto* qasm_opt = cli.app.add_option("--qasm", qasm_path, "OpenQASM 2.0 circuit file");
  auto* input_opt = cli.app.add_option("-i,--input", input, "qsim HDF5 circuit file (/circuit)");
  auto* generate_opt = cli.app.add_option("-g,--generate", generator, "built-in circuit, e.g. brickwork:n=20,depth=20,seed=1");
  auto* output_opt =
      cli.app.add_option("-o,--output", output, "HDF5 file for metrics, amplitudes, samples (and states, n <= 20) per scheme");
  auto* save_opt = cli.app.add_option("--save-circuit", save_circuit, "write the circuit as a qsim HDF5 circuit file and exit");
  cli.app.add_option("-d,--fuse", fuse, "largest fused block, in qubits (1.." + std::to_string(qsim::kMaxBlockQubits) + ")")
      ->check(tcemu::app::integer_in(1, qsim::kMaxBlockQubits));
  cli.app.add_option("--range-policy", range_policy,
                 "block GEMM operand outside the scheme's range: fallback (native) | ignore | error");
  cli.app.add_option("--kernels", kernels,
                 "GPU implementation of the multi-part schemes: auto (= multipass) | multipass (cuBLAS products) | "
                 "fused (one kernel, round-to-nearest promotion of each Tensor Core partial sum: 6x less norm loss "
                 "per block on an H200, see docs/qsim.md)");
  cli.app.add_option("--buffers", buffers,
                 "state buffers per run: auto (two where they fit, else one) | two | single (one buffer: blocks "
                 "applied chunk by chunk, permutations as in-place position swaps; for states whose two copies do "
                 "not fit)");
  cli.app.add_flag("--no-reference", no_reference,
                   "skip the fp64 reference run (for states whose complex128 copy does not fit): only the listed "
                   "schemes run, each with its norm drift; fidelity and max_amp_err are nan");
  cli.app.add_option("--amplitudes", amplitudes, "comma-separated bitstrings whose amplitudes are printed");
  cli.app.add_option("--shots", shots, "measurement samples per scheme (0: none; at most " + std::to_string(qsim::kMaxShots) + ")")
      ->check(tcemu::app::integer_in(0, qsim::kMaxShots));
  cli.app.add_option("--seed", seed, "seed of the sampling (the same for every scheme)")->check(tcemu::app::unsigned_64());
  return cli.run(argc, argv, [&]() -> int {
    (void)cli.common.target();  // a bad --target is the first error reported, before the inputs' checks
    // Counted as given even when empty: --qasm "" is a bad file name, not a missing source.
    const int sources = int(qasm_opt->count() > 0) + int(input_opt->count() > 0) + int(generate_opt->count() > 0);
    if (sources != 1) throw tcemu::InvalidArgument("give exactly one of --qasm, --input, --generate");
    const qsim::Device device = qsim::resolve_qsim_device(cli.common.device_name, [&] { return cli.common.device(); });
    const auto schemes = qsim::schemes_for_target(cli.common.schemes(), cli.common.scheme_list, cli.common.target());
    tcemu::RangePolicy policy = tcemu::RangePolicy::fallback;
    if (range_policy == "fallback") policy = tcemu::RangePolicy::fallback;
    else if (range_policy == "ignore") policy = tcemu::RangePolicy::ignore;
    else if (range_policy == "error") policy = tcemu::RangePolicy::error;
    else throw tcemu::InvalidArgument("--range-policy '" + range_policy + "' is not one of: fallback, ignore, error");
    const qsim::BufferMode buffer_mode = qsim::parse_buffer_mode(buffers);
    tcemu::CudaKernels cuda_kernels = tcemu::CudaKernels::automatic;
    try {
      cuda_kernels = tcemu::parse_cuda_kernels(kernels);
    } catch (const tcemu::InvalidArgument&) {
      throw tcemu::InvalidArgument("--kernels '" + kernels + "' is not one of: auto, multipass, fused");
    }

    // Every path is checked before any work: inputs must be regular files (a FIFO would block, a
    // directory would read as an empty circuit), outputs must be creatable and must not be an input.
    std::vector<std::string> inputs = {qasm_path, input};
    for (const auto* given : {qasm_opt, input_opt, generate_opt})
      if (given->count() && given->as<std::string>().empty())
        throw tcemu::InvalidArgument(given->get_name() + ": the value is empty");
    if (qasm_opt->count()) tcemu::app::require_input_file(qasm_path);
    if (input_opt->count()) tcemu::app::require_input_file(input);
    if (save_opt->count()) tcemu::app::require_output_file("--save-circuit", save_circuit, inputs);
    if (output_opt->count()) tcemu::app::require_output_file("--output", output, inputs);
    tcemu::app::set_error_context(qasm_opt->count() ? qasm_path : input_opt->count() ? input : "--generate " + generator);

    std::vector<std::string> includes;
    qsim::Circuit circuit = qasm_opt->count()    ? qsim::load_qasm(qasm_path, {}, &includes)
                            : input_opt->count() ? qsim::load_circuit(input)
                                                 : qsim::generate(generator);
    // The files the program included are inputs too; they are known only now, still before any
    // output is opened.
    if (!includes.empty()) {
      inputs.insert(inputs.end(), includes.begin(), includes.end());
      if (save_opt->count()) tcemu::app::require_output_file("--save-circuit", save_circuit, inputs);
      if (output_opt->count()) tcemu::app::require_output_file("--output", output, inputs);
    }
    qsim::validate(circuit);
    if (save_opt->count()) {
      qsim::save_circuit(circuit, save_circuit);
      if (!cli.common.quiet)
        std::fprintf(stderr, "qsim: wrote %s (%d qubits, %zu gates)\n", tcemu::app::escape_control(save_circuit).c_str(),
                     circuit.num_qubits, circuit.gates.size());
      return 0;
    }
    qsim::RunConfig cfg;
    cfg.schemes = schemes;
    cfg.fuse = fuse;
    cfg.device = device;
    cfg.shots = shots;
    cfg.seed = seed;
    cfg.amplitudes = split_list(amplitudes);
    tcemu::app::naming_option("--amplitudes", [&] {  // fail before running
      for (const auto& b : cfg.amplitudes) qsim::parse_bitstring(b, circuit.num_qubits);
      return 0;
    });
    cfg.range_policy = policy;
    cfg.buffers = buffer_mode;
    cfg.reference = !no_reference;
    cfg.cuda_kernels = cuda_kernels;
    cfg.keep_states = output_opt->count() && circuit.num_qubits <= qsim::kMaxSavedStateQubits;
    const auto log_line = [](const std::string& line) { std::fprintf(stderr, "qsim: %s\n", line.c_str()); };
    // The report of a finished job (one process, or rank 0 of several): --output, then the table or JSON.
    const auto report = [&](const qsim::JobResult& job, tcemu::app::io::Writer* out) {
      qsim::ReportContext ctx;
      ctx.circuit = &circuit;
      ctx.fuse = fuse;
      ctx.device = device;
      ctx.bitstrings = cfg.amplitudes;
      ctx.shots = shots;
      ctx.seed = seed;
      if (out) qsim::write_output(*out, job, ctx);
      if (cli.common.json) qsim::print_json(job, ctx);
      else qsim::print_table(job, ctx);
    };
    if (mpi.size > 1) {  // the state over MPI_Comm_size ranks (distributed.hpp); rank 0 reports
#ifdef TCEMU_QSIM_HAVE_MPI
      // Refused before anything runs or is opened, on every rank alike (exit status 2, no abort).
      if (no_reference || buffer_mode != qsim::BufferMode::automatic)
        throw tcemu::InvalidArgument("qsim over MPI: --no-reference and --buffers need one rank so far");
      if (mpi.rank != 0) cfg.log = nullptr;
      else if (!cli.common.quiet) cfg.log = log_line;
      std::int64_t swaps = 0;
      std::string exchange;
      qsim::JobResult job;
      // Rank 0 writes --output (samples and states are gathered there), through a temporary that
      // is removed when anything fails; SIGTERM from mpirun (another rank failed) removes it too.
      std::unique_ptr<tcemu::app::io::Writer> out;
      try {
        if (output_opt->count() && mpi.rank == 0) out = std::make_unique<tcemu::app::io::Writer>(output);
        job = qsim::run_job_distributed(circuit, cfg, MPI_COMM_WORLD, &swaps, &exchange);
      } catch (const std::exception& e) {
        // A rank that fails alone leaves the others in a collective: stop them all (exit status 2)
        // after the one line (rank 0's; the other ranks' output is discarded), as hplai does.
        out.reset();
        tcemu::app::print_error("qsim", e.what());
        MPI_Abort(MPI_COMM_WORLD, 2);
      }
      if (mpi.rank != 0) return 0;
      if (!cli.common.quiet)
        std::fprintf(stderr, "qsim: %d MPI ranks on %s, %lld global<->local qubit swaps over all runs (exchange: %s)\n",
                     mpi.size, device == qsim::Device::cuda ? "GPUs" : "the host", static_cast<long long>(swaps),
                     exchange.c_str());
      report(job, out.get());
      return 0;
#endif
    }
    if (device == qsim::Device::host)
      qsim::check_memory(circuit, schemes, qsim::available_memory_bytes(), buffer_mode, cfg.reference);
    else
      qsim::check_device_memory(circuit, schemes, qsim::free_device_memory_bytes(), qsim::available_memory_bytes(),
                                buffer_mode, cfg.reference);
    if (!cli.common.quiet) cfg.log = log_line;
    // Open the output first: the Writer works on a temporary that is renamed on success and removed
    // when anything below throws or SIGINT/SIGTERM arrives (run_guarded installed the handlers).
    std::unique_ptr<tcemu::app::io::Writer> out;
    if (output_opt->count()) out = std::make_unique<tcemu::app::io::Writer>(output);

    report(qsim::run_job(circuit, cfg), out.get());
    return 0;
  });
}
