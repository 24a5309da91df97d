// hplai: the HPL-MxP (HPL-AI) mixed-precision benchmark with every tcemu scheme in the trailing
// updates, side by side with the FP64 baseline. See `hplai --help`.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <iostream>
#include <memory>
#include <new>
#include <string>
#include <unistd.h>
#include <vector>

#include "problem.hpp"
#include "report.hpp"
#include "run.hpp"
#include "app_common/app_main.hpp"
#include "app_common/cli.hpp"
#include "app_common/mpi_session.hpp"
#include "app_common/paths.hpp"
#include "tcemu/error.hpp"
#include "app_common/io/hdf5.hpp"
#include "tcemu/scheme.hpp"
#ifdef HPLAI_HAVE_MPI
#include "app_common/mpi_agreement.hpp"
#include "distributed.hpp"
#endif

namespace {

constexpr int kExitFail = 1;   // a scheme did not pass the residual check

const char* kDescription =
    "hplai - the HPL-MxP (formerly HPL-AI) mixed-precision benchmark with tcemu's emulated GEMMs.\n"
    "\n"
    "Solves a dense system A x = b to FP64 accuracy: a blocked right-looking LU factorisation without\n"
    "pivoting in low precision (block size --nb: per block column a panel factorisation, a triangular\n"
    "solve for the block row U12, and the trailing update A22 -= L21 U12, an emulated GEMM with the\n"
    "scheme), then FP64 refinement (GMRES preconditioned by the LU factors, or classical iterative\n"
    "refinement) until the benchmark's scaled residual is below 16. Each scheme is timed against the\n"
    "FP64 baseline, LU with partial pivoting (LAPACK dgetrf + dgetrs; cuSOLVER on the GPU).\n"
    "The matrix is the HPL-MxP generator's (uniform(-0.5,0.5) entries, diagonal = sum of the row's\n"
    "off-diagonal magnitudes, so LU without pivoting is stable), or /A and /b from --input.\n";

const char* kFooter =
    "\nInput (--input): /A n x n and /b n (float32 or float64, row-major as h5py writes them).\n"
    "\nWorking precision: FP32 storage for FP32-target schemes (fp32, tf32, bf16, fp16, fp16x2*,\n"
    "tf32x2*, bf16x3*, bf16x9, int8-mixpert; int8-ozaki and auto with --target fp32); FP64 storage for int8-ozaki and\n"
    "auto with --target fp64. The row 'fp64' is always the FP64 baseline (dgetrf, no refinement).\n"
    "\nMetrics (one row per scheme):\n"
    "  factor_ms    conversion to the working precision + LU factorisation\n"
    "  refine_ms    initial solve x0 = U^-1 L^-1 b + refinement (baseline: dgetrs)\n"
    "  time_ms      time to solution = factor_ms + refine_ms\n"
    "  GFLOP/s      HPL-MxP rate (2/3 n^3 + 3/2 n^2) / time\n"
    "  speedup      baseline time / time\n"
    "  iters        GMRES: preconditioned matrix-vector products; IR: correction steps\n"
    "  res0         scaled residual of x0 (how good the low-precision factors are)\n"
    "  scaled_res   ||Ax-b||_inf / ((||A||_inf ||x||_inf + ||b||_inf) n eps), eps = 2^-53; PASS < 16\n"
    "\nOutput (--output O.h5, written to a temporary name and renamed on success): per scheme\n"
    "/<scheme>/x (n float64) and /<scheme>/residual_history (scaled residual of each check).\n"
    "\nExit status: 0 every row passed, 1 some row failed the residual check, 2 bad input or usage\n"
    "(one line 'hplai: error: <problem>' on stderr).\n"
    "\nExamples:\n"
    "  hplai --n 2048 --scheme all\n"
    "  hplai --n 4096 --nb 256 --scheme fp32,fp16,bf16,fp16x2,bf16x3 --solver ir --json\n"
    "  hplai --input system.h5 --scheme int8-ozaki --target fp64\n"
    "  mpirun -np 4 hplai --n 8192 --grid 2x2 --scheme fp16x2   (an MPI build: 2x2 process grid)\n";

/// Host memory a run of order n needs: FP64 A, its FP64 copy for the baseline, the FP32 factors
/// (over a process grid: each of `ranks` ranks holds 1/ranks of A and of its factors, and the
/// `ranks_here` ranks on this host share its memory).
void check_memory(std::int64_t n, int ranks = 1, int ranks_here = 1) {
  const double need = 20.0 * static_cast<double>(n) * static_cast<double>(n) / ranks;
  const double have = static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGE_SIZE));
  if (have > 0 && need * ranks_here > have) {
    char buf[240];
    if (ranks_here <= 1)
      std::snprintf(buf, sizeof buf, "--n %lld needs about %.1f GiB of host memory; this machine has %.1f GiB",
                    static_cast<long long>(n), need / (1 << 30), have / (1 << 30));
    else
      std::snprintf(buf, sizeof buf,
                    "--n %lld needs about %.1f GiB of host memory per rank; this machine has %.1f GiB for its %d "
                    "ranks",
                    static_cast<long long>(n), need / (1 << 30), have / (1 << 30), ranks_here);
    throw tcemu::InvalidArgument(buf);
  }
}

void write_output(tcemu::app::io::Writer& out, const hplai::RunResult& res) {
  for (const auto& r : res.rows) {
    out.write<double>("/" + r.scheme + "/x", r.x, {static_cast<std::int64_t>(r.x.size())});
    out.write<double>("/" + r.scheme + "/residual_history", r.history,
                      {static_cast<std::int64_t>(r.history.size())});
    out.write_string_attribute("/" + r.scheme, "storage", r.storage);
    out.write_string_attribute("/" + r.scheme, "check", r.pass ? "PASS" : "FAIL");
  }
  out.write_string_attribute("/", "source", res.source);
  out.write_int_attribute("/", "n", res.n);
  out.write_int_attribute("/", "nb", res.nb);
  out.write_string_attribute("/", "solver", res.solver);
}


/// Runs `check` on every rank and, when `distributed`, agrees on its outcome before any collective:
/// a check that can fail on some ranks only (the memory of one node, the --output file rank 0
/// opens) would otherwise leave the other ranks waiting in the run's first collective for ever.
/// The failing rank rethrows its own error; the others report that a rank failed.
template <class Check>
void check_on_every_rank(bool distributed, Check&& check) {
  std::exception_ptr failure;
  try {
    check();
  } catch (...) {
    failure = std::current_exception();
  }
#ifdef HPLAI_HAVE_MPI
  if (distributed) {
    int ok = failure ? 0 : 1, all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!failure && !all_ok)
      throw tcemu::InvalidArgument("another MPI rank of the --grid run failed a check before the run (rank 0 names it)");
  }
#else
  (void)distributed;
#endif
  if (failure) std::rethrow_exception(failure);
}

}  // namespace

int main(int argc, char** argv) {
  tcemu::app::MpiSession mpi(&argc, &argv);
  tcemu::app::CommandLine cli("hplai", kDescription, kFooter);
  std::string input, output, solver_name = "gmres";
  std::int64_t n = 0, nb = 256;
  std::uint64_t seed = 1;
  int max_iter = 50, restart = 50, repeat = 1;
  bool no_scaling = false;
  std::string grid_text = "1x1";
  cli.app.add_option("-n,--n", n, "order of the generated system (required without --input)");
  cli.app.add_option("--nb", nb, "block size: panel width and the k of the trailing-update GEMMs")->capture_default_str();
  cli.app.add_option("--seed", seed, "generator seed: A from the LCG seeded with S, b with S+1 (1 = reference)")->capture_default_str()->check(tcemu::app::unsigned_64());
  cli.app.add_option("-i,--input", input, "HDF5 file with /A (n x n) and /b (n) instead of the generator");
  cli.app.add_option("-o,--output", output, "HDF5 file for the solution x of every scheme");
  cli.app.add_option("--solver", solver_name, "refinement: gmres (preconditioned GMRES) | ir (iterative refinement)")->capture_default_str();
  cli.app.add_option("--max-iter", max_iter, "refinement iteration cap; a row that reaches it FAILs")->capture_default_str();
  cli.app.add_option("--restart", restart, "GMRES restart length (Krylov vectors kept)")->capture_default_str();
  cli.app.add_option("--repeat", repeat, "runs per scheme; the run with the median time is reported")->capture_default_str();
  cli.app.add_option("--grid", grid_text,
                     "PxQ process grid over MPI ranks (MPI build; P*Q = ranks, mpirun -np P*Q). An explicit 1x1 "
                     "under mpirun runs the grid code on one rank; without mpirun 1x1 is the one-process run")
      ->capture_default_str();
  cli.app.add_flag("--no-scaling", no_scaling, "do not scale the trailing-update operands into [1,2) (studies)");
  return cli.run(argc, argv, [&]() -> int {
    (void)cli.common.target();  // a bad --target is the first error reported, before the inputs' checks
    const bool have_n = cli.app.count("--n") > 0;
    if (input.empty() && !have_n) throw tcemu::InvalidArgument("--n is required (or --input F.h5)");
    if (have_n && n < 1) throw tcemu::InvalidArgument("--n " + std::to_string(n) + " must be >= 1");
    tcemu::app::set_error_context(input.empty() ? "--n " + std::to_string(n) : input);
    if (!input.empty()) tcemu::app::require_input_file(input);
    if (cli.app.count("--output")) tcemu::app::require_output_file("--output", output, {input});
    // --grid PxQ: P*Q ranks (distributed.hpp); 1x1 on one process is the one-process run, except
    // that an explicit --grid 1x1 under mpirun runs the grid code on one rank (its overhead against
    // the one-process run, measured without any communication).
    int grid_p = 1, grid_q = 1;
#ifdef HPLAI_HAVE_MPI
    hplai::parse_grid(grid_text, grid_p, grid_q);
    const bool distributed = grid_p * grid_q > 1 || mpi.size > 1 || (mpi.active && cli.app.count("--grid") > 0);
    if (distributed && !mpi.active)
      throw tcemu::InvalidArgument("--grid " + grid_text + " needs " + std::to_string(grid_p * grid_q) +
                                   " MPI ranks; start it with mpirun -np " + std::to_string(grid_p * grid_q));
    if (distributed && mpi.active && grid_p * grid_q != mpi.size)
      throw tcemu::InvalidArgument("--grid " + grid_text + " needs " + std::to_string(grid_p * grid_q) +
                                   " MPI ranks; this run has " + std::to_string(mpi.size));
    if (distributed && !input.empty())
      throw tcemu::InvalidArgument("--grid " + grid_text + ": --input needs one process; the grid runs the generator");
#else
    if (grid_text != "1x1")
      throw tcemu::InvalidArgument("--grid " + grid_text + " needs an MPI build (Open MPI and -DTCEMU_WITH_MPI=ON)");
    const bool distributed = false;
#endif
#ifdef HPLAI_HAVE_MPI
    const int ranks_here = distributed ? tcemu::app::ranks_on_my_host(MPI_COMM_WORLD) : 1;  // collective
#else
    const int ranks_here = 1;
#endif
    check_on_every_rank(distributed, [&] {
      if (input.empty()) check_memory(n, grid_p * grid_q, ranks_here);
    });
    if (nb < 1) throw tcemu::InvalidArgument("--nb " + std::to_string(nb) + " must be >= 1");
    if (max_iter < 1) throw tcemu::InvalidArgument("--max-iter " + std::to_string(max_iter) + " must be >= 1");
    if (restart < 1) throw tcemu::InvalidArgument("--restart " + std::to_string(restart) + " must be >= 1");
    hplai::RunOptions opt;
    opt.refine.solver = hplai::parse_solver(solver_name);
    opt.refine.max_iter = max_iter;
    opt.refine.restart = restart;
    // A --grid run resolves --device as one process does (auto: the GPU where the GPU path and a GPU are there).
    check_on_every_rank(distributed, [&] { opt.device = hplai::run_device(cli.common); });
    opt.schemes = cli.common.schemes();
    opt.nb = nb;
    opt.scale_operands = !no_scaling;
    if (repeat < 1) throw tcemu::InvalidArgument("--repeat " + std::to_string(repeat) + " must be >= 1");
    opt.repeat = repeat;
    opt.progress = cli.common.quiet ? nullptr : &std::cerr;

    hplai::System sys;
    if (distributed) {
      // no global matrix: each rank generates its own blocks in run_distributed
    } else if (!input.empty()) {
      sys = hplai::load_system(input);
      if (have_n && n != sys.n)
        throw tcemu::InvalidArgument("--n " + std::to_string(n) + " does not match " + input + ": /A is " +
                                     std::to_string(sys.n) + " x " + std::to_string(sys.n));
    } else {
      sys = hplai::generate_system(n, seed);
    }
    // Opened before the run: a bad path fails at once; the Writer removes its temporary on errors.
    std::unique_ptr<tcemu::app::io::Writer> out;
    check_on_every_rank(distributed, [&] {
      if (!output.empty() && mpi.rank == 0) out = std::make_unique<tcemu::app::io::Writer>(output);
    });
    // Numerical failures (a singular pivot, overflowing factors) name the system they came from.
    const std::string system_name = input.empty() ? "--n " + std::to_string(n) + " --seed " + std::to_string(seed) : input;
    const hplai::RunResult res = [&] {
      try {
#ifdef HPLAI_HAVE_MPI
        if (distributed) {
          try {
            const hplai::Grid grid(MPI_COMM_WORLD, grid_p, grid_q);
            return hplai::run_distributed(grid, n, seed, opt);
          } catch (const std::exception& e) {
            // A rank that fails inside the run leaves the others in a collective: stop them all
            // (exit status 2) after the one line (rank 0's; the other ranks' output is discarded).
            tcemu::app::print_error("hplai", system_name + ": " + e.what());
            MPI_Abort(MPI_COMM_WORLD, 2);
          }
        }
#endif
        return hplai::run(sys, opt);
      } catch (const tcemu::Error& e) {
        const std::string message = e.what();
        if (message.rfind(system_name, 0) == 0) throw;
        throw tcemu::InvalidArgument(system_name + ": " + message);
      }
    }();
    if (out) {
      write_output(*out, res);
      out->commit();
    }
    if (cli.common.json) hplai::print_json(stdout, res);
    else hplai::print_table(stdout, res);
    return res.all_pass() ? 0 : kExitFail;
  });
}
