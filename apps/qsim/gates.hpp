#pragma once
/// \file gates.hpp
/// Gate matrices of qsim's circuit model and a portable seeded random source.
///
/// Conventions (used everywhere in qsim):
///  - A k-qubit gate matrix is 2^k x 2^k, complex128, row-major: element (r, c) is at r * 2^k + c.
///  - Bit i of a row/column index is the state of the gate's i-th qubit (little-endian): for a
///    two-qubit gate on (q_a, q_b), index 1 means q_a = 1, q_b = 0.
///  - A gate maps amplitudes as psi'(r) = sum_c U(r, c) psi(c).
/// Matrices follow the OpenQASM 2.0 definitions of qelib1.inc *including their global phase*
/// (e.g. rz(phi) = u1(phi) = diag(1, e^{i phi})), so that amplitudes agree with other simulators
/// that read the same files.
#include <complex>
#include <cstdint>
#include <vector>

namespace qsim {

using cplx = std::complex<double>;
/// A dense gate matrix, 2^k x 2^k, row-major (see the file comment for the bit order).
using Matrix = std::vector<cplx>;

/// Dimension 2^k of a k-qubit matrix stored as `m`; throws tcemu::InvalidArgument when m.size() is
/// not 4^k for some k in 0..12.
int matrix_qubits(const Matrix& m);

/// 2^k x 2^k identity.
Matrix identity(int qubits);
/// Product a * b of two square matrices of the same dimension.
Matrix multiply(const Matrix& a, const Matrix& b);
/// Conjugate transpose.
Matrix adjoint(const Matrix& a);
/// max_ij |(U^dagger U - I)_ij|: 0 for an exactly unitary matrix.
double unitarity_error(const Matrix& u);
/// max_ij |a_ij - b_ij| (same dimension required).
double max_abs_diff(const Matrix& a, const Matrix& b);

/// OpenQASM's built-in single-qubit gate U(theta, phi, lambda) =
/// [[cos(t/2), -e^{i lambda} sin(t/2)], [e^{i phi} sin(t/2), e^{i (phi + lambda)} cos(t/2)]].
Matrix u3(double theta, double phi, double lambda);
/// diag(1, e^{i lambda}) (qelib1's u1 / p / rz).
Matrix phase(double lambda);
Matrix pauli_x();
Matrix pauli_y();
Matrix pauli_z();
Matrix hadamard();
/// rx(theta) = [[c, -i s], [-i s, c]] with c = cos(theta/2), s = sin(theta/2).
Matrix rx(double theta);
/// ry(theta) = [[c, -s], [s, c]].
Matrix ry(double theta);
/// diag(e^{-i theta/2}, e^{i theta/2}) (the target part of qelib1's crz).
Matrix rz_symmetric(double theta);
/// SWAP on two qubits (4 x 4).
Matrix swap();
/// Google's fSim(theta, phi) on two qubits: |01>,|10> rotated by theta (cos, -i sin),
/// |11> phase e^{-i phi}.
Matrix fsim(double theta, double phi);
/// Sycamore-circuit single-qubit gates: sqrt(X) = RX(pi/2), sqrt(Y) = RY(pi/2) and
/// sqrt(W) = exp(-i pi/4 W) with W = (X + Y)/sqrt(2).
Matrix sycamore_sqrt_x();
Matrix sycamore_sqrt_y();
Matrix sycamore_sqrt_w();

/// Seeded random source with the same stream on every platform: xorshift128+ seeded through
/// splitmix64, with explicit conversions (std::*_distribution are implementation-defined and are not
/// used, so a seed means the same circuit and the same samples everywhere).
class Rng {
 public:
  explicit Rng(std::uint64_t seed);
  /// Uniform double in [0, 1) with 53 random bits.
  double uniform();
  /// Standard normal N(0, 1) (Box-Muller).
  double normal();
  /// Uniform integer in [0, n); n >= 1.
  std::uint64_t below(std::uint64_t n);

 private:
  std::uint64_t state_[2];
  std::uint64_t next();
  bool has_spare_ = false;
  double spare_ = 0;
};

/// Haar-random unitary of dimension 2^qubits (Mezzadri 2007): Z with i.i.d. complex Gaussian
/// entries (re, im ~ N(0, 1/2)), QR-decomposed by Gram-Schmidt applied twice (CGS2). Gram-Schmidt
/// gives R a positive real diagonal, which is exactly Mezzadri's phase fix Q * diag(R_ii / |R_ii|),
/// so Q is Haar distributed. qubits in 1..9.
Matrix haar_unitary(int qubits, Rng& rng);

}  // namespace qsim
