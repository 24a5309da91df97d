// tcemu-bench: rate and accuracy of tcemu's CUDA schemes against cuBLAS, side by side in one process
// (docs/benchmarks.md, "Measurement rules"). Built only with the CUDA backend.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <CLI/CLI.hpp>
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <unistd.h>

#include "app_common/environment.hpp"
#include "tcemu/complex_gemm.hpp"
#include "tcemu/cuda/calibrate.hpp"
#include "tcemu/cuda/gemm_cuda.hpp"
#include "tcemu/cuda/hybrid_cuda.hpp"
#include "tcemu/cuda/timing.hpp"
#include "tcemu/cuda/reference_cuda.hpp"

namespace {
using namespace tcemu;
using namespace tcemu::cuda;

#define CK(call)                                                                                   \
  do {                                                                                             \
    cudaError_t e_ = (call);                                                                       \
    if (e_ != cudaSuccess) throw DeviceError(std::string(#call) + ": " + cudaGetErrorString(e_)); \
  } while (0)
#define CB(call)                                                                                     \
  do {                                                                                               \
    cublasStatus_t s_ = (call);                                                                      \
    if (s_ != CUBLAS_STATUS_SUCCESS) throw DeviceError(std::string(#call) + ": " + cublasGetStatusName(s_)); \
  } while (0)

struct Shape {
  std::string name;
  std::int64_t m, n, k;
  bool complex = false;
};

/// "8192" (square), "MxNxK", "knn" (1024 queries x 60000 train x 784), "kmeans" (70000 x 1024 x 784),
/// "qsim:N:D" (complex 2^(N-D) x 2^D x 2^D: a D-qubit gate on an N-qubit state).
Shape parse_shape(const std::string& s) {
  if (s == "knn") return {"knn", 1024, 60000, 784};
  if (s == "kmeans") return {"kmeans", 70000, 1024, 784};
  if (s.rfind("qsim:", 0) == 0) {
    int nq = 0, d = 0;
    if (std::sscanf(s.c_str(), "qsim:%d:%d", &nq, &d) != 2 || d < 1 || nq <= d || nq > 34)
      throw InvalidArgument("bad qsim shape '" + s + "' (want qsim:N:D with 0 < D < N <= 34)");
    return {s, std::int64_t{1} << (nq - d), std::int64_t{1} << d, std::int64_t{1} << d, true};
  }
  if (s.rfind("complex:", 0) == 0) {  // any real shape as a complex GEMM: complex:4096, complex:MxNxK
    Shape z = parse_shape(s.substr(8));
    if (z.complex) throw InvalidArgument("bad shape '" + s + "' (complex: takes a real shape)");
    z.name = s;
    z.complex = true;
    return z;
  }
  long long m = 0, n = 0, k = 0;
  if (std::sscanf(s.c_str(), "%lldx%lldx%lld", &m, &n, &k) == 3) return {s, m, n, k};
  if (std::sscanf(s.c_str(), "%lld", &m) == 1 && m > 0) return {s, m, m, m};
  throw InvalidArgument("bad shape '" + s + "' (want N, MxNxK, knn, kmeans, qsim:N:D or complex:<shape>)");
}

struct Row {
  std::string shape, dist, method, kind, target, used;
  std::int64_t m = 0, n = 0, k = 0;
  bool complex = false;
  double median_ms = 0, min_ms = 0, tflops = 0, speedup = 0, err = NAN, median_rel_err = NAN;
  double max_rel_err = NAN;  ///< FP64 data: the largest per-entry relative error over the samples
  double split_ms = 0, products_ms = 0, combine_ms = 0;
  std::string note;
};

/// One scheme's run in an --auto-grid case.
struct GridTiming {
  std::string method, used, note;
  double ms = 0, err = NAN;
  bool fell_back = false, meets = false;  ///< meets: error <= the case's limit, all outputs finite
};

/// One (shape, distribution, target) case of --auto-grid.
struct GridCase {
  std::string shape, dist, target;
  std::int64_t m = 0, n = 0, k = 0;
  double native_err = NAN, err_limit = NAN;  ///< cuBLAS SGEMM/DGEMM's error and 2x it
  std::vector<GridTiming> timings;           ///< every scheme that meets the target (by catalogue)
  GridTiming auto_run;                       ///< the auto call itself (profile pass included)
  Plan plan;                                 ///< auto's plan
  std::string fastest, pick;
  double fastest_ms = 0, pick_ms = 0, pick_err = NAN, predicted_ms = NAN;
  /// auto's own call (profile and planning included) and the fastest scheme timed against each other
  /// call by call (time_runs_interleaved), so that the GPU's clock drift between the sweep's blocks
  /// of calls (hot after the INT8 schemes, 5-15 % on an H100) does not decide the ratio.
  double auto_interleaved_ms = NAN, fastest_interleaved_ms = NAN;
  double ratio = NAN;       ///< auto_interleaved_ms / fastest_interleaved_ms
  double pick_ratio = NAN;  ///< the pick's time when called by name / fastest_ms
  double limit = NAN;       ///< ratio allowed: 1.05 when m, n, k >= 4096, else 1.10
  bool pick_meets = false, pass = false;
};

template <class T>
struct DevMat {
  T* p = nullptr;
  std::int64_t rows = 0, cols = 0;
  DevMat(std::int64_t r, std::int64_t c) : rows(r), cols(c) {
    CK(cudaMalloc(&p, sizeof(T) * std::max<std::int64_t>(1, r * c)));
  }
  ~DevMat() { cudaFree(p); }
  DevMat(const DevMat&) = delete;
  DevMat& operator=(const DevMat&) = delete;
  MatrixView<T> view() const { return col_major(p, rows, cols); }
  MatrixView<const T> cview() const { return col_major<const T>(p, rows, cols); }
};

/// cuda::time_runs as (median, min) in ms.
std::pair<double, double> timed(const std::function<void()>& f, int warmup, int reps) {
  const cuda::RunTimes t = cuda::time_runs(f, warmup, reps);
  return {t.median_ms, t.min_ms};
}

struct Config {
  int warmup = 2, repeat = 10, samples = 4096;
  bool errors = true;
  bool explain = false;  ///< print the plan (stderr) of every row (auto's choice included) / grid case
  std::uint64_t seed = 20240501;
  /// CUDA implementations to time for the multi-part schemes (one row each when more than one).
  std::vector<CudaKernels> kernels = {CudaKernels::automatic};
  /// Several implementations: time them call by call in turn (true) or one block of calls after the other.
  bool interleave = true;
  /// > 0: the last fraction of op(A)'s rows is scaled by 2^20 (outside fp16x2's range) and an APE
  /// hybrid row (tcemu/hybrid.hpp) is added after the schemes.
  double hybrid_rows = 0;
};

double flops(const Shape& s) { return (s.complex ? 8.0 : 2.0) * double(s.m) * double(s.n) * double(s.k); }

/// Sampled entries for the FP64-target error (fixed seed, uniform over C).
std::pair<std::vector<std::int64_t>, std::vector<std::int64_t>> sample_entries(const Shape& s, int count) {
  std::mt19937_64 g(12345);
  std::vector<std::int64_t> r(count), c(count);
  for (int e = 0; e < count; ++e) {
    r[e] = static_cast<std::int64_t>(g() % static_cast<std::uint64_t>(s.m));
    c[e] = static_cast<std::int64_t>(g() % static_cast<std::uint64_t>(s.n));
  }
  return {r, c};
}

/// Errors of sampled entries c against their references r (FP64 data).
struct SampledErrors {
  double frobenius = NAN;  ///< relative Frobenius error over the samples
  double median = NAN;     ///< median per-entry relative error (entries with r != 0)
  double max = NAN;        ///< largest per-entry relative error (entries with r != 0; a NaN in c gives NaN)
};

/// The three errors of SampledErrors; c and r of equal length.
SampledErrors sampled_errors(const std::vector<double>& c, const std::vector<double>& r) {
  double d2 = 0, r2 = 0;
  std::vector<double> rel;
  for (std::size_t e = 0; e < c.size(); ++e) {
    d2 += (c[e] - r[e]) * (c[e] - r[e]);
    r2 += r[e] * r[e];
    if (r[e] != 0) rel.push_back(std::fabs(c[e] - r[e]) / std::fabs(r[e]));
  }
  if (rel.empty()) return {std::sqrt(d2 / r2), NAN, NAN};
  const bool nan = std::any_of(rel.begin(), rel.end(), [](double x) { return std::isnan(x); });
  std::sort(rel.begin(), rel.end());  // NaNs (unordered) make the median meaningless: reported as NaN
  return {std::sqrt(d2 / r2), nan ? NAN : rel[rel.size() / 2], nan ? NAN : rel.back()};
}

/// Sets a row's three FP64 errors.
void set_errors(Row& row, const SampledErrors& e) {
  row.err = e.frobenius;
  row.median_rel_err = e.median;
  row.max_rel_err = e.max;
}

class Bench {
 public:
  Bench(const Config& cfg) : cfg_(cfg) {
    CB(cublasCreate(&h_));
    CB(cublasSetMathMode(h_, CUBLAS_DEFAULT_MATH));
    ws_.record_timings = false;
  }
  ~Bench() { cublasDestroy(h_); }
  std::vector<Row> rows;

  /// FP32 data: cuBLAS SGEMM, 1xTF32, cuBLAS BF16x9 emulation, then tcemu schemes; error vs DGEMM.
  void real_fp32(const Shape& s, const Distribution& dist, const std::vector<Scheme>& schemes) {
    DevMat<float> A(s.m, s.k), B(s.k, s.n), C(s.m, s.n);
    fill_random_device(A.view(), dist, cfg_.seed++, nullptr);
    fill_random_device(B.view(), dist, cfg_.seed++, nullptr);
    if (cfg_.hybrid_rows > 0) scale_last_rows(A, cfg_.hybrid_rows, 1048576.0f);
    std::unique_ptr<DevMat<double>> R;
    if (cfg_.errors) {  // FP64 reference: DGEMM of the same inputs, rounded once (error ~1e-16)
      DevMat<double> Ad(s.m, s.k), Bd(s.k, s.n);
      R = std::make_unique<DevMat<double>>(s.m, s.n);
      to_double_device(A.cview(), Ad.p, s.m, nullptr);
      to_double_device(B.cview(), Bd.p, s.k, nullptr);
      const double one = 1, zero = 0;
      CB(cublasDgemm(h_, CUBLAS_OP_N, CUBLAS_OP_N, int(s.m), int(s.n), int(s.k), &one, Ad.p, int(s.m), Bd.p,
                     int(s.k), &zero, R->p, int(s.m)));
      CK(cudaDeviceSynchronize());
    }
    auto err = [&]() { return R ? rel_frobenius_device(C.cview(), R->p, s.m, nullptr) : NAN; };
    const float one = 1, zero = 0;
    const int m = int(s.m), n = int(s.n), k = int(s.k);
    double native = 0;
    auto baseline = [&](const std::string& name, const std::function<void()>& f) {
      Row r = base_row(s, dist, name, "cublas", "fp32");
      try {
        fill_value_device(C.view(), NAN, nullptr);
        const auto [med, mn] = timed(f, cfg_.warmup, cfg_.repeat);
        r.median_ms = med;
        r.min_ms = mn;
        r.tflops = flops(s) / (med * 1e-3) / 1e12;
        r.err = err();
      } catch (const std::exception& e) {
        r.note = e.what();
        (void)cudaGetLastError();
      }
      if (name == "cublas-sgemm") native = r.median_ms;
      r.speedup = r.median_ms > 0 ? native / r.median_ms : 0;
      rows.push_back(r);
    };
    baseline("cublas-sgemm", [&] {
      CB(cublasSgemm(h_, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, A.p, m, B.p, k, &zero, C.p, m));
    });
    baseline("cublas-1xtf32", [&] {
      CB(cublasGemmEx(h_, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, A.p, CUDA_R_32F, m, B.p, CUDA_R_32F, k,
                      &zero, C.p, CUDA_R_32F, m, CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT));
    });
    baseline("cublas-bf16x9", [&] {
      CB(cublasSetEmulationStrategy(h_, CUBLAS_EMULATION_STRATEGY_EAGER));
      CB(cublasGemmEx(h_, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, A.p, CUDA_R_32F, m, B.p, CUDA_R_32F, k,
                      &zero, C.p, CUDA_R_32F, m, CUBLAS_COMPUTE_32F_EMULATED_16BFX9, CUBLAS_GEMM_DEFAULT));
    });
    CB(cublasSetEmulationStrategy(h_, CUBLAS_EMULATION_STRATEGY_DEFAULT));
    for (const Scheme& sc : schemes) {
      tcemu_row<float>(s, dist, sc, A.cview(), B.cview(), C.view(), native, err);
    }
    if (cfg_.hybrid_rows > 0) hybrid_row(s, dist, A.cview(), B.cview(), C.view(), native, err);
  }

  /// Scales rows [m (1 - fraction), m) of the column-major A by `factor` (cublasSdgmm into a copy).
  void scale_last_rows(DevMat<float>& A, double fraction, float factor) {
    const std::int64_t first = A.rows - static_cast<std::int64_t>(fraction * double(A.rows));
    std::vector<float> d(static_cast<std::size_t>(A.rows), 1.f);
    for (std::int64_t i = std::max<std::int64_t>(0, first); i < A.rows; ++i) d[i] = factor;
    DevMat<float> dv(A.rows, 1), tmp(A.rows, A.cols);
    CK(cudaMemcpy(dv.p, d.data(), sizeof(float) * d.size(), cudaMemcpyHostToDevice));
    CB(cublasSdgmm(h_, CUBLAS_SIDE_LEFT, int(A.rows), int(A.cols), A.p, int(A.rows), dv.p, 1, tmp.p, int(A.rows)));
    CK(cudaMemcpy(A.p, tmp.p, sizeof(float) * A.rows * A.cols, cudaMemcpyDeviceToDevice));
  }

  /// APE hybrid execution (fp16x2 where in range, bf16x3 elsewhere) on the same inputs.
  template <class ErrF>
  void hybrid_row(const Shape& s, const Distribution& dist, MatrixView<const float> A, MatrixView<const float> B,
                  MatrixView<float> C, double native, ErrF& err) {
    Row r = base_row(s, dist, "ape-hybrid", "tcemu", "fp32");
    try {
      HybridOptions o;
      o.base.execution = tcemu::app::execution_policy_from_environment();
      o.base.execution.kernels = cfg_.kernels.front();
      const cuda::DeviceBackend<float> backend{nullptr, &ws_};
      fill_value_device(C, NAN, nullptr);
      HybridReport rep;
      const auto [med, mn] = timed(
          [&] { rep = gemm_hybrid<float>(Op::N, Op::N, 1.f, A, B, 0.f, C, o, backend); }, cfg_.warmup, cfg_.repeat);
      r.median_ms = med;
      r.min_ms = mn;
      r.tflops = flops(s) / (med * 1e-3) / 1e12;
      r.speedup = native > 0 ? native / med : 0;
      r.err = err();
      char used[96];
      std::snprintf(used, sizeof used, "%d fast + %d wide calls", rep.calls_fast, rep.calls_wide);
      r.used = used;
      std::snprintf(used, sizeof used, "%.0f%% of C with %s", 100 * rep.fraction_fast, o.fast.name.c_str());
      r.note = used;
    } catch (const std::exception& e) {
      r.note = e.what();
    }
    rows.push_back(r);
  }

  /// FP64 data: DGEMM, cuBLAS FP64 fixed-point emulation, tcemu FP64-target schemes; error of all of
  /// them on sampled entries against a double-double reference computed on the GPU.
  void real_fp64(const Shape& s, const Distribution& dist, const std::vector<Scheme>& schemes) {
    DevMat<double> A(s.m, s.k), B(s.k, s.n), C(s.m, s.n);
    fill_random_device(A.view(), dist, cfg_.seed++, nullptr);
    fill_random_device(B.view(), dist, cfg_.seed++, nullptr);
    const auto [sr, sc_] = sample_entries(s, cfg_.samples);
    std::vector<double> ref;
    if (cfg_.errors) ref = reference_dd_sampled<double>(Op::N, Op::N, A.cview(), B.cview(), sr, sc_, nullptr);
    auto errs = [&]() -> SampledErrors {
      if (!cfg_.errors) return {};
      return sampled_errors(gather_device<double>(C.cview(), sr, sc_, nullptr), ref);
    };
    const double one = 1, zero = 0;
    const int m = int(s.m), n = int(s.n), k = int(s.k);
    double native = 0;
    auto baseline = [&](const std::string& name, const std::function<void()>& f) {
      Row r = base_row(s, dist, name, "cublas", "fp64");
      try {
        fill_value_device(C.view(), double(NAN), nullptr);
        const auto [med, mn] = timed(f, cfg_.warmup, cfg_.repeat);
        r.median_ms = med;
        r.min_ms = mn;
        r.tflops = flops(s) / (med * 1e-3) / 1e12;
        set_errors(r, errs());
      } catch (const std::exception& e) {
        r.note = e.what();
        (void)cudaGetLastError();
      }
      if (name == "cublas-dgemm") native = r.median_ms;
      r.speedup = r.median_ms > 0 ? native / r.median_ms : 0;
      rows.push_back(r);
    };
    baseline("cublas-dgemm", [&] {
      CB(cublasDgemm(h_, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, A.p, m, B.p, k, &zero, C.p, m));
    });
    baseline("cublas-fp64-emu", [&] {
      CB(cublasSetEmulationStrategy(h_, CUBLAS_EMULATION_STRATEGY_EAGER));
      CB(cublasGemmEx(h_, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, A.p, CUDA_R_64F, m, B.p, CUDA_R_64F, k,
                      &zero, C.p, CUDA_R_64F, m, CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT,
                      CUBLAS_GEMM_DEFAULT));
    });
    CB(cublasSetEmulationStrategy(h_, CUBLAS_EMULATION_STRATEGY_DEFAULT));
    for (const Scheme& sc : schemes) {
      auto e = [&]() { return errs(); };
      tcemu_row<double>(s, dist, sc, A.cview(), B.cview(), C.view(), native, e);
    }
  }

  /// Complex (qsim) shape: cuBLAS C/ZGEMM against tcemu's 4M complex GEMM; error vs a 4-DGEMM
  /// reference of the real and imaginary parts (max of the two relative Frobenius errors).
  template <class T>
  void complex(const Shape& s, const Distribution& dist, const std::vector<Scheme>& schemes) {
    using Z = std::complex<T>;
    DevMat<Z> A(s.m, s.k), B(s.k, s.n), C(s.m, s.n);
    for (DevMat<Z>* X : {&A, &B}) {
      fill_random_device(real_view(X->view()), dist, cfg_.seed++, nullptr);
      fill_random_device(imag_view(X->view()), dist, cfg_.seed++, nullptr);
    }
    const bool fp64 = std::is_same_v<T, double>;
    DevMat<double> Rr(fp64 ? 0 : s.m, s.n), Ri(fp64 ? 0 : s.m, s.n);
    if (cfg_.errors && !fp64) {
      DevMat<double> ar(s.m, s.k), ai(s.m, s.k), br(s.k, s.n), bi(s.k, s.n);
      to_double_device(real_view(A.cview()), ar.p, s.m, nullptr);
      to_double_device(imag_view(A.cview()), ai.p, s.m, nullptr);
      to_double_device(real_view(B.cview()), br.p, s.k, nullptr);
      to_double_device(imag_view(B.cview()), bi.p, s.k, nullptr);
      const double one = 1, zero = 0, mone = -1;
      const int m = int(s.m), n = int(s.n), k = int(s.k);
      CB(cublasDgemm(h_, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, ar.p, m, br.p, k, &zero, Rr.p, m));
      CB(cublasDgemm(h_, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &mone, ai.p, m, bi.p, k, &one, Rr.p, m));
      CB(cublasDgemm(h_, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, ar.p, m, bi.p, k, &zero, Ri.p, m));
      CB(cublasDgemm(h_, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, ai.p, m, br.p, k, &one, Ri.p, m));
      CK(cudaDeviceSynchronize());
    }
    // complex<double>: --samples entries of Re C and Im C against double-double, as the FP64 table
    // (the real embedding X = [Ar Ai], Y = [Br; -Bi] and [Bi; Br] on the device, one reference each).
    std::vector<std::int64_t> srow, scol;
    std::vector<double> ref;  // Re samples, then Im samples
    if (fp64 && cfg_.errors) {
      std::tie(srow, scol) = sample_entries(s, cfg_.samples);
      DevMat<double> X(s.m, 2 * s.k), Yr(2 * s.k, s.n), Yi(2 * s.k, s.n);
      to_double_device(real_view(A.cview()), X.p, s.m, nullptr);
      to_double_device(imag_view(A.cview()), X.p + s.m * s.k, s.m, nullptr);
      to_double_device(real_view(B.cview()), Yr.p, 2 * s.k, nullptr);
      to_double_device(imag_view(B.cview()), Yr.p + s.k, 2 * s.k, nullptr);
      to_double_device(imag_view(B.cview()), Yi.p, 2 * s.k, nullptr);
      to_double_device(real_view(B.cview()), Yi.p + s.k, 2 * s.k, nullptr);
      const double mone = -1, zero = 0;  // Yr's lower half: -Bi (geam in place, exact)
      CB(cublasDgeam(h_, CUBLAS_OP_N, CUBLAS_OP_N, int(s.k), int(s.n), &mone, Yr.p + s.k, int(2 * s.k), &zero,
                     Yr.p + s.k, int(2 * s.k), Yr.p + s.k, int(2 * s.k)));
      ref = reference_dd_sampled<double>(Op::N, Op::N, X.cview(), Yr.cview(), srow, scol, nullptr);
      const std::vector<double> ri = reference_dd_sampled<double>(Op::N, Op::N, X.cview(), Yi.cview(), srow, scol, nullptr);
      ref.insert(ref.end(), ri.begin(), ri.end());
    }
    auto sampled = [&]() -> SampledErrors {
      std::vector<double> c = gather_device<T>(real_view(C.cview()), srow, scol, nullptr);
      const std::vector<double> ci = gather_device<T>(imag_view(C.cview()), srow, scol, nullptr);
      c.insert(c.end(), ci.begin(), ci.end());
      return sampled_errors(c, ref);
    };
    auto set_err = [&](Row& row) {
      if (!cfg_.errors) return;
      if (fp64) {
        set_errors(row, sampled());
      } else {
        row.err = std::max(rel_frobenius_device(real_view(C.cview()), Rr.p, s.m, nullptr),
                           rel_frobenius_device(imag_view(C.cview()), Ri.p, s.m, nullptr));
      }
    };
    const int m = int(s.m), n = int(s.n), k = int(s.k);
    const std::string tname = fp64 ? "fp64" : "fp32";
    Row r = base_row(s, dist, fp64 ? "cublas-zgemm" : "cublas-cgemm", "cublas", tname);
    fill_value_device(real_view(C.view()), T(NAN), nullptr);
    const auto [med, mn] = timed(
        [&] {
          if constexpr (std::is_same_v<T, double>) {
            const cuDoubleComplex one{1, 0}, zero{0, 0};
            CB(cublasZgemm(h_, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one,
                           reinterpret_cast<cuDoubleComplex*>(A.p), m, reinterpret_cast<cuDoubleComplex*>(B.p),
                           k, &zero, reinterpret_cast<cuDoubleComplex*>(C.p), m));
          } else {
            const cuComplex one{1, 0}, zero{0, 0};
            CB(cublasCgemm(h_, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, reinterpret_cast<cuComplex*>(A.p),
                           m, reinterpret_cast<cuComplex*>(B.p), k, &zero, reinterpret_cast<cuComplex*>(C.p),
                           m));
          }
        },
        cfg_.warmup, cfg_.repeat);
    r.median_ms = med;
    r.min_ms = mn;
    r.tflops = flops(s) / (med * 1e-3) / 1e12;
    set_err(r);
    r.speedup = 1;
    const double native = med;
    rows.push_back(r);
    for (const Scheme& sc : schemes) {
      Row t = base_row(s, dist, sc.name, "tcemu", tname);
      const GemmOptions opt = tcemu::app::gemm_options(sc);
      try {
        GemmReport rep;
        fill_value_device(real_view(C.view()), T(NAN), nullptr);
        const auto [tm, tmin] = timed(
            [&] {
              rep = cuda::complex_gemm_device<T>(Op::N, Op::N, Z(1), A.cview(), B.cview(), Z(0), C.view(),
                                                 opt, nullptr, &ws_);
            },
            cfg_.warmup, cfg_.repeat);
        t.median_ms = tm;
        t.min_ms = tmin;
        t.tflops = flops(s) / (tm * 1e-3) / 1e12;
        t.speedup = native / tm;
        t.used = rep.used.name + (rep.fell_back ? " (fallback)" : "");
        t.note = rep.kernels;
        if (!rep.certificate.empty()) {  // int8-crt: its N and the bound that chose it
          t.note += "; " + rep.certificate;
          if (cfg_.explain)
            std::fprintf(stderr, "%s %s %s: %s\n", s.name.c_str(), dist.name().c_str(), sc.name.c_str(),
                         rep.certificate.c_str());
        }
        set_err(t);
      } catch (const std::exception& e) {
        t.note = e.what();
      }
      rows.push_back(t);
    }
  }

  /// One case of --auto-grid: every scheme that meets `target` and auto on the same inputs.
  /// T = float: FP32 target (error: relative Frobenius error against a DGEMM of the inputs, limit 2x
  /// cuBLAS SGEMM's); T = double: FP64 target (error over --samples entries against double-double,
  /// limit 2x cuBLAS DGEMM's).
  template <class T>
  void auto_case(const Shape& s, const Distribution& dist) {
    constexpr bool fp64 = std::is_same_v<T, double>;
    const Target target = fp64 ? Target::fp64 : Target::fp32;
    GridCase g;
    g.shape = s.name;
    g.m = s.m;
    g.n = s.n;
    g.k = s.k;
    g.dist = dist.name();
    g.target = to_string(target);
    DevMat<T> A(s.m, s.k), B(s.k, s.n), C(s.m, s.n);
    fill_random_device(A.view(), dist, cfg_.seed++, nullptr);
    fill_random_device(B.view(), dist, cfg_.seed++, nullptr);
    const int m = int(s.m), n = int(s.n), k = int(s.k);
    std::function<double()> err;
    std::unique_ptr<DevMat<double>> R;
    std::vector<std::int64_t> srow, scol;
    std::vector<double> ref;
    if constexpr (fp64) {
      std::tie(srow, scol) = sample_entries(s, cfg_.samples);
      ref = reference_dd_sampled<double>(Op::N, Op::N, A.cview(), B.cview(), srow, scol, nullptr);
      err = [&] { return sampled_errors(gather_device<double>(C.cview(), srow, scol, nullptr), ref).frobenius; };
    } else {
      DevMat<double> Ad(s.m, s.k), Bd(s.k, s.n);
      R = std::make_unique<DevMat<double>>(s.m, s.n);
      to_double_device(A.cview(), Ad.p, s.m, nullptr);
      to_double_device(B.cview(), Bd.p, s.k, nullptr);
      const double one = 1, zero = 0;
      CB(cublasDgemm(h_, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, Ad.p, m, Bd.p, k, &zero, R->p, m));
      CK(cudaDeviceSynchronize());
      err = [&] { return rel_frobenius_device(C.cview(), R->p, s.m, nullptr); };
    }
    // The native cuBLAS error sets the limit.
    {
      const T one = 1, zero = 0;
      fill_value_device(C.view(), T(NAN), nullptr);
      if constexpr (fp64) {
        CB(cublasDgemm(h_, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, A.p, m, B.p, k, &zero, C.p, m));
      } else {
        CB(cublasSgemm(h_, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, A.p, m, B.p, k, &zero, C.p, m));
      }
      CK(cudaDeviceSynchronize());
      g.native_err = err();
      g.err_limit = 2 * g.native_err;
    }
    auto time_scheme = [&](const Scheme& sc) {
      GridTiming t;
      t.method = sc.name;
      const GemmOptions opt = tcemu::app::gemm_options(sc);
      try {
        fill_value_device(C.view(), T(NAN), nullptr);
        GemmReport rep;
        t.ms = timed([&] { rep = cuda::gemm_device<T>(Op::N, Op::N, T(1), A.cview(), B.cview(), T(0), C.view(), opt,
                                                      nullptr, &ws_); },
                     cfg_.warmup, cfg_.repeat)
                   .first;
        t.used = rep.used.name;
        t.fell_back = rep.fell_back;
        t.err = err();
        t.meets = std::isfinite(t.err) && t.err <= g.err_limit && count_nonfinite_device(C.cview(), nullptr) == 0;
        if (sc.is_automatic()) {
          g.plan = rep.plan;
          for (const Candidate& c : rep.plan.candidates)
            if (c.eligible && c.scheme.name == rep.used.name) g.predicted_ms = 1e3 * c.predicted_seconds;
        }
      } catch (const std::exception& e) {
        t.note = e.what();
        (void)cudaGetLastError();
      }
      return t;
    };
    for (const Scheme& sc : catalogue(target))
      if (!sc.is_automatic() && sc.meets(target)) g.timings.push_back(time_scheme(sc));
    g.auto_run = time_scheme(parse_scheme("auto", target));
    g.pick = g.auto_run.used;
    if (cfg_.explain)
      std::fprintf(stderr, "auto-grid %s %s %s:\n%s", s.name.c_str(), g.dist.c_str(), g.target.c_str(),
                   g.plan.explain().c_str());
    // The pick's own time: the row that ran that scheme directly (the same protocol), else time it.
    const GridTiming* pick = nullptr;
    for (const GridTiming& t : g.timings)
      if (!t.fell_back && t.used == g.pick && t.ms > 0) pick = &t;
    if (!pick && !g.pick.empty()) {
      g.timings.push_back(time_scheme(parse_scheme(g.pick, target)));
      g.timings.back().method = g.pick + " (auto's pick)";
      pick = &g.timings.back();
    }
    const GridTiming* fastest = nullptr;
    for (const GridTiming& t : g.timings)
      if (!t.fell_back && t.meets && t.ms > 0 && (!fastest || t.ms < fastest->ms)) fastest = &t;
    if (fastest) {
      g.fastest = fastest->used;
      g.fastest_ms = fastest->ms;
    }
    if (pick) {
      g.pick_ms = pick->ms;
      g.pick_err = pick->err;
      g.pick_meets = pick->meets;
    }
    // auto is judged by its own call (range profile and planning included), not by its pick's time,
    // timed call by call against the fastest scheme that meets the target.
    if (fastest && g.auto_run.ms > 0) {
      const GemmOptions fo = tcemu::app::gemm_options(parse_scheme(fastest->used, target));
      const GemmOptions ao = tcemu::app::gemm_options(parse_scheme("auto", target));
      try {
        const auto t = cuda::time_runs_interleaved(
            {[&] { cuda::gemm_device<T>(Op::N, Op::N, T(1), A.cview(), B.cview(), T(0), C.view(), ao, nullptr, &ws_); },
             [&] { cuda::gemm_device<T>(Op::N, Op::N, T(1), A.cview(), B.cview(), T(0), C.view(), fo, nullptr, &ws_); }},
            cfg_.warmup, cfg_.repeat);
        g.auto_interleaved_ms = t[0].median_ms;
        g.fastest_interleaved_ms = t[1].median_ms;
      } catch (const std::exception& e) {
        std::fprintf(stderr, "auto-grid %s: interleaved timing failed: %s\n", s.name.c_str(), e.what());
        (void)cudaGetLastError();
      }
    }
    g.ratio = g.fastest_interleaved_ms > 0 ? g.auto_interleaved_ms / g.fastest_interleaved_ms : NAN;
    g.pick_ratio = g.fastest_ms > 0 && g.pick_ms > 0 ? g.pick_ms / g.fastest_ms : NAN;
    g.limit = std::min({s.m, s.n, s.k}) >= 4096 ? 1.05 : 1.10;
    g.pass = g.auto_run.meets && g.ratio <= g.limit;
    grid.push_back(std::move(g));
  }

  /// Cases of --auto-grid, in the order run.
  std::vector<GridCase> grid;

 private:
  Config cfg_;
  cublasHandle_t h_ = nullptr;
  cuda::Workspace ws_;

  Row base_row(const Shape& s, const Distribution& d, const std::string& method, const std::string& kind,
               const std::string& target) {
    Row r;
    r.shape = s.name;
    r.m = s.m;
    r.n = s.n;
    r.k = s.k;
    r.complex = s.complex;
    r.dist = d.name();
    r.method = method;
    r.kind = kind;
    r.target = target;
    r.used = method;
    return r;
  }

  /// A scheme on one CUDA implementation (tcemu_row, tcemu_row_with).
  static GemmOptions options_for(const Scheme& sc, CudaKernels kernels) {
    GemmOptions opt = tcemu::app::gemm_options(sc);
    opt.execution.kernels = kernels;
    return opt;
  }

  template <class T, class ErrF>
  void tcemu_row(const Shape& s, const Distribution& dist, const Scheme& sc, MatrixView<const T> A,
                 MatrixView<const T> B, MatrixView<T> C, double native, ErrF&& err) {
    // Only multi-part split schemes have two CUDA implementations (fused and multi-pass).
    const bool two_impls = sc.parts >= 2 && !sc.groups.empty();
    if (!two_impls || cfg_.kernels.size() == 1) {
      tcemu_row_with(s, dist, sc, sc.name, two_impls ? cfg_.kernels.front() : CudaKernels::automatic, A, B, C,
                     native, err);
      return;
    }
    // Several implementations: timed call by call in turn (--timing), so that a drift of the clock
    // under the power cap reaches them alike; errors and notes from one more call each.
    std::vector<cuda::RunTimes> times;
    if (cfg_.interleave) {
      std::vector<std::function<void()>> calls;
      for (CudaKernels k : cfg_.kernels)
        calls.push_back([&, opt = options_for(sc, k)] {
          cuda::gemm_device<T>(Op::N, Op::N, T(1), A, B, T(0), C, opt, nullptr, &ws_);
        });
      try {
        times = cuda::time_runs_interleaved(calls, cfg_.warmup, cfg_.repeat);
      } catch (const std::exception&) {
        times.clear();  // one of them fails: time each alone, so the row says which and why
        (void)cudaGetLastError();
      }
    }
    for (std::size_t i = 0; i < cfg_.kernels.size(); ++i)
      tcemu_row_with(s, dist, sc, sc.name + "/" + to_string(cfg_.kernels[i]), cfg_.kernels[i], A, B, C, native, err,
                     times.empty() ? nullptr : &times[i]);
  }

  template <class T, class ErrF>
  void tcemu_row_with(const Shape& s, const Distribution& dist, const Scheme& sc, const std::string& method,
                      CudaKernels kernels, MatrixView<const T> A, MatrixView<const T> B, MatrixView<T> C,
                      double native, ErrF& err, const cuda::RunTimes* timed_before = nullptr) {
    Row r = base_row(s, dist, method, "tcemu", std::is_same_v<T, double> ? "fp64" : "fp32");
    const GemmOptions opt = options_for(sc, kernels);
    try {
      fill_value_device(C, T(NAN), nullptr);
      GemmReport rep;
      auto call = [&] { rep = cuda::gemm_device<T>(Op::N, Op::N, T(1), A, B, T(0), C, opt, nullptr, &ws_); };
      double med = 0, mn = 0;
      if (timed_before) {  // timed with the other implementations (interleaved): one call for C and the report
        call();
        std::tie(med, mn) = std::pair{timed_before->median_ms, timed_before->min_ms};
      } else {
        std::tie(med, mn) = timed(call, cfg_.warmup, cfg_.repeat);
      }
      r.median_ms = med;
      r.min_ms = mn;
      r.tflops = flops(s) / (med * 1e-3) / 1e12;
      r.speedup = native > 0 ? native / med : 0;
      r.used = rep.used.name + (rep.fell_back ? " (fallback)" : "");
      if (cfg_.explain)  // auto's choice (auto rows) and every row's execution plan
        std::fprintf(stderr, "%s %s %s:\n%s", s.name.c_str(), dist.name().c_str(), sc.name.c_str(),
                     rep.plan.explain().c_str());
      r.note = rep.kernels;  // what ran: a fused request without a fused kernel shows as multi-pass
      if (!rep.certificate.empty()) {  // int8-crt: its N and the bound that chose it
        r.note += "; " + rep.certificate;
        if (cfg_.explain)
          std::fprintf(stderr, "%s %s %s: %s\n", s.name.c_str(), dist.name().c_str(), sc.name.c_str(),
                       rep.certificate.c_str());
      }
      const std::int64_t bad = count_nonfinite_device(C.as_const(), nullptr);
      if (bad) r.note += "; " + std::to_string(bad) + " non-finite outputs";
      if constexpr (std::is_same_v<std::invoke_result_t<ErrF>, double>) {
        r.err = err();
      } else {
        set_errors(r, err());
      }
      // One more call with timings on for the split/products/combine breakdown.
      ws_.record_timings = true;
      rep = cuda::gemm_device<T>(Op::N, Op::N, T(1), A, B, T(0), C, opt, nullptr, &ws_);
      ws_.record_timings = false;
      r.split_ms = 1e3 * rep.seconds_split;
      r.products_ms = 1e3 * rep.seconds_products;
      r.combine_ms = 1e3 * rep.seconds_combine;
    } catch (const std::exception& e) {
      r.note = e.what();
      ws_.record_timings = false;
    }
    rows.push_back(r);
  }
};

void print_table(const std::vector<Row>& rows) {
  std::printf("%-14s %-10s %-24s %-22s %10s %9s %8s %10s %10s %10s  %s\n", "shape", "dist", "method", "used",
              "median ms", "TFLOP/s", "speedup", "rel.err", "med.rel", "max.rel", "split/prod/comb ms");
  for (const Row& r : rows) {
    std::printf("%-14s %-10s %-24s %-22s %10.3f %9.1f %8.2f %10.2e %10.2e %10.2e  %.2f/%.2f/%.2f %s\n",
                r.shape.c_str(), r.dist.c_str(), r.method.c_str(), r.used.c_str(), r.median_ms, r.tflops,
                r.speedup, r.err, r.median_rel_err, r.max_rel_err, r.split_ms, r.products_ms, r.combine_ms, r.note.c_str());
  }
}

/// Writes a file through `fill` under a temporary name beside `path` and renames it on success, so
/// that a reader (or an interrupted run) never sees a half-written CSV. Throws IoError naming the path.
template <class Fill>
void write_atomically(const std::string& path, const Fill& fill) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream f(tmp);
    if (!f) throw IoError("--csv: cannot write '" + path + "' (temporary '" + tmp + "')");
    fill(f);
    f.flush();
    if (!f) {
      std::remove(tmp.c_str());
      throw IoError("--csv: writing '" + tmp + "' failed");
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw IoError("--csv: cannot rename '" + tmp + "' to '" + path + "'");
  }
}

void write_csv(const std::string& path, const std::vector<Row>& rows, const std::string& device) {
  write_atomically(path, [&](std::ofstream& f) {
    f << "device,shape,m,n,k,complex,dist,method,kind,target,used,median_ms,min_ms,tflops,speedup_vs_native,"
         "rel_frob_err,median_rel_err,max_rel_err,split_ms,products_ms,combine_ms,note\n";
    for (const Row& r : rows) {
      std::string note = r.note;
      std::replace(note.begin(), note.end(), ',', ';');
      std::replace(note.begin(), note.end(), '\n', ' ');
      char buf[1024];
      std::snprintf(buf, sizeof buf,
                    "\"%s\",\"%s\",%lld,%lld,%lld,%d,\"%s\",\"%s\",%s,%s,\"%s\",%.6f,%.6f,%.4f,%.4f,%.6e,%.6e,"
                    "%.6e,%.4f,%.4f,%.4f,%s\n",
                    device.c_str(), r.shape.c_str(), (long long)r.m, (long long)r.n, (long long)r.k, int(r.complex),
                    r.dist.c_str(), r.method.c_str(), r.kind.c_str(), r.target.c_str(), r.used.c_str(), r.median_ms,
                    r.min_ms, r.tflops, r.speedup, r.err, r.median_rel_err, r.max_rel_err, r.split_ms,
                    r.products_ms, r.combine_ms, note.c_str());
      f << buf;
    }
  });
}

/// The --auto-grid table and its summary line.
void print_grid(const std::vector<GridCase>& cases) {
  std::printf("%-18s %-12s %-6s %-14s %10s %-14s %10s %10s %10s %10s %10s %7s %7s %6s %10s %10s  %s\n", "case",
              "dist", "target", "fastest", "ms", "auto pick", "pick ms", "pred. ms", "auto ms", "auto il.",
              "fast. il.", "ratio", "pick r.", "limit", "auto err", "err limit", "pass");
  int passed = 0;
  for (const GridCase& g : cases) {
    passed += g.pass;
    std::printf("%-18s %-12s %-6s %-14s %10.3f %-14s %10.3f %10.3f %10.3f %10.3f %10.3f %7.3f %7.3f %6.2f %10.2e %10.2e"
                "  %s\n",
                g.shape.c_str(), g.dist.c_str(), g.target.c_str(), g.fastest.c_str(), g.fastest_ms, g.pick.c_str(),
                g.pick_ms, g.predicted_ms, g.auto_run.ms, g.auto_interleaved_ms, g.fastest_interleaved_ms, g.ratio,
                g.pick_ratio, g.limit, g.auto_run.err,
                g.err_limit, g.pass ? "yes" : (g.auto_run.meets ? "no (slower)" : "no (error)"));
  }
  std::printf("auto-grid: %d / %zu cases pass (auto's own call meets the target and takes at most `limit` times "
              "the fastest scheme that does, the two timed call by call: 1.05 at m, n, k >= 4096, else 1.10)\n",
              passed, cases.size());
}

/// --csv with --auto-grid: one line per case; `schemes` lists every scheme as name=used/ms/err/meets.
void write_grid_csv(const std::string& path, const std::vector<GridCase>& cases, const std::string& device) {
  write_atomically(path, [&](std::ofstream& f) {
    f << "device,case,m,n,k,dist,target,fastest,fastest_ms,pick,pick_ms,predicted_ms,auto_ms,auto_interleaved_ms,"
         "fastest_interleaved_ms,ratio,pick_ratio,limit,auto_err,pick_err,err_limit,native_err,pass,schemes\n";
    for (const GridCase& g : cases) {
      std::string all;
      for (const GridTiming& t : g.timings) {
        char b[256];
        std::snprintf(b, sizeof b, "%s%s=%s/%.4f/%.3e/%d%s", all.empty() ? "" : ";", t.method.c_str(), t.used.c_str(),
                      t.ms, t.err, int(t.meets), t.fell_back ? "/fallback" : "");
        all += b;
      }
      char buf[1024];
      std::snprintf(buf, sizeof buf,
                    "\"%s\",\"%s\",%lld,%lld,%lld,\"%s\",%s,%s,%.6f,%s,%.6f,%.6f,%.6f,%.6f,%.6f,%.4f,%.4f,%.2f,%.6e,"
                    "%.6e,%.6e,%.6e,%d,",
                    device.c_str(), g.shape.c_str(), (long long)g.m, (long long)g.n, (long long)g.k, g.dist.c_str(),
                    g.target.c_str(), g.fastest.c_str(), g.fastest_ms, g.pick.c_str(), g.pick_ms, g.predicted_ms,
                    g.auto_run.ms, g.auto_interleaved_ms, g.fastest_interleaved_ms, g.ratio, g.pick_ratio, g.limit, g.auto_run.err, g.pick_err, g.err_limit,
                    g.native_err, int(g.pass));
      f << buf << "\"" << all << "\"\n";
    }
  });
}

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == ',') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "tcemu-bench: time and accuracy of tcemu's emulated GEMMs on the GPU, side by side with cuBLAS.\n"
      "\n"
      "For every shape and input distribution it allocates fresh device inputs (never zeros), runs the\n"
      "cuBLAS baselines and then each tcemu scheme on the same inputs, and reports the median of\n"
      "--repeat timed runs (CUDA events, after --warmup untimed runs). A tcemu time covers the whole\n"
      "call: range profile + split, the Tensor Core products and the combine, FP32/FP64 in and out in\n"
      "device memory. Rate = 2mnk / time (8mnk for complex shapes). The last column (note) names\n"
      "the kernels that ran: fused (wgmma) / fused (mma.sync), multi-pass (cuBLAS per group), ...; a\n"
      "scheme asked for with --kernels fused that has no fused kernel shows multi-pass there.\n"
      "With several --kernels (fused,multipass) the implementations of one scheme are timed call by\n"
      "call in turn (--timing interleaved), so that the GPU's clock drift under its power cap, 4-8 %\n"
      "between processes on an H200, does not decide which one looks faster.\n"
      "\n"
      "FP32 target (--schemes, float data): baselines cuBLAS SGEMM (CUDA cores, no TF32), 1xTF32\n"
      "(cublasGemmEx FAST_TF32) and cuBLAS's BF16x9 emulation; error = relative Frobenius error\n"
      "against a cuBLAS DGEMM of the same inputs. FP64 target (--fp64-schemes, double data):\n"
      "baselines DGEMM and cuBLAS's FP64 fixed-point emulation; error against a double-double\n"
      "reference of --samples sampled entries (GPU kernel), as relative Frobenius error over the\n"
      "samples, median and largest per-entry relative error. Complex shapes (qsim:N:D, complex:<shape>)\n"
      "compare C/ZGEMM with tcemu's complex GEMM (4M, 3M or the real embedding, as the scheme chooses); complex<double>\n"
      "errors over --samples entries of Re C and Im C against double-double, complex<float> against DGEMMs.\n"
      "\n"
      "auto's cost model (--explain, --recalibrate, --auto-grid): measured on this GPU on first use and\n"
      "cached per GPU model (tcemu/cuda/calibrate.hpp; the environment variable TCEMU_AUTO_CALIBRATE=0 keeps the H200 anchors).\n"
      "  tcemu-bench --recalibrate --explain --shapes 4096,knn --dists uniform --schemes auto --fp64-schemes auto\n"
      "  tcemu-bench --auto-grid --csv auto-grid.csv\n"
      "\n"
      "Example (the acceptance run of issue 3):\n"
      "  tcemu-bench --shapes 8192 --dists uniform --schemes fp16x2,tf32x2,bf16x3 --fp64-schemes ''\n"
      "  tcemu-bench --shapes 8192 --dists phi=0.1,phi=1 --schemes '' --fp64-schemes int8-ozaki\n"
      "  tcemu-bench --shapes 8192 --dists phi=1 --schemes '' --fp64-schemes fp64,int8-crt:16,int8-crt --explain\n"
      "  tcemu-bench --shapes 8192 --dists uniform,phi=1 --schemes fp32,fp16x2,int8-crt --fp64-schemes ''\n"};
  std::string shapes = "1024,2048,4096,8192", dists = "uniform";
  // int8-crt (Ozaki scheme II) is in both tables: with an FP64 target among auto's candidates, with an
  // FP32 target (float data) its row sits beside fp16x2's (issue 21).
  std::string schemes =
      "fp32,tf32,bf16,fp16,fp16x2,fp16x2-markidis,fp16x2-egemm,fp16x2-legemm,tf32x2,bf16x3,bf16x9,int8-ozaki,int8-crt,"
      "auto";
  std::string fp64_schemes = "fp64,int8-ozaki,int8-crt,auto";
  std::string csv;
  Config cfg;
  app.add_option("--shapes", shapes,
                 "comma list: N (N x N x N), MxNxK, knn (1024x60000x784: queries x train x d), kmeans "
                 "(70000x1024x784), qsim:N:D (complex 2^(N-D) x 2^D x 2^D), complex:<shape> (that shape in complex)")
      ->capture_default_str();
  app.add_option("--dists", dists, "comma list of input distributions: uniform, uniform(a,b), phi=<x>")
      ->capture_default_str();
  app.add_option("--schemes", schemes, "FP32-target schemes on float data ('' = none)")->capture_default_str();
  app.add_option("--fp64-schemes", fp64_schemes, "FP64-target schemes on double data ('' = none)")
      ->capture_default_str();
  app.add_option("--repeat", cfg.repeat, "timed runs per measurement (median reported)")->capture_default_str();
  app.add_option("--warmup", cfg.warmup, "untimed runs before timing")->capture_default_str();
  app.add_option("--samples", cfg.samples, "entries of C checked against double-double (FP64 target)")
      ->capture_default_str();
  app.add_flag("!--no-errors", cfg.errors, "skip the accuracy references (faster)");
  std::string kernels = "auto";
  app.add_option("--kernels", kernels,
                 "CUDA implementations of the multi-part schemes to time: auto, fused, multipass, or a "
                 "comma list (one row per implementation, method 'scheme/impl')")
      ->capture_default_str();
  std::string timing = "interleaved";
  app.add_option("--timing", timing,
                 "with several --kernels: 'interleaved' times the implementations of a scheme call by call in "
                 "turn (each gets --repeat calls; clock drift under the power cap hits them alike), "
                 "'sequential' one block of --repeat calls after the other")
      ->check(CLI::IsMember({"interleaved", "sequential"}))
      ->capture_default_str();
  app.add_option("--hybrid-rows", cfg.hybrid_rows,
                 "FP32 data: scale this fraction of A's last rows by 2^20 (outside fp16x2's range) and add an "
                 "APE hybrid row (fp16x2 where in range, bf16x3 elsewhere; tcemu/hybrid.hpp)")
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--csv", csv, "also write all rows to this CSV file (with --auto-grid: one line per case)");
  app.add_flag("--explain", cfg.explain,
               "print the cost model auto uses (stdout) and the plan of every row / grid case (stderr): for auto "
               "the operand profiles, candidates, predicted time and error, where the time came from, pick; for "
               "every row the execution plan (implementation and why, orientation, overlap, stages, workspace); "
               "for int8-crt rows its N and the certified bound");
  bool recalibrate = false, auto_grid = false;
  app.add_flag("--recalibrate", recalibrate,
               "measure auto's device cost model again (a few seconds), rewrite its cache file and print it "
               "(tcemu/cuda/calibrate.hpp); without it the cached model is used, or measured on first use");
  app.add_flag("--auto-grid", auto_grid,
               "acceptance grid of auto (issue 4): for every --grid-shapes x --grid-dists x --grid-targets case, "
               "time every scheme that meets the target and auto on the same inputs (--warmup, --repeat, "
               "median), check errors (limit: 2x cuBLAS SGEMM's / DGEMM's), print fastest vs auto's pick; "
               "ignores --shapes/--dists/--schemes/--fp64-schemes");
  std::string grid_shapes = "8192,4096,1024,knn,kmeans,65536x256x4096,1048576x128x128";
  std::string grid_dists = "uniform,phi=1", grid_targets = "fp32,fp64";
  app.add_option("--grid-shapes", grid_shapes, "shapes of --auto-grid (as --shapes, real only)")->capture_default_str();
  app.add_option("--grid-dists", grid_dists, "distributions of --auto-grid")->capture_default_str();
  app.add_option("--grid-targets", grid_targets, "targets of --auto-grid: fp32 (float data), fp64 (double data)")
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  Kokkos::ScopeGuard kokkos(argc, argv);
  try {
    if (!cuda::device_available()) throw DeviceError("tcemu-bench: no CUDA device found");
    const std::string device = cuda::device_description();
    std::printf("device: %s\n", device.c_str());
    cfg.interleave = timing == "interleaved";
    cfg.kernels.clear();
    for (const std::string& k : split_list(kernels)) cfg.kernels.push_back(parse_cuda_kernels(k));
    if (cfg.kernels.empty()) throw InvalidArgument("--kernels: empty list");
    if (cfg.repeat < 1 || cfg.warmup < 0) throw InvalidArgument("--repeat must be >= 1 and --warmup >= 0");
    // auto's cost model first, so that a measurement never lands inside a timed run.
    if (recalibrate) {
      std::printf("%s", cuda::describe_cost_model(cuda::calibrated_cost_model(tcemu::app::execution_policy_from_environment(), nullptr, true)).c_str());
    } else if (cfg.explain || auto_grid) {
      std::printf("%s", cuda::describe_cost_model(*cuda::device_cost_model(tcemu::app::execution_policy_from_environment())).c_str());
    }
    if (auto_grid) {
      std::vector<Target> targets;
      for (const std::string& t : split_list(grid_targets)) {
        try {
          targets.push_back(parse_target(t));
        } catch (const Error& e) {
          throw InvalidArgument(std::string("--grid-targets: ") + e.what());
        }
      }
      std::vector<Shape> gshapes;
      for (const std::string& sh : split_list(grid_shapes)) {
        gshapes.push_back(parse_shape(sh));
        if (gshapes.back().complex) throw InvalidArgument("--grid-shapes: '" + sh + "' is complex (real shapes only)");
      }
      std::vector<Distribution> gdists;
      for (const std::string& dn : split_list(grid_dists)) gdists.push_back(Distribution::parse(dn));
      if (targets.empty() || gshapes.empty() || gdists.empty())
        throw InvalidArgument("--auto-grid: empty --grid-shapes, --grid-dists or --grid-targets");
      Bench bench(cfg);
      if (!csv.empty()) write_grid_csv(csv, bench.grid, device);  // an unwritable path fails before any run
      for (Target t : targets)
        for (const Shape& shape : gshapes)
          for (const Distribution& dist : gdists) {
            std::fprintf(stderr, "auto-grid: %s %s %s\n", shape.name.c_str(), dist.name().c_str(), to_string(t));
            if (t == Target::fp64) bench.auto_case<double>(shape, dist);
            else bench.auto_case<float>(shape, dist);
            if (!csv.empty()) write_grid_csv(csv, bench.grid, device);  // keep partial results
          }
      print_grid(bench.grid);
      return 0;
    }
    std::vector<Scheme> s32, s64;
    if (!schemes.empty()) s32 = parse_scheme_list(schemes, Target::fp32);
    if (!fp64_schemes.empty()) s64 = parse_scheme_list(fp64_schemes, Target::fp64);
    Bench bench(cfg);
    if (!csv.empty()) write_csv(csv, bench.rows, device);  // an unwritable path fails before any run
    for (const std::string& sh : split_list(shapes)) {
      const Shape shape = parse_shape(sh);
      for (const std::string& dn : split_list(dists)) {
        const Distribution dist = Distribution::parse(dn);
        std::fprintf(stderr, "running %s %s\n", sh.c_str(), dn.c_str());
        if (shape.complex) {
          if (!s32.empty()) bench.complex<float>(shape, dist, s32);
          if (!s64.empty()) bench.complex<double>(shape, dist, s64);
        } else {
          if (!s32.empty()) bench.real_fp32(shape, dist, s32);
          if (!s64.empty()) bench.real_fp64(shape, dist, s64);
        }
        if (!csv.empty()) write_csv(csv, bench.rows, device);  // keep partial results
      }
    }
    print_table(bench.rows);
    if (!csv.empty()) write_csv(csv, bench.rows, device);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tcemu-bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
