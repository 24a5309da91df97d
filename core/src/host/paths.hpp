#pragma once
// The host backend's arithmetic paths. a = op(A) (m x k), b = op(B) (k x n), both strided views
// into the caller's data; C is m x n. Each path adds its wall-clock seconds to `t`.
#include <functional>
#include <memory>

#include "tcemu/matrix.hpp"
#include "tcemu/mixpert.hpp"
#include "tcemu/scheme.hpp"

namespace tcemu::host {

struct Timings {
  double split = 0, products = 0, combine = 0;
};

/// One call's path as explicit stages, which gemm_host runs in the order split -> products ->
/// combine (each once; a stage adds its wall-clock seconds to the Timings it was made with). The
/// object holds the views and scratch pointers of the call: it must not outlive them.
class Stages {
 public:
  virtual ~Stages() = default;
  virtual void split() = 0;     ///< both operands into their parts
  virtual void products() = 0;  ///< the part products into the group accumulators
  virtual void combine() = 0;   ///< C = alpha * sum of the groups + beta * C
};

/// FP32 part schemes (fp32, tf32, bf16, fp16, fp16x2*, tf32x2, bf16x3, bf16x9 and the line-aligned
/// ones): split both operands into FP32 arrays holding the parts, one SGEMM per part product into
/// the group's FP32 accumulator, combine C = alpha * sum_g 2^scale_g acc_g + beta * C (smallest
/// group first).
template <class T>
std::unique_ptr<Stages> parts_stages(const Scheme& s, T alpha, MatrixView<const T> a, MatrixView<const T> b, T beta,
                                     MatrixView<T> C, Timings& t);

/// Native FP64: copy to contiguous FP64 (split), DGEMM (products), C = alpha * R + beta * C (combine).
template <class T>
std::unique_ptr<Stages> fp64_stages(T alpha, MatrixView<const T> a, MatrixView<const T> b, T beta, MatrixView<T> C,
                                    Timings& t);

/// Ozaki scheme on INT8 slices (ozIMMU): see ozaki.cpp. Its split, products and combine run per block
/// of rows and columns (a memory budget), interleaved inside this one function.
template <class T>
void gemm_ozaki(int slices, T alpha, MatrixView<const T> a, MatrixView<const T> b, T beta,
                MatrixView<T> C, Timings& t);

/// int8-crt (Ozaki scheme II, tcemu/crt.hpp; crt_path.cpp): crt::crt_gemm_host with N = s.parts
/// (0: the smallest N crt::certify certifies for s.target, cauchy-schwarz scaling). Returns "" when C
/// was computed, with `certificate` set to what chose N; otherwise the one-line reason why no N in
/// the table is certified, C untouched (the caller falls back). `force` (RangePolicy::ignore) runs
/// N = 20 instead of failing. Finite operands only (resolve_scheme sends NaN/Inf to native).
template <class T>
std::string gemm_crt(const Scheme& s, T alpha, MatrixView<const T> a, MatrixView<const T> b, T beta,
                     MatrixView<T> C, Timings& t, bool force, std::string& certificate);

/// Range checks of both packed operands of int8-mixpert (x = op(A), y = op(B)).
struct MixpertChecks {
  mixpert::PackCheck a, b;
};

/// int8-mixpert at s.level (tcemu/mixpert.hpp; mixpert.cpp): packs both operands, then computes
/// C = alpha * acc + beta * C if proceed(their range checks) says so.
template <class T>
void gemm_mixpert(const Scheme& s, T alpha, MatrixView<const T> a, MatrixView<const T> b, T beta,
                  MatrixView<T> C, Timings& t, const std::function<bool(const MixpertChecks&)>& proceed);

}  // namespace tcemu::host
