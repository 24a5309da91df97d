// A qsim job: reference run, scheme runs, metrics, samples (job.hpp).
#include "app_common/auto_cost_model.hpp"
#include "app_common/environment.hpp"
#include "app_common/sweep.hpp"
#include "app_common/timing.hpp"
#include "job.hpp"
#include "auto_config.hpp"
#include "qubit_layout.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <type_traits>
#include <unistd.h>

#include "tcemu/error.hpp"

namespace qsim {

namespace {

using tcemu::app::Clock;
using tcemu::app::seconds_since;

template <class T>
SchemeRun run_one(const Circuit& c, const std::vector<Block>& blocks, const tcemu::Scheme& scheme, const RunConfig& cfg,
                  const std::string& tag, const std::vector<std::uint64_t>& indices,
                  const std::vector<std::complex<double>>* reference, std::vector<std::complex<double>>* keep_reference) {
  SimOptions opt;
  opt.gemm = tcemu::app::gemm_options(scheme);
  opt.gemm.range_policy = cfg.range_policy;
  if (cfg.cuda_kernels != tcemu::CudaKernels::automatic) opt.gemm.execution.kernels = cfg.cuda_kernels;
  opt.device = cfg.device;
  opt.buffers = cfg.buffers;
  opt.gather_permutations = gather_from_environment();
  // Measured against the reference where the run ran (Kokkos reductions, simulate_engine.hpp); the
  // host reads the final state only to report amplitudes, sample or keep it.
  opt.reference = reference;
  opt.download = keep_reference || cfg.keep_states || !indices.empty() || cfg.shots > 0;
  auto last = Clock::now();
  if (cfg.log)
    opt.progress = [&](std::size_t done, std::size_t total) {
      if (seconds_since(last) < 2.0 || done == total) return;
      last = Clock::now();
      char line[160];
      std::snprintf(line, sizeof line, "%s %-16s block %zu/%zu (%.0f%%)", tag.c_str(), scheme.name.c_str(), done, total,
                    100.0 * double(done) / double(total));
      cfg.log(line);
    };
  SimResult<T> sim = simulate<T>(blocks, c.num_qubits, opt);
  SchemeRun r;
  r.scheme = scheme;
  r.precision = sizeof(T) == 4 ? "complex64" : "complex128";
  r.stats = sim.stats;
  r.used = sim.stats.gemm.used_counts();
  for (std::uint64_t k : indices)
    r.amplitudes.emplace_back(sim.state[static_cast<std::size_t>(k)].real(), sim.state[static_cast<std::size_t>(k)].imag());
  if (cfg.shots > 0) {
    r.samples = sample_states(sim.state, cfg.shots, cfg.seed);
    for (auto& v : r.samples) v = classical_value(v, c.measurements);
  }
  r.accuracy = sim.accuracy;  // against the reference, or the norm only (NaN elsewhere)
  if (keep_reference) r.accuracy.fidelity = 1.0, r.accuracy.max_amp_err = 0.0;  // the reference itself: exact
  if (cfg.keep_states || keep_reference) {
    std::vector<std::complex<double>> z;
    if constexpr (std::is_same_v<T, double>) {
      z = std::move(sim.state);  // the reference run: no copy of the (up to 16 GiB) state
    } else {
      z.resize(sim.state.size());
      for (std::size_t i = 0; i < z.size(); ++i) z[i] = {sim.state[i].real(), sim.state[i].imag()};
    }
    if (keep_reference && cfg.keep_states) *keep_reference = z;
    else if (keep_reference) *keep_reference = std::move(z);
    if (cfg.keep_states) r.state = std::move(z);
  }
  return r;
}

}  // namespace

bool uses_double(const tcemu::Scheme& s) { return s.target == tcemu::Target::fp64; }

std::vector<tcemu::Scheme> schemes_for_target(std::vector<tcemu::Scheme> parsed, const std::string& list,
                                              tcemu::Target target) {
  if (target != tcemu::Target::fp64 || list != "all") return parsed;
  for (const auto& s : parsed)
    if (s.kind == tcemu::SchemeKind::int8_crt) return parsed;
  parsed.push_back(tcemu::parse_scheme("int8-crt", tcemu::Target::fp64));
  return parsed;
}

double host_bytes_per_amplitude(const tcemu::Scheme& s) {
  const double c = uses_double(s) ? 16.0 : 8.0;
  return 16.0 + 2 * c + c + 2 * c;
}

double host_bytes_needed(const tcemu::Scheme& s, int n, BufferMode buffers, bool reference) {
  const double c = uses_double(s) ? 16.0 : 8.0, ref = reference ? 16.0 : 0.0;
  if (resolve_host_buffers(buffers, n) == BufferMode::two) return std::ldexp(host_bytes_per_amplitude(s) - 16.0 + ref, n);
  const double chunk = std::min(std::ldexp(1.0, n), double(kSingleBufferChunk));
  return std::ldexp(ref + c, n) + 5.0 * chunk * c;
}

double available_memory_bytes() {
  std::ifstream f("/proc/meminfo");
  std::string key;
  double kb = 0;
  while (f >> key >> kb) {
    if (key == "MemAvailable:") return kb * 1024.0;
    f.ignore(256, '\n');
  }
  return static_cast<double>(sysconf(_SC_AVPHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGESIZE));
}

double host_job_bytes(const std::vector<tcemu::Scheme>& schemes, int n, BufferMode buffers, bool reference,
                      tcemu::Scheme* worst) {
  std::vector<tcemu::Scheme> runs = schemes;
  if (reference) runs.push_back(tcemu::parse_scheme("fp64"));
  double need = 0;
  bool any = false;
  for (const auto& s : runs) {
    const double b = host_bytes_needed(s, n, buffers, reference);
    if (!any || b > need) {
      need = b;
      any = true;
      if (worst) *worst = s;
    }
  }
  return need;
}

double host_bytes_of_gpu_job(const std::vector<tcemu::Scheme>& schemes, int n, bool reference) {
  bool any_double = false;
  for (const auto& s : schemes) any_double = any_double || uses_double(s);
  const double other = any_double ? 16.0 : 8.0;
  return std::ldexp((reference ? 16.0 : 0.0) + (schemes.empty() ? 0.0 : other), n);
}

void check_memory(const Circuit& c, const std::vector<tcemu::Scheme>& schemes, double available, BufferMode buffers,
                  bool reference) {
  if (schemes.empty() && !reference) return;
  tcemu::Scheme worst;
  const double need = host_job_bytes(schemes, c.num_qubits, buffers, reference, &worst);
  const bool two = resolve_host_buffers(buffers, c.num_qubits) == BufferMode::two;
  const char* type = uses_double(worst) ? "complex128" : "complex64";
  if (need > available)
    throw tcemu::InvalidArgument("circuit '" + c.name + "' (" + std::to_string(c.num_qubits) + " qubits): the " + worst.name +
                                 " run needs about " + bytes_text(need) + " of host memory (" +
                                 (reference ? "reference state, " : "") +
                                 (two ? std::string("two ") + type + " state buffers and GEMM workspace"
                                      : std::string("one ") + type + " state buffer, a chunk buffer and GEMM workspace") +
                                 "), but only " + bytes_text(available) + " are available");
}

void check_device_memory(const Circuit& c, const std::vector<tcemu::Scheme>& schemes, double free_bytes,
                         double available_host, BufferMode buffers, bool reference) {
  const int n = c.num_qubits;
  const tcemu::Scheme* widest = nullptr;
  for (const auto& s : schemes)
    if (!widest || (uses_double(s) && !uses_double(*widest))) widest = &s;
  const tcemu::Scheme fp64 = tcemu::parse_scheme("fp64");
  const tcemu::Scheme* gpu_worst = reference || !widest ? &fp64 : widest;
  const bool dbl = uses_double(*gpu_worst);
  const std::string head = "circuit '" + c.name + "' (" + std::to_string(n) + " qubits): ";
  const GpuBufferPlan plan = dbl ? plan_device_buffers<double>(n, free_bytes, buffers)
                                    : plan_device_buffers<float>(n, free_bytes, buffers);
  if (!plan.fits) throw tcemu::InvalidArgument(head + "the " + gpu_worst->name + " run " + plan.shortfall + " on the GPU");
  // Host: the complex128 reference stays for the comparisons, and one other state may come down
  // (for --amplitudes, --shots or --output; counted always: an upper bound).
  const double need_host = host_bytes_of_gpu_job(schemes, n, reference);
  if (need_host > available_host)
    throw tcemu::InvalidArgument(head + "the runs need " + bytes_text(need_host) + " of host memory (" +
                                 (reference ? "the complex128 reference and " : "") +
                                 "one downloaded state), but only " + bytes_text(available_host) + " are available");
}

JobResult run_job(const Circuit& c, const RunConfig& cfg) {
  std::vector<std::uint64_t> indices;
  for (const auto& b : cfg.amplitudes) indices.push_back(parse_bitstring(b, c.num_qubits));
  JobResult job;
  const auto t0 = Clock::now();
  const std::vector<Block> blocks = fuse(c, cfg.fuse);
  job.seconds_fusion = seconds_since(t0);
  job.fusion = summarize(blocks, c.num_qubits);

  std::vector<tcemu::app::SweepReference> references;
  if (cfg.reference) references.push_back({tcemu::parse_scheme("fp64", tcemu::Target::fp64), "reference"});
  const auto order = tcemu::app::sweep_order(cfg.schemes, references);
  std::vector<std::complex<double>> reference;
  // FP32-target auto: one configuration for the job (auto_config.hpp), decided before any run.
  std::unique_ptr<AutoConfig> auto_config;
  std::vector<Block> auto_blocks;
  for (const auto& e : order)
    if (e.scheme.is_automatic() && e.scheme.target == tcemu::Target::fp32 && !auto_config) {
      auto_config = std::make_unique<AutoConfig>(choose_auto_config(
          fusion_options(c, {cfg.fuse}), c.num_qubits, tcemu::app::auto_cost_model(cfg.device), cfg.device, auto_in_place_support(cfg.device)));
      if (cfg.log) cfg.log(auto_config->explain());
      if (auto_config->chosen.fuse != cfg.fuse) auto_blocks = fuse(c, auto_config->chosen.fuse);
    }
  for (std::size_t i = 0; i < order.size(); ++i) {
    const std::string tag = "[" + std::to_string(i + 1) + "/" + std::to_string(order.size()) + "]";
    const auto& s = order[i].scheme;
    const bool configured = auto_config && s.is_automatic() && s.target == tcemu::Target::fp32;
    const tcemu::Scheme& run_as = configured ? auto_config->chosen.scheme : s;
    const std::vector<Block>& run_blocks = configured && !auto_blocks.empty() ? auto_blocks : blocks;
    const bool is_reference = cfg.reference && i == 0;
    const std::vector<std::complex<double>>* ref = cfg.reference ? &reference : nullptr;
    SchemeRun r = is_reference ? run_one<double>(c, blocks, s, cfg, tag, indices, nullptr, &reference)
                 : uses_double(run_as) ? run_one<double>(c, run_blocks, run_as, cfg, tag, indices, ref, nullptr)
                                       : run_one<float>(c, run_blocks, run_as, cfg, tag, indices, ref, nullptr);
    if (configured) {
      r.scheme = s;
      r.auto_choice = auto_config->summary();
    }
    if (cfg.reference && i > 0) r.samples_differing = samples_differing(r.samples, job.runs[0].samples);
    if (cfg.log) {
      char line[200];
      std::snprintf(line, sizeof line, "%s %-16s done: %.3f s (GEMM %.0f%%), 1 - fidelity %.2e", tag.c_str(), s.name.c_str(),
                    r.stats.seconds, 100.0 * r.stats.seconds_gemm / std::max(r.stats.seconds, 1e-12), 1.0 - r.accuracy.fidelity);
      cfg.log(line);
    }
    job.runs.push_back(std::move(r));
  }
  return job;
}

}  // namespace qsim
