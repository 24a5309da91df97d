// Complex GEMM on the host as four real tcemu GEMMs (4M; complex_gemm.hpp).
#include "tcemu/complex_gemm.hpp"

#include <vector>

#include "common/complex_crt.hpp"

namespace tcemu {

GemmReport merge_reports(const GemmReport* r, int count) {
  GemmReport out = r[0];
  for (int i = 1; i < count; ++i) {
    if (r[i].fell_back && !out.fell_back) {
      out.fell_back = true;
      out.note = r[i].note;
    }
    out.seconds_split += r[i].seconds_split;
    out.seconds_products += r[i].seconds_products;
    out.seconds_combine += r[i].seconds_combine;
  }
  return out;
}

template <class T>
GemmReport complex_gemm_host(Op opA, Op opB, std::complex<T> alpha, MatrixView<const std::complex<T>> A,
                             MatrixView<const std::complex<T>> B, std::complex<T> beta,
                             MatrixView<std::complex<T>> C, const GemmOptions& options) {
  const auto a = A.apply(opA);
  const auto b = B.apply(opB);
  check_gemm_shapes(a.rows, a.cols, b.rows, b.cols, C.rows, C.cols);
  // int8-crt: one real product on the real embedding, one certificate (common/complex_crt.hpp).
  if (options.scheme.family() == ImplFamily::crt) return detail::complex_crt_host<T>(a, b, alpha, beta, C, options);
  const std::int64_t m = a.rows, n = b.cols;
  std::vector<T> re(static_cast<std::size_t>(m * n)), im(re.size());
  const MatrixView<T> vre = row_major(re.data(), m, n), vim = row_major(im.data(), m, n);
  const auto ar = real_view(a), ai = imag_view(a), br = real_view(b), bi = imag_view(b);
  GemmReport r[4];
  r[0] = gemm_host<T>(Op::N, Op::N, T(1), ar, br, T(0), vre, options);
  r[1] = gemm_host<T>(Op::N, Op::N, T(-1), ai, bi, T(1), vre, options);
  r[2] = gemm_host<T>(Op::N, Op::N, T(1), ar, bi, T(0), vim, options);
  r[3] = gemm_host<T>(Op::N, Op::N, T(1), ai, br, T(1), vim, options);
  const T ar_ = alpha.real(), ai_ = alpha.imag(), br_ = beta.real(), bi_ = beta.imag();
  const bool read_c = br_ != T(0) || bi_ != T(0);
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      const T x = re[i * n + j], y = im[i * n + j];
      T rr = ar_ * x - ai_ * y, ss = ar_ * y + ai_ * x;
      std::complex<T>& c = C(i, j);
      if (read_c) {
        const T cr = c.real(), ci = c.imag();
        rr += br_ * cr - bi_ * ci;
        ss += br_ * ci + bi_ * cr;
      }
      c = std::complex<T>(rr, ss);
    }
  return merge_reports(r, 4);
}

template GemmReport complex_gemm_host<float>(Op, Op, std::complex<float>, MatrixView<const std::complex<float>>,
                                             MatrixView<const std::complex<float>>, std::complex<float>,
                                             MatrixView<std::complex<float>>, const GemmOptions&);
template GemmReport complex_gemm_host<double>(Op, Op, std::complex<double>,
                                              MatrixView<const std::complex<double>>,
                                              MatrixView<const std::complex<double>>, std::complex<double>,
                                              MatrixView<std::complex<double>>, const GemmOptions&);

}  // namespace tcemu
