#pragma once
/// \file gemm.hpp
/// tcemu's GEMM: C = alpha * op(A) * op(B) + beta * C with any scheme of the catalogue.
///
/// Entry points:
///  - gemm(space, opA, opB, alpha, A, B, beta, C, options[, resources]) on Kokkos Views (rank 2, any
///    layout; real or complex), the Kokkos Kernels style: the execution space instance says where it
///    runs (a host space -> host backend; Kokkos::Cuda -> CUDA backend on the instance's stream, when
///    tcemu is built with CUDA against a CUDA-enabled Kokkos 4, docs/kokkos.md); `resources`
///    (tcemu/resources.hpp) is the caller-owned workspace. gemm(opA, ...) without an instance takes
///    the default instance the Views' memory spaces imply.
///  - gemm_host(...) (and cuda::gemm_device, tcemu/cuda/gemm_cuda.hpp) on raw strided MatrixViews:
///    the backends' own interface, for codes that do not use Kokkos Views.
/// Shapes: op(A) is m x k, op(B) is k x n, C is m x n. Element types: float (FP32 target) or double
/// (FP64 target, and FP32-target schemes applied to double data after rounding it to float).
#include <Kokkos_Core.hpp>
#include <complex>
#include <string>
#include <type_traits>

#include "tcemu/error.hpp"
#include "tcemu/execution.hpp"
#include "tcemu/matrix.hpp"
#include "tcemu/mixpert.hpp"
#include "tcemu/resources.hpp"
#include "tcemu/scheme.hpp"
#include "tcemu/select.hpp"

namespace tcemu {

/// What to do when an operand is outside the requested scheme's range (see range_violation()).
enum class RangePolicy {
  fallback,  ///< compute with native arithmetic of the scheme's target and say so in the report
  error,     ///< throw InvalidArgument naming the operand and the violated rule
  ignore,    ///< compute with the scheme anyway (for studies of out-of-range behaviour)
};

/// Options of one gemm call.
struct GemmOptions {
  Scheme scheme = parse_scheme("auto");  ///< scheme to use; "auto" chooses per call
  RangePolicy range_policy = RangePolicy::fallback;
  /// Cost model `auto` uses; nullptr = the backend's own (CostModel::host() on the host; on the GPU
  /// the device's measured model per execution.calibration, tcemu/cuda/calibrate.hpp).
  const CostModel* cost_model = nullptr;
  /// How the backend executes the resolved scheme (fused or multi-pass, chunking, the cost model's
  /// source, ...): tcemu/execution.hpp. The defaults are the measured-fastest choices.
  ExecutionPolicy execution;
};

/// What a gemm call did.
struct GemmReport {
  Scheme requested;
  Scheme used;                  ///< after auto's choice and any range fallback
  bool fell_back = false;       ///< true when the range check replaced the requested scheme
  std::string note;             ///< why it fell back (names the operand and the rule), or ""
  /// What the planning step decided: auto's choice (candidates empty when auto was not used; on the
  /// CUDA backend, when auto's pick for in-range operands is native arithmetic, the plan is that one,
  /// made on a nominal profile: no real profile can change a native pick, so the operands are not
  /// profiled), and in plan.execution how the call ran: scheme, slices, implementation and why,
  /// orientation and why, overlap policy, the stages in the order run, workspace bytes.
  /// plan.explain() prints both.
  Plan plan;
  double seconds_split = 0;     ///< range profile + split of both operands
  double seconds_products = 0;  ///< the part products (BLAS / Tensor Core GEMMs)
  double seconds_combine = 0;   ///< combining the accumulators into C
  /// What computed the products of `used`: "host (CBLAS)", "cuBLAS", "fused (wgmma)", "fused (mma.sync)",
  /// "multi-pass (cuBLAS per group)", "Ozaki slices (cuBLAS INT8)", "MixPert kernel", "int8-crt: residue
  /// pass, cuBLAS INT8 (...), reconstruction pass"; "" when nothing ran
  /// (an empty C). A fused request for a scheme without a fused kernel shows here as multi-pass.
  std::string kernels;
  /// int8-crt: the modulus count and the certified bound that chose it (crt::Certificate::text), or
  /// "N = <n> moduli (given)"; "" for other schemes.
  std::string certificate;
};

/// Host backend on raw strided views (see file comment). Splits run as Kokkos host loops, products
/// through CBLAS on the split parts. Throws InvalidArgument on inconsistent shapes (the message names
/// the operand and the shapes), or for an out-of-range operand under RangePolicy::error.
/// Requires Kokkos to be initialized.
template <class T>
GemmReport gemm_host(Op opA, Op opB, T alpha, MatrixView<const T> A, MatrixView<const T> B, T beta,
                     MatrixView<T> C, const GemmOptions& options = {});

/// Resolves the scheme a backend will run, shared by all backends: auto's plan (with
/// options.cost_model, else `backend_model`), the Ozaki slice count when the scheme leaves it open
/// (ozaki_slices_for), and the range check of both operands under options.range_policy. Fills
/// report.requested/used/fell_back/note/plan and returns the scheme to run (never auto, never Ozaki
/// with 0 slices). Throws InvalidArgument under RangePolicy::error, naming the operand and the rule.
Scheme resolve_scheme(const GemmOptions& options, const RangeProfile& a, const RangeProfile& b,
                      std::int64_t m, std::int64_t n, std::int64_t k, const CostModel& backend_model,
                      GemmReport& report);

/// Checks that op(A) (m x k), op(B) (k x n) and C (m x n) agree; throws InvalidArgument otherwise.
void check_gemm_shapes(std::int64_t a_rows, std::int64_t a_cols, std::int64_t b_rows,
                       std::int64_t b_cols, std::int64_t c_rows, std::int64_t c_cols);

#if defined(TCEMU_HAVE_CUDA)
}  // namespace tcemu
struct CUstream_st;
namespace tcemu::cuda {
class Workspace;
/// CUDA backend (declared fully, with its documentation, in tcemu/cuda/gemm_cuda.hpp).
template <class T>
GemmReport gemm_device(Op opA, Op opB, T alpha, MatrixView<const T> A, MatrixView<const T> B, T beta,
                       MatrixView<T> C, const GemmOptions& options, ::CUstream_st* stream,
                       Workspace* ws);
}  // namespace tcemu::cuda
namespace tcemu {
#endif

namespace detail {

/// int8-mixpert's range check on both packed operands (x = op(A), m x k; y = op(B), k x n): "" or a
/// one-line reason naming the operand (tcemu/mixpert.hpp, violation()).
std::string mixpert_violation(const mixpert::PackCheck& a, const mixpert::PackCheck& b, std::int64_t m,
                              std::int64_t n, std::int64_t k);

/// The fallback of a scheme whose check runs inside its arithmetic path (int8-mixpert's tile rule,
/// int8-crt's certificate), shared by the backends: under RangePolicy::error throws InvalidArgument
/// with `why`; otherwise runs `run(options with the descriptor's fallback scheme)` (int8-mixpert:
/// bf16x3, as the paper falls back to half-precision emulation, whose own range check may go on to
/// native FP32; none named, as int8-crt: native arithmetic of the target) and returns its report
/// with requested = options.scheme, fell_back and a note that starts with `why`.
template <class Run>
GemmReport scheme_fallback(const GemmOptions& options, const std::string& why, Run run) {
  if (options.range_policy == RangePolicy::error)
    throw InvalidArgument("gemm with scheme " + options.scheme.name + ": " + why);
  GemmOptions o = options;
  // The descriptor's fallback, or native arithmetic of the target when it names none.
  const char* fallback = schemes::descriptor(options.scheme.kind).fallback;
  o.scheme = fallback ? parse_scheme(fallback) : parse_scheme(to_string(options.scheme.target));
  GemmReport r = run(o);
  r.requested = options.scheme;
  r.fell_back = true;
  r.note = options.scheme.name + " -> " + r.used.name + ": " + why + (r.note.empty() ? "" : "; then " + r.note);
  return r;
}

/// auto's int8-crt pick whose certificate found no N (`why`; C untouched), shared by the backends:
/// runs `run(options with the plan's next pick)` (pick_without_crt(auto_report.plan)) and returns
/// its report with requested = options.scheme, fell_back, the note "<crt_name> -> <next>: <why>",
/// and auto's plan whose execution is the next pick's and whose certificate line says what ran.
template <class Run>
GemmReport crt_next_pick(const GemmOptions& options, const GemmReport& auto_report, const std::string& crt_name,
                         const std::string& why, Run run) {
  GemmOptions o = options;
  o.scheme = pick_without_crt(auto_report.plan);
  GemmReport r = run(o);
  r.requested = options.scheme;
  r.fell_back = true;
  r.note = crt_name + " -> " + r.used.name + ": " + why + (r.note.empty() ? "" : "; then " + r.note);
  Plan auto_plan = auto_report.plan;  // auto's plan, with how the next pick ran
  auto_plan.execution = r.plan.execution;
  auto_plan.certificate = why + "; ran " + r.used.name + " instead (the next pick)";
  r.plan = auto_plan;
  return r;
}

/// int8-mixpert's name for scheme_fallback (the backends' tile-rule fallback).
template <class Run>
GemmReport mixpert_fallback(const GemmOptions& options, const std::string& why, Run run) {
  return scheme_fallback(options, why, run);
}

// ---- The Kokkos View entry's machinery (the entry itself follows the namespace).

/// Element types of the View entry and the core's type for each: float, double, and the complex
/// types Kokkos::complex<float|double> and std::complex<float|double> (both {re, im} pairs, read as
/// std::complex by the core's complex GEMMs). `type` is void for any other element type.
template <class V>
struct core_scalar {
  using type = void;
};
template <>
struct core_scalar<float> {
  using type = float;
};
template <>
struct core_scalar<double> {
  using type = double;
};
template <class R>
struct core_scalar<Kokkos::complex<R>> {
  using type = std::conditional_t<std::is_same_v<R, float> || std::is_same_v<R, double>, std::complex<R>, void>;
};
template <class R>
struct core_scalar<std::complex<R>> {
  using type = std::conditional_t<std::is_same_v<R, float> || std::is_same_v<R, double>, std::complex<R>, void>;
};

template <class V>
auto to_core_scalar(const V& v) {
  using C = typename core_scalar<V>::type;
  if constexpr (std::is_same_v<C, V>) {
    return v;
  } else {
    return C(v.real(), v.imag());
  }
}

/// The View as the core's strided MatrixView (no copy; strides in elements of the View's type).
template <class View>
auto to_matrix_view(const View& v) {
  static_assert(View::rank == 2, "tcemu::gemm needs rank-2 Views");
  using V = typename View::value_type;  // may be const
  using Core = typename core_scalar<std::remove_const_t<V>>::type;
  using T = std::conditional_t<std::is_const_v<V>, const Core, Core>;
  static_assert(sizeof(Core) == sizeof(std::remove_const_t<V>), "tcemu::gemm: element type layout");
  return MatrixView<T>{reinterpret_cast<T*>(v.data()), static_cast<std::int64_t>(v.extent(0)),
                       static_cast<std::int64_t>(v.extent(1)), static_cast<std::int64_t>(v.stride(0)),
                       static_cast<std::int64_t>(v.stride(1))};
}

/// Which kind of memory a Kokkos memory space is, for the View entry's checks.
enum class ViewSpace {
  host,         ///< host memory only (HostSpace and other host-accessible, non-CUDA spaces)
  cuda_device,  ///< Kokkos::CudaSpace
  cuda_uvm,     ///< Kokkos::CudaUVMSpace (managed: host and device)
  cuda_pinned,  ///< Kokkos::CudaHostPinnedSpace (page-locked host memory the GPU can read and write)
  other,        ///< a space neither the host nor tcemu's CUDA backend can access
};

template <class M>
constexpr ViewSpace view_space() {
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same_v<M, Kokkos::CudaSpace>) return ViewSpace::cuda_device;
  if constexpr (std::is_same_v<M, Kokkos::CudaUVMSpace>) return ViewSpace::cuda_uvm;
  if constexpr (std::is_same_v<M, Kokkos::CudaHostPinnedSpace>) return ViewSpace::cuda_pinned;
#endif
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, M>::accessible) return ViewSpace::host;
  return ViewSpace::other;
}

/// The memory space's name in messages: its C++ name for the spaces tcemu knows, else Kokkos' name().
template <class M>
std::string view_space_name() {
  if constexpr (std::is_same_v<M, Kokkos::HostSpace>) return "Kokkos::HostSpace";
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same_v<M, Kokkos::CudaSpace>) return "Kokkos::CudaSpace";
  if constexpr (std::is_same_v<M, Kokkos::CudaUVMSpace>) return "Kokkos::CudaUVMSpace";
  if constexpr (std::is_same_v<M, Kokkos::CudaHostPinnedSpace>) return "Kokkos::CudaHostPinnedSpace";
#endif
  return M::name();
}

/// True for Kokkos::Cuda (when Kokkos has the CUDA backend).
template <class E>
constexpr bool is_cuda_execution_space() {
#if defined(KOKKOS_ENABLE_CUDA)
  return std::is_same_v<E, Kokkos::Cuda>;
#else
  return false;
#endif
}

/// True for execution spaces whose work runs on the host (Serial, OpenMP, Threads, ...).
template <class E>
constexpr bool is_host_execution_space() {
  return !is_cuda_execution_space<E>() && Kokkos::SpaceAccessibility<E, Kokkos::HostSpace>::accessible;
}

/// Throws InvalidArgument when `operand`'s memory space M cannot be used on execution space E.
template <class E, class M>
void check_view_space(const char* operand) {
  constexpr ViewSpace s = view_space<M>();
  if constexpr (is_cuda_execution_space<E>()) {
    if constexpr (s == ViewSpace::host || s == ViewSpace::other)
      throw InvalidArgument(std::string("tcemu::gemm: ") + operand + " is in memory space " + view_space_name<M>() +
                            ", which the Kokkos::Cuda instance cannot access: copy it to Kokkos::CudaSpace "
                            "(Kokkos::create_mirror_view_and_copy) or pass a host execution space instance");
  } else {
    if constexpr (s == ViewSpace::cuda_device || s == ViewSpace::other)
      throw InvalidArgument(std::string("tcemu::gemm: ") + operand + " is in memory space " + view_space_name<M>() +
                            ", which the host execution space " + E::name() +
                            " cannot access: pass a Kokkos::Cuda instance or copy it to a host space");
  }
}

/// The host backend of the View entry (core/src/common/view_gemm.cpp): gemm_host for float and
/// double, complex_gemm_host for std::complex<float|double>.
template <class T>
GemmReport view_gemm_host(Op opA, Op opB, T alpha, MatrixView<const T> A, MatrixView<const T> B, T beta,
                          MatrixView<T> C, const GemmOptions& options);

#if defined(TCEMU_HAVE_CUDA)
/// The CUDA backend of the View entry (core/src/common/view_gemm.cpp): cuda::gemm_device or
/// cuda::complex_gemm_device on `stream` with the workspace of `resources` (nullptr: the per-thread
/// default workspace, synchronous); waits for the stream at the end when the call is synchronous.
template <class T>
GemmReport view_gemm_cuda(Op opA, Op opB, T alpha, MatrixView<const T> A, MatrixView<const T> B, T beta,
                          MatrixView<T> C, const GemmOptions& options, ::CUstream_st* stream,
                          Resources* resources);
#endif

template <class ExecSpace, class ViewA, class ViewB, class ViewC>
GemmReport gemm_views(const ExecSpace& space, Op opA, Op opB, typename ViewC::non_const_value_type alpha,
                      const ViewA& A, const ViewB& B, typename ViewC::non_const_value_type beta, const ViewC& C,
                      const GemmOptions& options, Resources* resources) {
  static_assert(Kokkos::is_execution_space<ExecSpace>::value,
                "tcemu::gemm: the first argument must be a Kokkos execution space instance");
  static_assert(is_cuda_execution_space<ExecSpace>() || is_host_execution_space<ExecSpace>(),
                "tcemu::gemm: execution space has no tcemu backend (host spaces and Kokkos::Cuda have)");
  static_assert(ViewA::rank == 2 && ViewB::rank == 2 && ViewC::rank == 2, "tcemu::gemm needs rank-2 Views");
  using V = typename ViewC::non_const_value_type;
  static_assert(std::is_same_v<typename ViewA::non_const_value_type, V> &&
                    std::is_same_v<typename ViewB::non_const_value_type, V>,
                "tcemu::gemm: A, B and C must have the same element type");
  static_assert(!std::is_void_v<typename core_scalar<V>::type>,
                "tcemu::gemm: element type must be float, double, Kokkos::complex<float|double> or "
                "std::complex<float|double>");
  static_assert(!std::is_const_v<typename ViewC::value_type>, "tcemu::gemm: C must not be a const View");
  using T = typename core_scalar<V>::type;
  check_view_space<ExecSpace, typename ViewA::memory_space>("A");
  check_view_space<ExecSpace, typename ViewB::memory_space>("B");
  check_view_space<ExecSpace, typename ViewC::memory_space>("C");
  const MatrixView<const T> a = to_matrix_view(A).as_const();
  const MatrixView<const T> b = to_matrix_view(B).as_const();
  const MatrixView<T> c = to_matrix_view(C);
  const T al = to_core_scalar(alpha), be = to_core_scalar(beta);
  if constexpr (is_cuda_execution_space<ExecSpace>()) {
#if defined(TCEMU_HAVE_CUDA)
    return view_gemm_cuda<T>(opA, opB, al, a, b, be, c, options, space.cuda_stream(), resources);
#else
    (void)space, (void)resources;
    throw DeviceError("tcemu::gemm: this tcemu was built without its CUDA backend (TCEMU_ENABLE_CUDA=OFF), "
                      "so it cannot run on a Kokkos::Cuda instance");
#endif
  } else {
    (void)resources;  // the host backend keeps per-thread scratch (resources.hpp)
    space.fence();    // work queued on the instance before the call completes first
    return view_gemm_host<T>(opA, opB, al, a, b, be, c, options);
  }
}
}  // namespace detail

/// C = alpha * op(A) * op(B) + beta * C on Kokkos Views, on the execution space instance `space`
/// (the Kokkos Kernels style: KokkosBlas::gemm(space, ...)).
///
/// Views: rank 2, any of LayoutLeft, LayoutRight and LayoutStride (padded or transposed sub-views
/// too), each operand in its own layout; A and B may be const Views, C not. op(A) is m x k, op(B)
/// k x n, C m x n (extent(0) rows, extent(1) columns). Element types, the same for all three: float
/// or double (real GEMM: gemm_host / cuda::gemm_device), Kokkos::complex<float|double> or
/// std::complex<float|double> (complex GEMM, tcemu/complex_gemm.hpp: 4M on the host; on the GPU 4M or
/// the real embedding per options.execution.complex); alpha and beta have the element type.
/// beta == 0: C is not read (it may hold NaN). Padding of strided Views is never written.
///
/// Where it runs (each View must be accessible from `space`; InvalidArgument naming the operand and
/// its memory space otherwise):
///  - a host execution space (Serial, OpenMP, ...): the host backend (its loops run on
///    Kokkos::DefaultHostExecutionSpace, its products in CBLAS), on Views in HostSpace,
///    CudaHostPinnedSpace or CudaUVMSpace (UVM read on the host: GPU work that writes those Views
///    must be fenced first, as for any host access). `space` is fenced first; the call returns with
///    C complete. CudaSpace Views -> InvalidArgument.
///  - Kokkos::Cuda (a GPU build: TCEMU_HAVE_CUDA and a CUDA-enabled Kokkos 4, docs/kokkos.md): the
///    CUDA backend on the instance's stream (space.cuda_stream()), ordered after the work already
///    queued on that instance, on Views in CudaSpace, CudaUVMSpace (managed memory, read and written
///    in place by the kernels) or CudaHostPinnedSpace (read and written in place over the bus: works,
///    slowly). Completion: without `resources` the call returns when C holds the result; with them,
///    per resources.synchronous (tcemu/resources.hpp). HostSpace Views -> InvalidArgument. A tcemu
///    built without its CUDA backend throws DeviceError.
///
/// `resources`: the workspace the CUDA backend reuses between calls (tcemu/resources.hpp); without
/// it the per-thread default workspace (tcemu::cuda::default_workspace()) is used.
/// Throws InvalidArgument on shape mismatch (naming the operand and the shapes), for a memory space
/// the instance cannot access, or under RangePolicy::error for an out-of-range operand; DeviceError
/// when a CUDA/cuBLAS call fails. Requires Kokkos to be initialized.
template <class ExecSpace, class ViewA, class ViewB, class ViewC,
          class = std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value>>
GemmReport gemm(const ExecSpace& space, Op opA, Op opB, typename ViewC::non_const_value_type alpha,
                const ViewA& A, const ViewB& B, typename ViewC::non_const_value_type beta, const ViewC& C,
                const GemmOptions& options, Resources& resources) {
  return detail::gemm_views(space, opA, opB, alpha, A, B, beta, C, options, &resources);
}

/// The same with the per-thread default workspace; returns when C holds the result.
template <class ExecSpace, class ViewA, class ViewB, class ViewC,
          class = std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value>>
GemmReport gemm(const ExecSpace& space, Op opA, Op opB, typename ViewC::non_const_value_type alpha,
                const ViewA& A, const ViewB& B, typename ViewC::non_const_value_type beta, const ViewC& C,
                const GemmOptions& options = {}) {
  return detail::gemm_views(space, opA, opB, alpha, A, B, beta, C, options, nullptr);
}

/// The same on the default instance of the execution space the Views' memory spaces imply:
/// Kokkos::Cuda() when any View is in CudaSpace or CudaUVMSpace, Kokkos::DefaultHostExecutionSpace()
/// when all are in host memory. Views in CudaHostPinnedSpace with no CudaSpace / CudaUVMSpace View
/// beside them are reachable from both and throw InvalidArgument (naming the operand and the space):
/// pass an instance to say where to run. Otherwise as the entry above (same element types, layouts,
/// shapes, errors); returns when C holds the result.
template <class ViewA, class ViewB, class ViewC,
          class = std::enable_if_t<Kokkos::is_view<ViewA>::value && Kokkos::is_view<ViewB>::value &&
                                   Kokkos::is_view<ViewC>::value>>
GemmReport gemm(Op opA, Op opB, typename ViewC::non_const_value_type alpha, const ViewA& A, const ViewB& B,
                typename ViewC::non_const_value_type beta, const ViewC& C, const GemmOptions& options = {}) {
  constexpr detail::ViewSpace sa = detail::view_space<typename ViewA::memory_space>(),
                              sb = detail::view_space<typename ViewB::memory_space>(),
                              sc = detail::view_space<typename ViewC::memory_space>();
  constexpr auto on_gpu = [](detail::ViewSpace s) {
    return s == detail::ViewSpace::cuda_device || s == detail::ViewSpace::cuda_uvm;
  };
  if constexpr (on_gpu(sa) || on_gpu(sb) || on_gpu(sc)) {
#if defined(KOKKOS_ENABLE_CUDA)
    return detail::gemm_views(Kokkos::Cuda(), opA, opB, alpha, A, B, beta, C, options, nullptr);
#endif
  } else {
    const char* pinned = sa == detail::ViewSpace::cuda_pinned   ? "A"
                         : sb == detail::ViewSpace::cuda_pinned ? "B"
                         : sc == detail::ViewSpace::cuda_pinned ? "C"
                                                                : nullptr;
    if (pinned)
      throw InvalidArgument(std::string("tcemu::gemm: ") + pinned +
                            " is in memory space Kokkos::CudaHostPinnedSpace, which the host and the GPU can both "
                            "access: pass an execution space instance (Kokkos::Cuda() to run on the GPU, "
                            "Kokkos::DefaultHostExecutionSpace() on the host)");
    return detail::gemm_views(Kokkos::DefaultHostExecutionSpace(), opA, opB, alpha, A, B, beta, C, options,
                              nullptr);
  }
}

}  // namespace tcemu
