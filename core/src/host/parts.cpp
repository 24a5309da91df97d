// FP32 part schemes on the host: Kokkos split loops + one CBLAS SGEMM per part product. The products
// of FP16/BF16/TF32 parts are exact in FP32, so this reproduces the schemes' arithmetic except the
// Tensor Cores' round-toward-zero accumulation (docs/architecture.md, "Host backend").
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <vector>

#include "host/blas.hpp"
#include "host/paths.hpp"
#include "host/workspace.hpp"
#include "tcemu/split.hpp"

namespace tcemu::host {
namespace {

using clock = std::chrono::steady_clock;
double since(clock::time_point t0) { return std::chrono::duration<double>(clock::now() - t0).count(); }

/// Splits x (rows x cols, any strides) into `parts` contiguous row-major FP32 arrays, held in scratch
/// slots first_slot .. first_slot + parts - 1.
template <class T>
std::vector<float*> split_operand(SchemeKind kind, int parts, MatrixView<const T> x, int first_slot) {
  std::vector<float*> out;
  for (int p = 0; p < parts; ++p) out.push_back(scratch<float>(first_slot + p, x.rows * x.cols));
  float* p0 = out[0];
  float* p1 = parts > 1 ? out[1] : nullptr;
  float* p2 = parts > 2 ? out[2] : nullptr;
  const std::int64_t cols = x.cols;
  Kokkos::parallel_for(
      "tcemu::split_host", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, x.rows),
      [=](std::int64_t i) {
        for (std::int64_t j = 0; j < cols; ++j) {
          // FP32-target schemes see FP64 data rounded to FP32 first.
          const split::Parts s = split::split_element(kind, static_cast<float>(x(i, j)));
          p0[i * cols + j] = s.p[0];
          if (p1) p1[i * cols + j] = s.p[1];
          if (p2) p2[i * cols + j] = s.p[2];
        }
      });
  return out;
}

/// Largest finite |x| of each line of x: rows (by_rows) or columns, as split::ozaki_line_exponent
/// needs them, and the operand's maximum (the profile's max_abs).
template <class T>
std::vector<double> line_maxima(MatrixView<const T> x, bool by_rows, double& max_abs) {
  const std::int64_t lines = by_rows ? x.rows : x.cols, len = by_rows ? x.cols : x.rows;
  std::vector<double> mx(static_cast<std::size_t>(lines), 0.0);
  for (std::int64_t l = 0; l < lines; ++l)
    for (std::int64_t j = 0; j < len; ++j) {
      const double v = std::fabs(static_cast<double>(by_rows ? x(l, j) : x(j, l)));
      if (std::isfinite(v) && v > mx[l]) mx[l] = v;
    }
  max_abs = 0;
  for (double v : mx) max_abs = std::max(max_abs, v);
  return mx;
}

/// Line-aligned split (fp16x2-, tf32x2-, bf16x3-aligned) of x into `parts` row-major FP32 arrays
/// (slots first_slot ..): lines are rows (A) or columns (B); returns the operand's scale exponent sigma
/// (split::aligned_scale_exp; 0 for TF32 / BF16 parts).
template <class T>
int split_aligned_operand(SchemeKind kind, int parts, MatrixView<const T> x, bool by_rows, int first_slot,
                          std::vector<float*>& out) {
  double max_abs = 0;
  const std::vector<double> mx = line_maxima(x, by_rows, max_abs);
  const int sigma = split::aligned_scale_exp(kind, max_abs);
  out.clear();
  for (int p = 0; p < parts; ++p) out.push_back(scratch<float>(first_slot + p, x.rows * x.cols));
  float* p0 = out[0];
  float* p1 = out[1];
  float* p2 = parts > 2 ? out[2] : nullptr;
  const double* m = mx.data();
  const std::int64_t cols = x.cols;
  Kokkos::parallel_for(
      "tcemu::split_aligned_host", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, x.rows),
      [=](std::int64_t i) {
        for (std::int64_t j = 0; j < cols; ++j) {
          const int e = split::ozaki_line_exponent(m[by_rows ? i : j]);
          const split::Parts s = split::split_aligned(kind, static_cast<float>(x(i, j)), sigma, e);
          p0[i * cols + j] = s.p[0];
          p1[i * cols + j] = s.p[1];
          if (p2) p2[i * cols + j] = s.p[2];
        }
      });
  return sigma;
}

}  // namespace

namespace {

/// The split-part path as three stages over one call's state (the parts and accumulators live in
/// the thread's scratch slots, host/workspace.hpp).
template <class T>
class PartsStages final : public Stages {
 public:
  PartsStages(const Scheme& s, T alpha, MatrixView<const T> a, MatrixView<const T> b, T beta, MatrixView<T> C,
              Timings& t)
      : s_(s), alpha_(alpha), a_(a), b_(b), beta_(beta), C_(C), t_(t) {}

  void split() override {
    const auto t0 = clock::now();
    if (s_.needs_profile_before_split()) {  // fp16x2-aligned: the parts hold A * 2^sigma_A, B * 2^sigma_B
      unscale_exp_ = -split_aligned_operand(s_.kind, s_.parts, a_, true, 0, ap_) -
                     split_aligned_operand(s_.kind, s_.parts, b_, false, 3, bp_);
    } else {
      ap_ = split_operand(s_.kind, s_.parts, a_, 0);
      bp_ = split_operand(s_.kind, s_.parts, b_, 3);
    }
    t_.split += since(t0);
  }

  void products() override {
    const auto t0 = clock::now();
    const std::int64_t m = a_.rows, n = b_.cols, k = a_.cols;
    acc_.clear();
    for (std::size_t g = 0; g < s_.groups.size(); ++g) acc_.push_back(scratch<float>(6 + int(g), m * n));
    for (std::size_t g = 0; g < s_.groups.size(); ++g) {
      bool first = true;
      for (const PartProduct& p : s_.groups[g].products) {
        sgemm_rm(m, n, k, ap_[p.a], bp_[p.b], first ? 0.0f : 1.0f, acc_[g]);
        first = false;
      }
    }
    t_.products += since(t0);
  }

  void combine() override {
    const auto t0 = clock::now();
    const std::int64_t m = a_.rows, n = b_.cols;
    std::vector<const float*> accp;
    std::vector<T> scale;
    for (std::size_t g = 0; g < s_.groups.size(); ++g) {
      accp.push_back(acc_[g]);
      scale.push_back(static_cast<T>(std::ldexp(1.0, s_.groups[g].scale_exp + unscale_exp_)));
    }
    const int groups = static_cast<int>(accp.size());
    const float* const* accs = accp.data();
    const T* scales = scale.data();
    const T alpha = alpha_, beta = beta_;
    const MatrixView<T> C = C_;
    Kokkos::parallel_for(
        "tcemu::combine_host", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, m),
        [=](std::int64_t i) {
          for (std::int64_t j = 0; j < n; ++j) {
            T v = 0;
            for (int g = groups - 1; g >= 0; --g) v += static_cast<T>(accs[g][i * n + j]) * scales[g];
            C(i, j) = alpha * v + (beta == T(0) ? T(0) : beta * C(i, j));
          }
        });
    t_.combine += since(t0);
  }

 private:
  Scheme s_;
  T alpha_;
  MatrixView<const T> a_, b_;
  T beta_;
  MatrixView<T> C_;
  Timings& t_;
  std::vector<float*> ap_, bp_, acc_;
  int unscale_exp_ = 0;
};

/// Native FP64 as three stages: copies to contiguous FP64, one DGEMM, C = alpha * R + beta * C.
template <class T>
class Fp64Stages final : public Stages {
 public:
  Fp64Stages(T alpha, MatrixView<const T> a, MatrixView<const T> b, T beta, MatrixView<T> C, Timings& t)
      : alpha_(alpha), a_(a), b_(b), beta_(beta), C_(C), t_(t) {}

  void split() override {
    const auto t0 = clock::now();
    const std::int64_t m = a_.rows, n = b_.cols, k = a_.cols;
    double* adp = ad_ = scratch<double>(0, m * k);
    double* bdp = bd_ = scratch<double>(1, k * n);
    const MatrixView<const T> a = a_, b = b_;
    Kokkos::parallel_for(
        "tcemu::copy_fp64", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, m),
        [=](std::int64_t i) {
          for (std::int64_t j = 0; j < k; ++j) adp[i * k + j] = static_cast<double>(a(i, j));
        });
    Kokkos::parallel_for(
        "tcemu::copy_fp64", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, k),
        [=](std::int64_t i) {
          for (std::int64_t j = 0; j < n; ++j) bdp[i * n + j] = static_cast<double>(b(i, j));
        });
    t_.split += since(t0);
  }

  void products() override {
    const auto t0 = clock::now();
    const std::int64_t m = a_.rows, n = b_.cols, k = a_.cols;
    r_ = scratch<double>(2, m * n);
    dgemm_rm(m, n, k, ad_, bd_, 0.0, r_);
    t_.products += since(t0);
  }

  void combine() override {
    const auto t0 = clock::now();
    const std::int64_t m = a_.rows, n = b_.cols;
    const double* rp = r_;
    const T alpha = alpha_, beta = beta_;
    const MatrixView<T> C = C_;
    Kokkos::parallel_for(
        "tcemu::combine_fp64", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, m),
        [=](std::int64_t i) {
          for (std::int64_t j = 0; j < n; ++j)
            C(i, j) = static_cast<T>(static_cast<double>(alpha) * rp[i * n + j] +
                                     (beta == T(0) ? 0.0 : static_cast<double>(beta) * C(i, j)));
        });
    t_.combine += since(t0);
  }

 private:
  T alpha_;
  MatrixView<const T> a_, b_;
  T beta_;
  MatrixView<T> C_;
  Timings& t_;
  double* ad_ = nullptr;
  double* bd_ = nullptr;
  double* r_ = nullptr;
};

}  // namespace

template <class T>
std::unique_ptr<Stages> parts_stages(const Scheme& s, T alpha, MatrixView<const T> a, MatrixView<const T> b, T beta,
                                     MatrixView<T> C, Timings& t) {
  return std::make_unique<PartsStages<T>>(s, alpha, a, b, beta, C, t);
}

template <class T>
std::unique_ptr<Stages> fp64_stages(T alpha, MatrixView<const T> a, MatrixView<const T> b, T beta, MatrixView<T> C,
                                    Timings& t) {
  return std::make_unique<Fp64Stages<T>>(alpha, a, b, beta, C, t);
}

#define TCEMU_INSTANTIATE(T)                                                                      \
  template std::unique_ptr<Stages> parts_stages<T>(const Scheme&, T, MatrixView<const T>, MatrixView<const T>, \
                                                   T, MatrixView<T>, Timings&);                            \
  template std::unique_ptr<Stages> fp64_stages<T>(T, MatrixView<const T>, MatrixView<const T>, T,           \
                                                  MatrixView<T>, Timings&);
TCEMU_INSTANTIATE(float)
TCEMU_INSTANTIATE(double)
#undef TCEMU_INSTANTIATE

}  // namespace tcemu::host
