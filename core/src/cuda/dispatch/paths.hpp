#pragma once
// The CUDA backend's arithmetic paths on an oriented problem: acc(m x n, column-major) =
// X (m lines x k) . Y (n lines x k)^T, then C(i, j) = c[i * c_rs + j * c_cs]. gemm_cuda.cpp orients
// the caller's problem (X = op(A), Y = op(B)^T, or swapped when C is row-major so that the combine
// writes C coalesced).
#include <cstdint>

#include "cuda/kernels.hpp"
#include "cuda/workspace_impl.hpp"
#include "tcemu/gemm.hpp"
#include "tcemu/mixpert.hpp"
#include "tcemu/scheme.hpp"

namespace tcemu::cuda::detail {

/// One operand seen as lines x k: element (l, kk) at data[l * line_stride + kk * k_stride].
template <class T>
struct Operand {
  const T* data = nullptr;
  std::int64_t lines = 0, line_stride = 0, k_stride = 0;
};

template <class T>
struct Problem {
  Operand<T> x, y;  ///< x: m lines, y: n lines, both of length k
  std::int64_t m = 0, n = 0, k = 0;
  T* c = nullptr;
  std::int64_t c_rs = 0, c_cs = 0;
  bool swapped = false;  ///< x is op(B)^T and y is op(A): the backend computes C^T (planned orientation)
  bool fused = false;    ///< split-part schemes: the fused kernel computes the products (planned implementation)
  T alpha{}, beta{};
  cudaStream_t stream = nullptr;
  const ExecutionPolicy* exec = nullptr;  ///< GemmOptions::execution (never null once set up)
  ChunkPlan chunks;  ///< how k is cut (planned: tcemu/planning.hpp plan_chunking)
  /// fp16x2-aligned: per-line exponents of x and y (device, from the profile) and the operands'
  /// scale exponents; alpha then already carries 2^-(scale_exp_x + scale_exp_y).
  const int* line_exp_x = nullptr;
  const int* line_exp_y = nullptr;
  int scale_exp_x = 0, scale_exp_y = 0;
};

/// True when split-part scheme `s` has a fused kernel (kernels/fused.hpp) that this device runs
/// (compute capability 8.0 or newer); whether it is used is planned (tcemu/planning.hpp, Problem::fused).
bool has_fused_kernel(const Scheme& s);

/// Native FP32 (cublasSgemm, CUBLAS_DEFAULT_MATH) or FP64 (cublasDgemm), directly on the caller's
/// memory when cuBLAS can read it, else on packed copies plus a combine.
template <class T>
void run_native(const Scheme& s, const Problem<T>& p, Workspace::Impl& ws);

/// The stages of a split-part scheme (ImplFamily parts, one_pass, line_aligned), each queued on
/// p.stream; the executor (gemm_cuda.cpp) calls them in the order of ExecutionPolicy::overlap:
///   split_panels -> run_parts_products -> run_parts_combine.
/// Products stage: on the panels split by split_panels, the fused kernel (p.fused: products and
/// combine in one kernel, into C), or one cuBLAS GEMM per product group, into C through cuBLAS
/// epilogues where FP32 C allows (direct_to_c) or into FP32 accumulators in ws slot kSlotAccum;
/// records `after_products` once they are queued.
template <class T>
void run_parts_products(const Scheme& s, const Problem<T>& p, Workspace::Impl& ws, cudaEvent_t after_products);

/// Combine stage: the FP32 accumulators of run_parts_products into C (alpha, beta, 2^scale per
/// group); nothing when the products wrote C themselves (products_write_c).
template <class T>
void run_parts_combine(const Scheme& s, const Problem<T>& p, Workspace::Impl& ws);

/// True when the products stage of `p` writes C itself (the fused kernel, or multi-pass GEMMs
/// straight into an FP32 C): it reads C when beta != 0, so it may not run before planning then.
template <class T>
bool products_write_c(const Problem<T>& p);

/// Split stage: both operands into the part panels of `s` (natural part order for the fused kernel,
/// the group layout for multi-pass), with the range profile into px/py when given.
template <class T>
void split_panels(const Scheme& s, const Problem<T>& p, Workspace::Impl& ws, const ProfileArgs& px,
                  const ProfileArgs& py);

/// Ozaki scheme with s.parts slices; line exponents from the profile pass (ex for x, ey for y).
template <class T>
void run_ozaki(const Scheme& s, const Problem<T>& p, Workspace::Impl& ws, const int* ex, const int* ey,
               cudaEvent_t after_split, cudaEvent_t after_products);

/// int8-mixpert (mixpert.hpp, dispatch/mixpert_path.cpp): packs both operands (ws slots A/B), records `after_split`, waits
/// for it and reads the range checks of x and y back into cx / cy; then, when both are in range or
/// `ignore_range`, queues the fused kernel into C and returns true (else returns false, nothing
/// queued).
template <class T>
bool run_mixpert(const Scheme& s, const Problem<T>& p, Workspace::Impl& ws, bool ignore_range,
                 mixpert::PackCheck& cx, mixpert::PackCheck& cy, cudaEvent_t after_split);

}  // namespace tcemu::cuda::detail
