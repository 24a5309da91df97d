#pragma once
// The host backend's three arithmetic paths. a = op(A) (m x k), b = op(B) (k x n), both strided views
// into the caller's data; C is m x n. Each path adds its wall-clock seconds to `t`.
#include <functional>

#include "tcemu/matrix.hpp"
#include "tcemu/mixpert.hpp"
#include "tcemu/scheme.hpp"

namespace tcemu::host {

struct Timings {
  double split = 0, products = 0, combine = 0;
};

/// FP32 part schemes (fp32, tf32, bf16, fp16, fp16x2*, tf32x2, bf16x3, bf16x9): split both operands
/// into FP32 arrays holding the parts, one SGEMM per part product into the group's FP32 accumulator,
/// combine C = alpha * sum_g 2^scale_g acc_g + beta * C (smallest group first).
template <class T>
void gemm_parts(const Scheme& s, T alpha, MatrixView<const T> a, MatrixView<const T> b, T beta,
                MatrixView<T> C, Timings& t);

/// Native FP64: copy to contiguous FP64, DGEMM, C = alpha * R + beta * C.
template <class T>
void gemm_fp64(T alpha, MatrixView<const T> a, MatrixView<const T> b, T beta, MatrixView<T> C,
               Timings& t);

/// Ozaki scheme on INT8 slices (ozIMMU): see ozaki.cpp.
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
