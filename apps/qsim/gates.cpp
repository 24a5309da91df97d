// Gate matrices, matrix helpers, the portable RNG and Haar-random unitaries (gates.hpp).
#include "gates.hpp"

#include <cmath>
#include <string>

#include "tcemu/error.hpp"

namespace qsim {

namespace {
constexpr double kSqrt1_2 = 0.70710678118654752440;
int dim_of(const Matrix& m) {
  const int q = matrix_qubits(m);
  return 1 << q;
}
}  // namespace

int matrix_qubits(const Matrix& m) {
  for (int k = 0; k <= 12; ++k)
    if (m.size() == (std::size_t(1) << (2 * k))) return k;
  throw tcemu::InvalidArgument("gate matrix with " + std::to_string(m.size()) +
                               " entries is not 2^k x 2^k for k <= 12");
}

Matrix identity(int qubits) {
  const std::size_t d = std::size_t(1) << qubits;
  Matrix m(d * d);
  for (std::size_t i = 0; i < d; ++i) m[i * d + i] = 1.0;
  return m;
}

Matrix multiply(const Matrix& a, const Matrix& b) {
  const int d = dim_of(a);
  if (a.size() != b.size()) throw tcemu::InvalidArgument("multiply: matrices of different dimensions");
  Matrix c(a.size());
  for (int i = 0; i < d; ++i)
    for (int k = 0; k < d; ++k) {
      const cplx x = a[std::size_t(i) * d + k];
      if (x == 0.0) continue;
      for (int j = 0; j < d; ++j) c[std::size_t(i) * d + j] += x * b[std::size_t(k) * d + j];
    }
  return c;
}

Matrix adjoint(const Matrix& a) {
  const int d = dim_of(a);
  Matrix c(a.size());
  for (int i = 0; i < d; ++i)
    for (int j = 0; j < d; ++j) c[std::size_t(j) * d + i] = std::conj(a[std::size_t(i) * d + j]);
  return c;
}

double unitarity_error(const Matrix& u) {
  const Matrix p = multiply(adjoint(u), u);
  return max_abs_diff(p, identity(matrix_qubits(u)));
}

double max_abs_diff(const Matrix& a, const Matrix& b) {
  if (a.size() != b.size()) throw tcemu::InvalidArgument("max_abs_diff: matrices of different dimensions");
  double e = 0;
  for (std::size_t i = 0; i < a.size(); ++i) e = std::max(e, std::abs(a[i] - b[i]));
  return e;
}

Matrix u3(double theta, double phi, double lambda) {
  const double c = std::cos(theta / 2), s = std::sin(theta / 2);
  // e^{i(phi+lambda)} as the product of the two phases, not from the rounded sum phi + lambda: for
  // angles of different magnitude (u3(1, -1e308, 3.14)) the sum loses lambda entirely and the matrix
  // stops being unitary. The product is diag(1, e^{i phi}) R diag(1, e^{i lambda}), unitary to
  // rounding for any finite angles.
  const cplx e_phi = std::polar(1.0, phi), e_lambda = std::polar(1.0, lambda);
  return {c, -e_lambda * s, e_phi * s, e_phi * e_lambda * c};
}

Matrix phase(double lambda) { return {1.0, 0.0, 0.0, std::polar(1.0, lambda)}; }
Matrix pauli_x() { return {0.0, 1.0, 1.0, 0.0}; }
Matrix pauli_y() { return {0.0, cplx(0, -1), cplx(0, 1), 0.0}; }
Matrix pauli_z() { return {1.0, 0.0, 0.0, -1.0}; }
Matrix hadamard() { return {kSqrt1_2, kSqrt1_2, kSqrt1_2, -kSqrt1_2}; }

Matrix rx(double theta) {
  const double c = std::cos(theta / 2), s = std::sin(theta / 2);
  return {c, cplx(0, -s), cplx(0, -s), c};
}

Matrix ry(double theta) {
  const double c = std::cos(theta / 2), s = std::sin(theta / 2);
  return {c, -s, s, c};
}

Matrix rz_symmetric(double theta) { return {std::polar(1.0, -theta / 2), 0.0, 0.0, std::polar(1.0, theta / 2)}; }

Matrix swap() {
  Matrix m(16);
  m[0 * 4 + 0] = m[1 * 4 + 2] = m[2 * 4 + 1] = m[3 * 4 + 3] = 1.0;
  return m;
}

Matrix fsim(double theta, double phi) {
  Matrix m(16);
  const double c = std::cos(theta), s = std::sin(theta);
  m[0] = 1.0;
  m[1 * 4 + 1] = c;
  m[1 * 4 + 2] = cplx(0, -s);
  m[2 * 4 + 1] = cplx(0, -s);
  m[2 * 4 + 2] = c;
  m[3 * 4 + 3] = std::polar(1.0, -phi);
  return m;
}

Matrix sycamore_sqrt_x() { return rx(M_PI / 2); }
Matrix sycamore_sqrt_y() { return ry(M_PI / 2); }
Matrix sycamore_sqrt_w() {
  // exp(-i pi/4 W) = cos(pi/4) I - i sin(pi/4) W, W = [[0, e^{-i pi/4}], [e^{i pi/4}, 0]].
  const cplx mi(0, -1);
  return {kSqrt1_2, mi * kSqrt1_2 * std::polar(1.0, -M_PI / 4), mi * kSqrt1_2 * std::polar(1.0, M_PI / 4),
          kSqrt1_2};
}

// ------------------------------------------------------------------------------------------ Rng

namespace {
std::uint64_t splitmix64(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
}  // namespace

Rng::Rng(std::uint64_t seed) {
  state_[0] = splitmix64(seed);
  state_[1] = splitmix64(seed);
}

std::uint64_t Rng::next() {
  std::uint64_t s1 = state_[0];
  const std::uint64_t s0 = state_[1];
  const std::uint64_t result = s0 + s1;
  state_[0] = s0;
  s1 ^= s1 << 23;
  state_[1] = s1 ^ s0 ^ (s1 >> 18) ^ (s0 >> 5);
  return result;
}

double Rng::uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

double Rng::normal() {
  if (has_spare_) {
    has_spare_ = false;
    return spare_;
  }
  double u1 = uniform();
  while (u1 <= 0.0) u1 = uniform();
  const double u2 = uniform();
  const double r = std::sqrt(-2.0 * std::log(u1));
  spare_ = r * std::sin(2 * M_PI * u2);
  has_spare_ = true;
  return r * std::cos(2 * M_PI * u2);
}

std::uint64_t Rng::below(std::uint64_t n) {
  // Rejection sampling on the top bits: unbiased for every n.
  const std::uint64_t limit = ~std::uint64_t(0) - (~std::uint64_t(0) % n);
  std::uint64_t x;
  do x = next();
  while (x >= limit);
  return x % n;
}

Matrix haar_unitary(int qubits, Rng& rng) {
  if (qubits < 1 || qubits > 9)
    throw tcemu::InvalidArgument("haar_unitary: " + std::to_string(qubits) + " qubits is outside 1..9");
  const int d = 1 << qubits;
  // Columns of Z, stored column-major in `q` (column j at q[j*d ...]).
  std::vector<cplx> q(std::size_t(d) * d);
  for (auto& z : q) z = cplx(rng.normal(), rng.normal()) * kSqrt1_2;
  for (int j = 0; j < d; ++j) {
    cplx* col = &q[std::size_t(j) * d];
    for (int pass = 0; pass < 2; ++pass)
      for (int i = 0; i < j; ++i) {
        const cplx* qi = &q[std::size_t(i) * d];
        cplx dot = 0;
        for (int r = 0; r < d; ++r) dot += std::conj(qi[r]) * col[r];
        for (int r = 0; r < d; ++r) col[r] -= dot * qi[r];
      }
    double nrm = 0;
    for (int r = 0; r < d; ++r) nrm += std::norm(col[r]);
    nrm = std::sqrt(nrm);
    for (int r = 0; r < d; ++r) col[r] /= nrm;
  }
  Matrix u(std::size_t(d) * d);
  for (int r = 0; r < d; ++r)
    for (int c = 0; c < d; ++c) u[std::size_t(r) * d + c] = q[std::size_t(c) * d + r];
  return u;
}

}  // namespace qsim
