// Workspace, error reporting and device queries of the CUDA backend.
#include <cstdio>
#include <string>

#include "cuda/kernels.hpp"
#include "cuda/workspace_impl.hpp"

namespace tcemu::cuda {
namespace detail {

void throw_cuda(cudaError_t e, const char* call, const char* file, int line) {
  throw DeviceError(std::string("CUDA error ") + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) +
                    ") in " + call + " at " + file + ":" + std::to_string(line));
}

void throw_cublas(cublasStatus_t s, const char* call, const char* file, int line) {
  throw DeviceError(std::string("cuBLAS error ") + cublasGetStatusName(s) + " (" +
                    cublasGetStatusString(s) + ") in " + call + " at " + file + ":" +
                    std::to_string(line));
}

int device_sms() {
  static thread_local int cached_device = -1, sms = 0;
  int dev = 0;
  check_cuda(cudaGetDevice(&dev), "cudaGetDevice", __FILE__, __LINE__);
  if (dev != cached_device) {
    check_cuda(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev),
               "cudaDeviceGetAttribute(MultiProcessorCount)", __FILE__, __LINE__);
    cached_device = dev;
  }
  return sms;
}

}  // namespace detail

bool device_available() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();  // clear the sticky "no driver / no device" error
    return false;
  }
  return n > 0;
}

std::string device_description() {
  int dev = 0;
  TCEMU_CUDA(cudaGetDevice(&dev));
  cudaDeviceProp p{};
  TCEMU_CUDA(cudaGetDeviceProperties(&p, dev));
  char buf[512];
  std::snprintf(buf, sizeof buf, "%s (sm_%d%d, %d SMs, %.0f GiB)", p.name, p.major, p.minor,
                p.multiProcessorCount, double(p.totalGlobalMem) / double(1 << 30));
  return buf;
}

Workspace::Impl::Impl() {
  TCEMU_CUDA(cudaGetDevice(&device));
  TCEMU_CUBLAS(cublasCreate(&blas));
  for (auto& e : ev) TCEMU_CUDA(cudaEventCreate(&e));
}

Workspace::Impl::~Impl() {
  release();
  if (pinned) cudaFreeHost(pinned);
  for (auto& e : ev)
    if (e) cudaEventDestroy(e);
  if (blas) cublasDestroy(blas);
}

void* Workspace::Impl::get(Slot slot, std::size_t n, cudaStream_t stream) {
  n = (n + 255) / 256 * 256;
  if (n == 0) n = 256;
  if (n > requested[slot]) requested[slot] = n;
  if (bytes[slot] >= n) return buf[slot];
  if (buf[slot]) {
    TCEMU_CUDA(cudaStreamSynchronize(stream));
    TCEMU_CUDA(cudaFree(buf[slot]));
    buf[slot] = nullptr;
    bytes[slot] = 0;
  }
  const std::size_t grow = n + n / 4;  // headroom so slightly larger calls do not reallocate
  if (cudaMalloc(&buf[slot], grow) != cudaSuccess) {
    (void)cudaGetLastError();
    const cudaError_t e = cudaMalloc(&buf[slot], n);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      buf[slot] = nullptr;
      throw DeviceError(out_of_memory_message(slot, n, e));
    }
    bytes[slot] = n;
  } else {
    bytes[slot] = grow;
  }
  return buf[slot];
}

std::string Workspace::Impl::out_of_memory_message(Slot slot, std::size_t n, cudaError_t e) const {
  static const char* const names[kSlotCount] = {"profile", "parts of op(A)", "parts of op(B)", "accumulators",
                                                "complex real part", "complex imaginary part"};
  std::size_t free_b = 0, total_b = 0, held = 0;
  (void)cudaMemGetInfo(&free_b, &total_b);
  (void)cudaGetLastError();
  for (std::size_t b : bytes) held += b;
  auto gib = [](std::size_t b) {
    char s[32];
    std::snprintf(s, sizeof s, "%.2f GiB", double(b) / double(std::size_t{1} << 30));
    return std::string(s);
  };
  return std::string("tcemu cuda workspace: ") + cudaGetErrorName(e) + ": " + std::to_string(n) + " bytes (" + gib(n) +
         ") for the " + names[slot] + " buffer do not fit: " + gib(free_b) + " of " + gib(total_b) +
         " free on the GPU, the workspace's other buffers hold " + gib(held) +
         " (smaller calls, e.g. fewer rows per GEMM, need less)";
}

void* Workspace::Impl::host(std::size_t n) {
  if (pinned_bytes >= n) return pinned;
  if (pinned) TCEMU_CUDA(cudaFreeHost(pinned));
  pinned = nullptr;
  TCEMU_CUDA(cudaMallocHost(&pinned, n));
  pinned_bytes = n;
  return pinned;
}

cublasHandle_t Workspace::Impl::handle(cudaStream_t stream) {
  TCEMU_CUBLAS(cublasSetStream(blas, stream));
  return blas;
}

void Workspace::Impl::release() {
  for (int s = 0; s < kSlotCount; ++s) {
    if (buf[s]) {
      cudaDeviceSynchronize();
      cudaFree(buf[s]);
    }
    buf[s] = nullptr;
    bytes[s] = 0;
  }
}

Workspace::Workspace() : impl_(std::make_unique<Impl>()) {}
Workspace::~Workspace() = default;

std::size_t Workspace::bytes_reserved() const {
  std::size_t t = 0;
  for (std::size_t b : impl_->bytes) t += b;
  return t;
}

void Workspace::release() { impl_->release(); }

Workspace& default_workspace() {
  thread_local Workspace ws;
  return ws;
}

void Workspace::Impl::read_stage_seconds(GemmReport& report, bool combine) const {
  auto seconds = [](cudaEvent_t a, cudaEvent_t b) {
    float ms = 0;
    TCEMU_CUDA(cudaEventElapsedTime(&ms, a, b));
    return 1e-3 * ms;
  };
  TCEMU_CUDA(cudaEventSynchronize(ev[3]));
  report.seconds_split = seconds(ev[0], ev[1]);
  report.seconds_products = seconds(ev[1], ev[2]);
  if (combine) report.seconds_combine = seconds(ev[2], ev[3]);
}

}  // namespace tcemu::cuda
