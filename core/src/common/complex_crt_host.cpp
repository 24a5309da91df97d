// int8-crt on complex operands on the host: the real embedding of common/complex_crt.hpp, one real
// int8-crt GEMM through gemm_host, then the complex combine where alpha or beta is complex.
#include <vector>

#include "common/complex_crt.hpp"
#include "tcemu/complex_gemm.hpp"

namespace tcemu::detail {

template <class T>
GemmReport complex_crt_host(MatrixView<const std::complex<T>> a, MatrixView<const std::complex<T>> b,
                            std::complex<T> alpha, std::complex<T> beta, MatrixView<std::complex<T>> C,
                            const GemmOptions& options) {
  const std::int64_t m = a.rows, k = a.cols, n = b.cols;
  std::vector<T> x(static_cast<std::size_t>(m * 2 * k)), y(static_cast<std::size_t>(4 * k * n));
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t l = 0; l < k; ++l) {
      const std::complex<T> z = a(i, l);
      x[i * 2 * k + 2 * l] = z.real();
      x[i * 2 * k + 2 * l + 1] = z.imag();
    }
  for (std::int64_t l = 0; l < k; ++l)
    for (std::int64_t j = 0; j < n; ++j) {
      const std::complex<T> z = b(l, j);
      T* row0 = y.data() + (2 * l) * 2 * n + 2 * j;
      T* row1 = row0 + 2 * n;
      row0[0] = z.real();
      row1[0] = -z.imag();
      row0[1] = z.imag();
      row1[1] = z.real();
    }
  const MatrixView<const T> X = row_major<const T>(x.data(), m, 2 * k), Y = row_major<const T>(y.data(), 2 * k, 2 * n);
  if (complex_crt_writes_c(alpha, beta, C)) {
    const MatrixView<T> Cr{reinterpret_cast<T*>(C.data), m, 2 * n, 2 * C.row_stride, 1};
    return gemm_host<T>(Op::N, Op::N, alpha.real(), X, Y, beta.real(), Cr, options);
  }
  std::vector<T> t(static_cast<std::size_t>(m * 2 * n));
  const GemmReport r = gemm_host<T>(Op::N, Op::N, T(1), X, Y, T(0), row_major(t.data(), m, 2 * n), options);
  // The complex combine of complex_gemm_host (and of the GPU's complex_combine): the same operations
  // in the same order, each rounded to T.
  const T ar = alpha.real(), ai = alpha.imag(), br = beta.real(), bi = beta.imag();
  const bool read_c = br != T(0) || bi != T(0);
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      const T re = t[i * 2 * n + 2 * j], im = t[i * 2 * n + 2 * j + 1];
      T rr = ar * re - ai * im, ss = ar * im + ai * re;
      std::complex<T>& c = C(i, j);
      if (read_c) {
        const T cr = c.real(), ci = c.imag();
        rr += br * cr - bi * ci;
        ss += br * ci + bi * cr;
      }
      c = std::complex<T>(rr, ss);
    }
  return r;
}

template GemmReport complex_crt_host<float>(MatrixView<const std::complex<float>>, MatrixView<const std::complex<float>>,
                                            std::complex<float>, std::complex<float>, MatrixView<std::complex<float>>,
                                            const GemmOptions&);
template GemmReport complex_crt_host<double>(MatrixView<const std::complex<double>>,
                                             MatrixView<const std::complex<double>>, std::complex<double>,
                                             std::complex<double>, MatrixView<std::complex<double>>,
                                             const GemmOptions&);

}  // namespace tcemu::detail
