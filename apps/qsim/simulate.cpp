// qsim's simulation entry points and the host instantiation of the one simulation step
// (simulate_engine.hpp) on Kokkos::DefaultHostExecutionSpace with tcemu's host complex GEMM.
#include "simulate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "block_gemm_host.hpp"
#include "simulate_engine.hpp"
#include "tcemu/error.hpp"

namespace qsim {

namespace engine {
TCEMU_QSIM_ENGINE_INSTANCES(, Kokkos::DefaultHostExecutionSpace, float)
TCEMU_QSIM_ENGINE_INSTANCES(, Kokkos::DefaultHostExecutionSpace, double)
}  // namespace engine

double state_scale(int n) { return std::ldexp(1.0, std::min(12, n / 2)); }

void record(SimStats& stats, const tcemu::GemmReport& r) { stats.gemm.add(r); }

template <class T>
std::vector<std::complex<T>> block_matrix(const Matrix& m) {
  std::vector<std::complex<T>> u(m.size());
  double big = 0;
  for (const auto& z : m) big = std::max(big, std::abs(z));
  const double tiny = sizeof(T) == sizeof(double) ? 0.0 : std::ldexp(big, -40);
  auto clean = [tiny](double x) { return std::fabs(x) < tiny ? T(0) : static_cast<T>(x); };
  for (std::size_t i = 0; i < m.size(); ++i) u[i] = std::complex<T>(clean(m[i].real()), clean(m[i].imag()));
  return u;
}

template <class T>
SimResult<T> simulate(const std::vector<Block>& blocks, int n, const SimOptions& options) {
  const Device device =
      options.device == Device::automatic && !gpu_path_built() ? Device::host : resolve_device(options.device);
  return device == Device::cuda ? simulate_cuda<T>(blocks, n, options) : simulate_host<T>(blocks, n, options);
}

Device resolve_qsim_device(const std::string& name, const std::function<Device()>& resolve) {
  if (!gpu_path_built() && name == "auto") return Device::host;
  const Device d = resolve();
  if (d == Device::cuda && !gpu_path_built()) (void)free_device_memory_bytes();  // throws: what the build lacks
  return d;
}

std::string bytes_text(double bytes) {
  char b[64];
  std::snprintf(b, sizeof b, "%.0f bytes (%.1f GiB)", bytes, bytes / (1024.0 * 1024.0 * 1024.0));
  return b;
}

const char* to_string(BufferMode mode) {
  return mode == BufferMode::two ? "two" : mode == BufferMode::single ? "single" : "auto";
}

BufferMode parse_buffer_mode(const std::string& name) {
  if (name == "auto") return BufferMode::automatic;
  if (name == "two") return BufferMode::two;
  if (name == "single") return BufferMode::single;
  throw tcemu::InvalidArgument("--buffers '" + name + "' is not one of: auto, two, single");
}

bool gather_from_environment() {
  const char* e = std::getenv("TCEMU_QSIM_GATHER");
  const std::string v = e ? e : "";
  if (v.empty() || v == "on") return true;
  if (v == "off") return false;
  throw tcemu::InvalidArgument("TCEMU_QSIM_GATHER=" + v + ": expected on or off");
}

template <class T>
double device_bytes_needed(int n, BufferMode mode, std::int64_t chunk_elements) {
  if (mode != BufferMode::single) return std::ldexp(device_bytes_per_amplitude<T>(), n);
  const double chunk = chunk_elements > 0 ? double(chunk_elements) : double(kSingleBufferChunk);
  return (std::ldexp(1.0, n) + 3.0 * std::min(std::ldexp(1.0, n), chunk)) * 2.0 * sizeof(T);
}

void check_buffer_request(BufferMode requested, int n) {
  if (requested == BufferMode::two && n > kMaxPermutationQubits)
    throw tcemu::InvalidArgument("--buffers two: " + std::to_string(n) + " qubits need single-buffer mode (two-buffer "
                                 "permutations index at most " + std::to_string(kMaxPermutationQubits) + " qubits)");
}

BufferMode resolve_host_buffers(BufferMode requested, int n) {
  if (requested != BufferMode::automatic) return requested;
  return n <= kMaxPermutationQubits ? BufferMode::two : BufferMode::single;
}

template <class T>
GpuBufferPlan plan_device_buffers(int n, double free_bytes, BufferMode requested, std::int64_t chunk_elements) {
  check_buffer_request(requested, n);
  GpuBufferPlan plan;
  const bool two_possible = requested != BufferMode::single && n <= kMaxPermutationQubits;
  if (two_possible && device_bytes_needed<T>(n, BufferMode::two) <= free_bytes) {
    plan.bytes_needed = device_bytes_needed<T>(n, BufferMode::two);
    return plan;
  }
  plan.mode = requested == BufferMode::two ? BufferMode::two : BufferMode::single;
  plan.bytes_needed = device_bytes_needed<T>(n, plan.mode, chunk_elements);
  plan.fits = plan.bytes_needed <= free_bytes;
  if (!plan.fits)
    plan.shortfall = "needs " + bytes_text(plan.bytes_needed) + " of GPU memory " +
                     (plan.mode == BufferMode::two
                          ? "(two state buffers and GEMM workspace)"
                          : "in single-buffer mode (one state buffer, a chunk buffer and GEMM workspace)") +
                     ", but only " + bytes_text(free_bytes) + " are free";
  return plan;
}

template <class T>
BufferMode choose_buffers(int n, double free_bytes, BufferMode requested, std::int64_t chunk_elements) {
  const GpuBufferPlan plan = plan_device_buffers<T>(n, free_bytes, requested, chunk_elements);
  if (!plan.fits)
    throw tcemu::InvalidArgument("--device cuda: the state of " + std::to_string(n) + " qubits (" +
                                 (sizeof(T) == 4 ? "complex64" : "complex128") + ") " + plan.shortfall);
  return plan.mode;
}

template <class T>
void check_device_memory_for(int n, double free_bytes) {
  (void)choose_buffers<T>(n, free_bytes);
}

template <class T>
void apply_blocks_host(std::vector<std::complex<T>>& a, int n, const std::vector<Block>& blocks,
                       const SimOptions& options, SimStats& st) {
  using Space = Kokkos::DefaultHostExecutionSpace;
  using View = typename engine::StateBuffers<Space, T>::View;
  using C = Kokkos::complex<T>;
  const std::size_t size = std::size_t(1) << n;
  if (a.size() != size)
    throw tcemu::InvalidArgument("apply_blocks_host: the state has " + std::to_string(a.size()) +
                                 " amplitudes, not 2^" + std::to_string(n));
  std::vector<std::complex<T>> b(size);
  engine::StateBuffers<Space, T> buf;  // unmanaged Views of the two vectors
  buf.cur = View(reinterpret_cast<C*>(a.data()), size);
  buf.other = View(reinterpret_cast<C*>(b.data()), size);
  engine::apply_blocks<Space, T>(Space(), buf, n, blocks, options, st);
  if (buf.cur.data() != reinterpret_cast<C*>(a.data())) a.swap(b);
}

template <class T>
SimResult<T> simulate_host(const std::vector<Block>& blocks, int n, const SimOptions& options) {
  // The host's memory is checked by the job (check_memory).
  check_buffer_request(options.buffers, n);
  return engine::simulate_on<Kokkos::DefaultHostExecutionSpace, T>(Kokkos::DefaultHostExecutionSpace(), blocks, n,
                                                                   options, resolve_host_buffers(options.buffers, n));
}

template double device_bytes_needed<float>(int, BufferMode, std::int64_t);
template double device_bytes_needed<double>(int, BufferMode, std::int64_t);
template GpuBufferPlan plan_device_buffers<float>(int, double, BufferMode, std::int64_t);
template GpuBufferPlan plan_device_buffers<double>(int, double, BufferMode, std::int64_t);
template BufferMode choose_buffers<float>(int, double, BufferMode, std::int64_t);
template BufferMode choose_buffers<double>(int, double, BufferMode, std::int64_t);
template void check_device_memory_for<float>(int, double);
template void check_device_memory_for<double>(int, double);
template std::vector<std::complex<float>> block_matrix<float>(const Matrix&);
template std::vector<std::complex<double>> block_matrix<double>(const Matrix&);
template SimResult<float> simulate<float>(const std::vector<Block>&, int, const SimOptions&);
template SimResult<double> simulate<double>(const std::vector<Block>&, int, const SimOptions&);
template void apply_blocks_host<float>(std::vector<std::complex<float>>&, int, const std::vector<Block>&,
                                       const SimOptions&, SimStats&);
template void apply_blocks_host<double>(std::vector<std::complex<double>>&, int, const std::vector<Block>&,
                                        const SimOptions&, SimStats&);
template SimResult<float> simulate_host<float>(const std::vector<Block>&, int, const SimOptions&);
template SimResult<double> simulate_host<double>(const std::vector<Block>&, int, const SimOptions&);

}  // namespace qsim
