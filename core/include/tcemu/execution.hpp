#pragma once
/// \file execution.hpp
/// How a backend executes a GEMM once its scheme is known: the execution policy of GemmOptions.
///
/// Every field has a default that is what measured fastest (docs/perf-notes.md), so a caller sets
/// none of them for normal use. The library never reads the environment: the applications and
/// tcemu-bench build a policy from the TCEMU_* variables once at start-up
/// (tcemu::app::execution_policy_from_environment(), apps/common), which is where those variables are
/// documented. The host backend ignores the CUDA-only fields.
#include <cstdint>
#include <string>
#include <vector>

namespace tcemu {

/// Which implementation the CUDA backend runs for split schemes that have a fused kernel.
/// Measured on H100 and H200 at 8192^3 and at the knn and kmeans shapes (docs/perf-notes.md,
/// "Fused by default"): every fused kernel is faster than the same scheme multi-pass and 3-10x more
/// accurate (round-to-nearest promotion per MMA step instead of cuBLAS' truncating accumulation);
/// with beta != 0 at k = 1,024 (hplai's trailing updates) multi-pass measured faster.
enum class CudaKernels {
  automatic,  ///< per scheme, beta class and shape class from the calibrated cost model (fused without a timing)
  fused,      ///< one kernel: all products, round-to-nearest promotion, combine inside
  multipass,  ///< one cuBLAS GEMM per product group (into C directly for FP32 C, else accumulators + combine)
};

/// Parses "auto"/"automatic", "fused" or "multipass"/"multi-pass"; throws InvalidArgument naming the
/// value otherwise.
CudaKernels parse_cuda_kernels(const std::string& name);
/// "auto", "fused" or "multipass".
const char* to_string(CudaKernels k);

/// What computes int8-crt's INT8 residue products on the CUDA backend (one product per modulus and
/// k chunk; dispatch/crt_path.cpp).
enum class CrtProducts {
  /// The INT8 wgmma kernel on compute 9.0 with an sm_90a build, else cuBLAS. With one k chunk
  /// (k <= 2^16) its epilogue reduces each product mod p_l and writes int8 residues, which the
  /// reconstruction reads (the fused reduction); with more chunks it writes INT32 products.
  automatic,
  wgmma_int32,  ///< the wgmma kernel writing INT32 products always (for comparisons), else cuBLAS
  cublas,       ///< cuBLAS's strided-batched INT8 GEMM (cublasGemmStridedBatchedEx) on every device
};

/// Parses "auto"/"wgmma"/"" (automatic), "wgmma-int32" or "cublas"; throws InvalidArgument naming
/// the value otherwise.
CrtProducts parse_crt_products(const std::string& name);

/// Which Tensor Core instruction the fused kernels use.
enum class FusedMma {
  automatic,  ///< wgmma (warp-specialised, TMA-fed) on compute capability 9.0, mma.sync elsewhere
  mma_sync,   ///< mma.sync on every device (for comparisons)
};

/// Parses "wgmma"/"auto"/"" (automatic) or "mma.sync"; throws InvalidArgument naming the value otherwise.
FusedMma parse_fused_mma(const std::string& name);

/// How the CUDA backend computes a complex GEMM (tcemu/cuda/gemm_cuda.hpp, complex_gemm_device).
/// int8-crt (one certificate, so never 4M) reads it as: `embed` its real embedding always, anything
/// else 3M in the residue domain wherever its kernel runs (docs/crt.md, "Complex operands").
enum class ComplexMethod {
  automatic,  ///< the real embedding wherever it applies (never more work than 4M), else 4M
  four_m,     ///< four real products (4M) always
  embed,      ///< the real embedding where it applies (else 4M)
  blas,       ///< cuBLAS CGEMM/ZGEMM for the native schemes (explicit only; else like automatic)
  three_m,    ///< int8-crt's default said explicitly (3M where it runs); other schemes: as automatic
};

/// Parses "auto"/"" (automatic), "4m"/"4M", "embed" or "3m"/"3M"; throws InvalidArgument naming
/// the value otherwise ("blas" is for callers that ask for it in code).
ComplexMethod parse_complex_method(const std::string& name);

/// Where `auto`'s cost model on the GPU comes from (tcemu/cuda/calibrate.hpp).
enum class CalibrationPolicy {
  measure_once,  ///< the cache file, else measured on first use and cached (default)
  cache_only,    ///< the cache file, else the H200 anchors (never measures)
  anchors,       ///< CostModel::h200_anchors() (no measurement, no file access)
  force,         ///< measured again once per process, then cached
};

/// Parses "1"/"auto"/"" (measure_once), "cache", "0"/"off"/"anchors", "force"/"recalibrate"; throws
/// InvalidArgument naming the value otherwise.
CalibrationPolicy parse_calibration_policy(const std::string& name);

/// When the CUDA executor queues a split scheme's products relative to planning (the host waiting
/// for the range profile and resolving the scheme). The stages themselves (split, products,
/// combine) and what they launch are the same under every policy; only their order changes.
enum class Overlap {
  /// split (with the range profile) -> profile read-back -> plan -> products -> combine: the GPU
  /// idles while the host reads the profile back and plans. For studies and as the reference order.
  none,
  /// The default. The scheme split with the profile (the requested one, or auto's pick for in-range
  /// operands) has its products queued behind the profile copy, before the host waits and plans:
  /// split -> products -> plan -> combine. Products that write C (the fused kernel, multi-pass GEMMs
  /// straight into C) go early only when beta == 0 (C is not read, so a fallback simply overwrites
  /// it), else after planning. If planning keeps the scheme they are used, else the resolved scheme
  /// runs split -> products -> combine after planning and the early products are wasted work.
  products_while_planning,
};

/// Parses "none" or "products-while-planning"/"auto"/"" (the default); throws InvalidArgument naming
/// the value otherwise.
Overlap parse_overlap(const std::string& name);
/// "none" or "products-while-planning".
const char* to_string(Overlap o);

/// How the CUDA backend orients C for the fused kernels (the other implementations always follow
/// C's layout: they compute C^T exactly when C is row-major).
enum class OrientationPolicy {
  /// C's layout, as the other implementations (C^T when C is row-major). The default: measured on an
  /// H100 (docs/perf-notes.md section 8), writing C with the kernel's columns contiguous costs fp16x2
  /// and bf16x3 5-9 % at 60,000 x 1,024 and 70,000 x 1,024, more than the tiles saved.
  layout,
  /// the orientation with fewer block tiles of the kernel (orientation_for_tiles); a tie keeps the
  /// layout's. Measured 6-10 % faster for tf32x2 on those shapes, slower for fp16x2 and bf16x3.
  /// Applied after the implementation is chosen, which uses the shape class of the layout's
  /// orientation (implementation_shape_class, tcemu/planning.hpp) under both policies.
  tiles,
};

/// Parses "layout"/"auto"/"" (the default) or "tiles"; throws InvalidArgument naming the value otherwise.
OrientationPolicy parse_orientation_policy(const std::string& name);
/// "tiles" or "layout".
const char* to_string(OrientationPolicy o);

/// How the products of the resolved scheme were computed (ExecutionPlan::implementation).
enum class Implementation {
  none,        ///< nothing ran (an empty C, or k = 0: C = beta * C)
  native,      ///< cuBLAS SGEMM / DGEMM (CUDA) or one CBLAS call (host)
  fused,       ///< one fused Tensor Core kernel: every product and the combine (CUDA)
  multipass,   ///< one GEMM per product group, then the combine (CUDA: cuBLAS; host: CBLAS per product)
  int_slices,  ///< the Ozaki scheme: INT8 slice products, exact sums (int8-ozaki)
  mixpert,     ///< MixPert's pack pass and INT8 kernel (int8-mixpert)
  crt,         ///< Ozaki scheme II: residue pass, INT8 products per modulus, reconstruction (int8-crt)
};
/// "none", "native", "fused", "multi-pass", "int-slices", "mixpert" or "crt".
const char* to_string(Implementation i);

/// One stage of a call as an executor ran it (ExecutionPlan::stages).
enum class Stage {
  split,     ///< range profile and/or the split of both operands into parts (or slices, packs)
  plan,      ///< the host resolves the scheme (auto, range check) on the operands' profiles
  products,  ///< the part products (into accumulators, or into C when they carry the combine)
  combine,   ///< accumulators into C (a stage of its own only where the products did not write C)
};
/// "split", "plan", "products" or "combine".
const char* to_string(Stage s);

/// What the planning step decided for how one call runs and the order its executor ran the stages
/// in; GemmReport::plan.execution, printed verbatim by Plan::explain().
/// How the k dimension of one call is cut (ExecutionPlan::chunking). On the CUDA backend decided by
/// plan_chunking (tcemu/planning.hpp) before any stage runs, and what its executor then uses; the
/// host backend accumulates each product over the whole of k (k_chunks 1, k_chunk_length k).
struct ChunkPlan {
  /// Multi-pass split schemes (CUDA): length in elements of k of the chunks in which the dominant
  /// product group accumulates with round-to-nearest FP32 additions (docs/accuracy.md); 0 = one chunk.
  std::int64_t accumulation_chunk = 0;
  /// INT8 schemes (int8-ozaki slices, int8-crt residues): k is cut into `k_chunks` chunks of at most
  /// `k_chunk_length` elements so that every INT32 sum of INT8 products stays exact (2^17 * 127^2 <
  /// 2^31); 1 and k for every other scheme.
  std::int64_t k_chunks = 1;
  std::int64_t k_chunk_length = 0;
};

struct ExecutionPlan {
  std::string scheme;  ///< the scheme that ran (GemmReport::used), "" when nothing ran
  int slices = 0;      ///< int8-ozaki's slice count, else 0
  Implementation implementation = Implementation::none;
  /// Why this implementation: the policy that forced it, or the calibrated times it was picked from.
  std::string implementation_reason;
  /// Orientation (CUDA): false = the backend computes C (m x n) as acc = op(A) . op(B);
  /// true = it computes C^T (n x m) = op(B)^T . op(A)^T. The host backend never swaps.
  bool swapped = false;
  std::string orientation_reason;  ///< e.g. the block-tile arithmetic of the fused kernel, or C's layout
  Overlap overlap = Overlap::products_while_planning;  ///< ExecutionPolicy::overlap (CUDA)
  std::vector<Stage> stages;  ///< as run, in order (the early products of a discarded scheme included)
  ChunkPlan chunking;  ///< how k is cut (accumulation chunks, INT32-exact chunks)
  /// Device workspace the call requested (bytes, all buffers; CUDA), 0 on the host backend.
  std::int64_t workspace_bytes = 0;

  /// Multi-line text: scheme, slices, implementation and why, orientation and why, overlap, stages,
  /// chunking, workspace.
  std::string explain() const;
};

/// The execution policy of one gemm call (GemmOptions::execution).
struct ExecutionPolicy {
  /// Fused kernel or multi-pass for split schemes with a fused kernel (CUDA backend). automatic:
  /// the one the device's calibrated cost model measured faster for the scheme, the beta class
  /// (beta == 0 or C read) and the shape class (ShapeClass, tcemu/select.hpp: square, tall, wide of
  /// the problem as C's layout orients it; tcemu/cuda/calibrate.hpp, tcemu/planning.hpp), fused when
  /// the model has no such measurement.
  CudaKernels kernels = CudaKernels::automatic;
  /// Order of the split, products and combine stages relative to planning (CUDA backend).
  Overlap overlap = Overlap::products_while_planning;
  /// Orientation of C for the fused kernels (CUDA backend).
  OrientationPolicy orientation = OrientationPolicy::layout;
  /// Tensor Core instruction of the fused kernels (CUDA backend).
  FusedMma fused_mma = FusedMma::automatic;
  /// int8-crt's INT8 products (CUDA backend).
  CrtProducts crt_products = CrtProducts::automatic;
  /// Multi-pass only: length (elements of k, rounded up to 16) of the chunks in which the dominant
  /// product group is accumulated with round-to-nearest additions; -1 = the rule that keeps the
  /// error near SGEMM's at every k (about 24 sqrt(k), docs/accuracy.md), 0 = no chunking.
  std::int64_t accumulation_chunk = -1;
  /// Multi-pass only: let cuBLAS accumulate the group products straight into an FP32 C when its
  /// layout allows (false: accumulators + a combine kernel, for comparisons).
  bool direct_to_c = true;
  /// int8-ozaki: bytes of INT32 accumulators one call may hold; int8-crt on the GPU: bytes of its
  /// INT32 products or int8 product residues, and for complex 3M also of x's residue panels (each
  /// counted with its padding to the kernel's tiles). Rows run in blocks that fit (the result does
  /// not depend on it). Must be positive.
  std::int64_t ozaki_accumulator_bytes = std::int64_t{8} << 30;
  /// Complex GEMMs on the CUDA backend.
  ComplexMethod complex = ComplexMethod::automatic;
  /// `auto`'s cost model on the GPU when GemmOptions::cost_model is nullptr.
  CalibrationPolicy calibration = CalibrationPolicy::measure_once;
  /// Folder of the cost-model cache (tcemu/cuda/calibrate.hpp); "" = the model lives in the process
  /// only. The apps set $XDG_CACHE_HOME/tcemu, else $HOME/.cache/tcemu.
  std::string calibration_cache_dir;
};

}  // namespace tcemu
