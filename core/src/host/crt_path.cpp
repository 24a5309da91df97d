// int8-crt on the host backend: the catalogue scheme (schemes/crt.hpp) on top of the host reference
// crt::crt_gemm_host (crt.cpp); N from the certificate (crt::certify_int8 for k <= 2^16, crt::certify beyond) for the scheme's target when the
// scheme leaves it open.
#include <chrono>

#include "host/paths.hpp"
#include "tcemu/crt.hpp"

namespace tcemu::host {

namespace {

// The path proper: "" when C was computed, else why not (C untouched).
template <class T>
std::string crt_path(const Scheme& s, T alpha, MatrixView<const T> a, MatrixView<const T> b, T beta, MatrixView<T> C,
                     bool force, std::string& certificate) {
  int moduli = s.parts;
  if (moduli == 0) {  // the smallest N certified for the scheme's target
    const crt::Target target = s.target == Target::fp64 ? crt::Target::fp64 : crt::Target::fp32;
    const double tol = crt::unit_roundoff(target);
    const crt::Certificate cert =  // crt_gemm_host's and the GPU path's choice of certificate
        a.cols <= crt::kInt8CertificateMaxK
            ? crt::certify_int8<T>(Op::N, Op::N, a, b, tol, crt::Scaling::cauchy_schwarz)
            : crt::certify<T>(Op::N, Op::N, a, b, tol, crt::Scaling::cauchy_schwarz);
    if (cert.moduli == 0 && !force) return cert.too_wide();
    moduli = cert.run_moduli();
    certificate = cert.report();
  } else {
    certificate = "N = " + std::to_string(moduli) + " moduli (given)";
  }
  crt::crt_gemm_host<T>(Op::N, Op::N, alpha, a, b, beta, C, moduli, crt::Scaling::cauchy_schwarz);
  return "";
}

}  // namespace

template <class T>
std::string gemm_crt(const Scheme& s, T alpha, MatrixView<const T> a, MatrixView<const T> b, T beta,
                     MatrixView<T> C, Timings& t, bool force, std::string& certificate) {
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  try {
    certificate.clear();
    const std::string why = crt_path(s, alpha, a, b, beta, C, force, certificate);
    t.products += std::chrono::duration<double>(clock::now() - t0).count();
    return why;
  } catch (const crt::Fallback& f) {  // NaN / Inf (reached here only under RangePolicy::ignore)
    if (f.reason != crt::Fallback::Reason::nonfinite) throw;
    return "op(A) or op(B) holds NaN or Inf";
  }
}

template std::string gemm_crt<float>(const Scheme&, float, MatrixView<const float>, MatrixView<const float>, float,
                                     MatrixView<float>, Timings&, bool, std::string&);
template std::string gemm_crt<double>(const Scheme&, double, MatrixView<const double>, MatrixView<const double>,
                                      double, MatrixView<double>, Timings&, bool, std::string&);

}  // namespace tcemu::host
