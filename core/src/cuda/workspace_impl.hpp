#pragma once
// Internals of tcemu::cuda::Workspace: growable device buffers, the cuBLAS handle, pinned host memory
// for the range-profile read-back, and timing events.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <string>

#include "tcemu/cuda/check.hpp"
#include "tcemu/cuda/gemm_cuda.hpp"

namespace tcemu::cuda {

/// Independent buffers of one call (each grows on its own, so earlier pointers stay valid while a
/// later buffer grows).
enum Slot : int {
  kSlotProfile,   ///< range-profile totals and per-line statistics of both operands
  kSlotPartsA,    ///< split parts / Ozaki slices of op(A) (or of the operand playing A)
  kSlotPartsB,    ///< same for op(B)
  kSlotAccum,     ///< FP32/FP64/INT32 accumulators of the product groups
  kSlotComplexRe, ///< complex GEMM: 4M's real part of op(A) op(B), or the embedding's real 2k x 2n
                  ///< matrix Br built from op(B) (complex_gemm_cuda.cpp; gemm_device never uses it)
  kSlotComplexIm, ///< complex GEMM (4M): imaginary part
  kSlotCount
};

struct Workspace::Impl {
  int device = 0;
  cublasHandle_t blas = nullptr;
  void* buf[kSlotCount] = {};
  std::size_t bytes[kSlotCount] = {};
  void* pinned = nullptr;  ///< host-pinned read-back area
  std::size_t pinned_bytes = 0;
  cudaEvent_t ev[4] = {};
  /// Largest size asked of each slot since begin_call() (bytes, rounded as get() rounds them).
  std::size_t requested[kSlotCount] = {};

  /// Starts counting what one call asks of the buffers (call_bytes()).
  void begin_call() {
    for (std::size_t& r : requested) r = 0;
  }
  /// Bytes of device buffers the call since begin_call() needed, all slots together.
  std::size_t call_bytes() const {
    std::size_t total = 0;
    for (std::size_t r : requested) total += r;
    return total;
  }

  Impl();
  ~Impl();
  /// Device buffer `slot` with at least `n` bytes (256-byte aligned); grows by freeing and
  /// reallocating after synchronising `stream` (earlier work may still read the old buffer).
  void* get(Slot slot, std::size_t n, cudaStream_t stream);
  /// Pinned host buffer of at least n bytes.
  void* host(std::size_t n);
  /// The cuBLAS handle bound to `stream`.
  cublasHandle_t handle(cudaStream_t stream);
  void release();
  /// The one-line DeviceError text when slot's buffer of n bytes cannot be allocated (cudaMalloc's
  /// error e): the bytes asked, the GPU's free and total memory, and what the other slots hold.
  std::string out_of_memory_message(Slot slot, std::size_t n, cudaError_t e) const;
  /// The stage times of one call from ev[0..3] (recorded at its start, after the split, after the
  /// products, at its end) into report.seconds_split / _products and, with `combine`, _combine (s);
  /// waits for ev[3]. Throws DeviceError on CUDA errors.
  void read_stage_seconds(GemmReport& report, bool combine = true) const;
};

}  // namespace tcemu::cuda
