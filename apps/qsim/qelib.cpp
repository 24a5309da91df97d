// The standard gate library qelib1.inc, embedded (qelib.hpp), and exact matrices for its gates.
#include "qelib.hpp"

#include <cmath>
#include <map>

namespace qsim::qasm {

const std::string& qelib1_source() {
  // QASMBench's qelib1.inc (shared/circuits/qasmbench/qelib1.inc, verbatim), then the gates that
  // Qiskit's qelib1.inc adds (u, p, sx, sxdg, cp, csx, cu), with Qiskit's definitions.
  static const std::string text = R"QELIB(
// Quantum Experience (QE) Standard Header
// file: qelib1.inc

// --- QE Hardware primitives ---

// 3-parameter 2-pulse single qubit gate
gate u3(theta,phi,lambda) q { U(theta,phi,lambda) q; }
// 2-parameter 1-pulse single qubit gate
gate u2(phi,lambda) q { U(pi/2,phi,lambda) q; }
// 1-parameter 0-pulse single qubit gate
gate u1(lambda) q { U(0,0,lambda) q; }
// controlled-NOT
gate cx c,t { CX c,t; }
// idle gate (identity)
gate id a { U(0,0,0) a; }
// idle gate (identity) with length gamma*sqglen
gate u0(gamma) q { U(0,0,0) q; }

// --- QE Standard Gates ---

// Pauli gate: bit-flip
gate x a { u3(pi,0,pi) a; }
// Pauli gate: bit and phase flip
gate y a { u3(pi,pi/2,pi/2) a; }
// Pauli gate: phase flip
gate z a { u1(pi) a; }
// Clifford gate: Hadamard
gate h a { u2(0,pi) a; }
// Clifford gate: sqrt(Z) phase gate
gate s a { u1(pi/2) a; }
// Clifford gate: conjugate of sqrt(Z)
gate sdg a { u1(-pi/2) a; }
// C3 gate: sqrt(S) phase gate
gate t a { u1(pi/4) a; }
// C3 gate: conjugate of sqrt(S)
gate tdg a { u1(-pi/4) a; }

// --- Standard rotations ---
// Rotation around X-axis
gate rx(theta) a { u3(theta, -pi/2,pi/2) a; }
// rotation around Y-axis
gate ry(theta) a { u3(theta,0,0) a; }
// rotation around Z axis
gate rz(phi) a { u1(phi) a; }

// --- QE Standard User-Defined Gates  ---

// controlled-Phase
gate cz a,b { h b; cx a,b; h b; }
// controlled-Y
gate cy a,b { sdg b; cx a,b; s b; }
// swap
gate swap a,b { cx a,b; cx b,a; cx a,b; }
// controlled-H
gate ch a,b {
h b; sdg b;
cx a,b;
h b; t b;
cx a,b;
t b; h b; s b; x b; s a;
}
// C3 gate: Toffoli
gate ccx a,b,c
{
  h c;
  cx b,c; tdg c;
  cx a,c; t c;
  cx b,c; tdg c;
  cx a,c; t b; t c; h c;
  cx a,b; t a; tdg b;
  cx a,b;
}
// cswap (Fredkin)
gate cswap a,b,c
{
  cx c,b;
  ccx a,b,c;
  cx c,b;
}
// controlled rx rotation
gate crx(lambda) a,b
{
  u1(pi/2) b;
  cx a,b;
  u3(-lambda/2,0,0) b;
  cx a,b;
  u3(lambda/2,-pi/2,0) b;
}
// controlled ry rotation
gate cry(lambda) a,b
{
  u3(lambda/2,0,0) b;
  cx a,b;
  u3(-lambda/2,0,0) b;
  cx a,b;
}
// controlled rz rotation
gate crz(lambda) a,b
{
  u1(lambda/2) b;
  cx a,b;
  u1(-lambda/2) b;
  cx a,b;
}
// controlled phase rotation
gate cu1(lambda) a,b
{
  u1(lambda/2) a;
  cx a,b;
  u1(-lambda/2) b;
  cx a,b;
  u1(lambda/2) b;
}
// controlled-U
gate cu3(theta,phi,lambda) c, t
{
  // implements controlled-U(theta,phi,lambda) with  target t and control c
  u1((lambda+phi)/2) c;
  u1((lambda-phi)/2) t;
  cx c,t;
  u3(-theta/2,0,-(phi+lambda)/2) t;
  cx c,t;
  u3(theta/2,phi,0) t;
}
// two-qubit XX rotation
gate rxx(theta) a,b
{
  u3(pi/2, theta, 0) a;
  h b;
  cx a,b;
  u1(-theta) b;
  cx a,b;
  h b;
  u2(-pi, pi-theta) a;
}
// two-qubit ZZ rotation
gate rzz(theta) a,b
{
  cx a,b;
  u1(theta) b;
  cx a,b;
}
// relative-phase CCX
gate rccx a,b,c
{
  u2(0,pi) c;
  u1(pi/4) c;
  cx b, c;
  u1(-pi/4) c;
  cx a, c;
  u1(pi/4) c;
  cx b, c;
  u1(-pi/4) c;
  u2(0,pi) c;
}
// relative-phase 3-controlled X gate
gate rc3x a,b,c,d
{
  u2(0,pi) d;
  u1(pi/4) d;
  cx c,d;
  u1(-pi/4) d;
  u2(0,pi) d;
  cx a,d;
  u1(pi/4) d;
  cx b,d;
  u1(-pi/4) d;
  cx a,d;
  u1(pi/4) d;
  cx b,d;
  u1(-pi/4) d;
  u2(0,pi) d;
  u1(pi/4) d;
  cx c,d;
  u1(-pi/4) d;
  u2(0,pi) d;
}
// 3-controlled X gate
gate c3x a,b,c,d
{
    h d; cu1(-pi/4) a,d; h d;
    cx a,b;
    h d; cu1(pi/4) b,d; h d;
    cx a,b;
    h d; cu1(-pi/4) b,d; h d;
    cx b,c;
    h d; cu1(pi/4) c,d; h d;
    cx a,c;
    h d; cu1(-pi/4) c,d; h d;
    cx b,c;
    h d; cu1(pi/4) c,d; h d;
    cx a,c;
    h d; cu1(-pi/4) c,d; h d;
}
// 3-controlled sqrt(X) gate, this equals the C3X gate where the CU1 rotations are -pi/8 not -pi/4
gate c3sqrtx a,b,c,d
{
    h d; cu1(-pi/8) a,d; h d;
    cx a,b;
    h d; cu1(pi/8) b,d; h d;
    cx a,b;
    h d; cu1(-pi/8) b,d; h d;
    cx b,c;
    h d; cu1(pi/8) c,d; h d;
    cx a,c;
    h d; cu1(-pi/8) c,d; h d;
    cx b,c;
    h d; cu1(pi/8) c,d; h d;
    cx a,c;
    h d; cu1(-pi/8) c,d; h d;
}
// 4-controlled X gate
gate c4x a,b,c,d,e
{
    h e; cu1(-pi/2) d,e; h e;
    c3x a,b,c,d;
    h d; cu1(pi/4) d,e; h d;
    c3x a,b,c,d;
    c3sqrtx a,b,c,e;
}

// --- Added by qsim: gates of Qiskit's qelib1.inc that the QASMBench copy lacks ---
gate u(theta,phi,lambda) q { U(theta,phi,lambda) q; }
gate p(lambda) q { U(0,0,lambda) q; }
gate sx a { sdg a; h a; sdg a; }
gate sxdg a { s a; h a; s a; }
gate cp(lambda) a,b { p(lambda/2) a; cx a,b; p(-lambda/2) b; cx a,b; p(lambda/2) b; }
gate csx a,b { h b; cu1(pi/2) a,b; h b; }
gate cu(theta,phi,lambda,gamma) c,t
{
  p(gamma) c;
  p((lambda+phi)/2) c;
  p((lambda-phi)/2) t;
  cx c,t;
  u(-theta/2,0,-(phi+lambda)/2) t;
  cx c,t;
  u(theta/2,phi,0) t;
}
)QELIB";
  return text;
}

namespace {

using P = const std::vector<double>&;

Matrix scaled(Matrix m, cplx f) {
  for (auto& z : m) z *= f;
  return m;
}

const std::map<std::string, Builtin>& table() {
  static const std::map<std::string, Builtin> t = [] {
    std::map<std::string, Builtin> m;
    auto add = [&](const char* name, int params, int controls, int targets, Matrix (*f)(P)) {
      m[name] = Builtin{params, controls, targets, f};
    };
    add("U", 3, 0, 1, [](P p) { return u3(p[0], p[1], p[2]); });
    add("u3", 3, 0, 1, [](P p) { return u3(p[0], p[1], p[2]); });
    add("u", 3, 0, 1, [](P p) { return u3(p[0], p[1], p[2]); });
    add("u2", 2, 0, 1, [](P p) { return u3(M_PI / 2, p[0], p[1]); });
    add("u1", 1, 0, 1, [](P p) { return phase(p[0]); });
    add("p", 1, 0, 1, [](P p) { return phase(p[0]); });
    add("rz", 1, 0, 1, [](P p) { return phase(p[0]); });
    add("u0", 1, 0, 1, [](P) { return identity(1); });
    add("id", 0, 0, 1, [](P) { return identity(1); });
    add("x", 0, 0, 1, [](P) { return pauli_x(); });
    add("y", 0, 0, 1, [](P) { return pauli_y(); });
    add("z", 0, 0, 1, [](P) { return pauli_z(); });
    add("h", 0, 0, 1, [](P) { return hadamard(); });
    add("s", 0, 0, 1, [](P) { return phase(M_PI / 2); });
    add("sdg", 0, 0, 1, [](P) { return phase(-M_PI / 2); });
    add("t", 0, 0, 1, [](P) { return phase(M_PI / 4); });
    add("tdg", 0, 0, 1, [](P) { return phase(-M_PI / 4); });
    add("rx", 1, 0, 1, [](P p) { return rx(p[0]); });
    add("ry", 1, 0, 1, [](P p) { return ry(p[0]); });
    add("sx", 0, 0, 1, [](P) { return rx(M_PI / 2); });
    add("sxdg", 0, 0, 1, [](P) { return rx(-M_PI / 2); });
    add("CX", 0, 1, 1, [](P) { return pauli_x(); });
    add("cx", 0, 1, 1, [](P) { return pauli_x(); });
    add("cy", 0, 1, 1, [](P) { return pauli_y(); });
    add("cz", 0, 1, 1, [](P) { return pauli_z(); });
    // qelib1's ch body ends with `s a` on the control: it is e^{i pi/4} * controlled-H, a global phase
    // that a controlled gate cannot carry, so ch is a dense two-qubit gate (bit 0 = control).
    add("ch", 0, 0, 2, [](P) {
      const cplx w = std::polar(1.0, M_PI / 4), h = w * 0.70710678118654752440;
      Matrix m(16);
      m[0 * 4 + 0] = m[2 * 4 + 2] = w;
      m[1 * 4 + 1] = m[1 * 4 + 3] = m[3 * 4 + 1] = h;
      m[3 * 4 + 3] = -h;
      return m;
    });
    add("crx", 1, 1, 1, [](P p) { return rx(p[0]); });
    add("cry", 1, 1, 1, [](P p) { return ry(p[0]); });
    add("crz", 1, 1, 1, [](P p) { return rz_symmetric(p[0]); });
    add("cu1", 1, 1, 1, [](P p) { return phase(p[0]); });
    add("cp", 1, 1, 1, [](P p) { return phase(p[0]); });
    add("cu3", 3, 1, 1, [](P p) { return u3(p[0], p[1], p[2]); });
    add("cu", 4, 1, 1, [](P p) { return scaled(u3(p[0], p[1], p[2]), std::polar(1.0, p[3])); });
    // csx = h.cu1(pi/2).h = controlled (1/2)[[1+i, 1-i], [1-i, 1+i]] = e^{i pi/4} rx(pi/2).
    add("csx", 0, 1, 1, [](P) { return scaled(rx(M_PI / 2), std::polar(1.0, M_PI / 4)); });
    add("swap", 0, 0, 2, [](P) { return swap(); });
    add("cswap", 0, 1, 2, [](P) { return swap(); });
    add("ccx", 0, 2, 1, [](P) { return pauli_x(); });
    add("c3x", 0, 3, 1, [](P) { return pauli_x(); });
    // qelib1's c3sqrtx is, as defined, the 3-controlled sqrt(X)^dagger = e^{-i pi/4} rx(-pi/2).
    add("c3sqrtx", 0, 3, 1, [](P) { return scaled(rx(-M_PI / 2), std::polar(1.0, -M_PI / 4)); });
    // No c4x: the body in QASMBench's (old) qelib1.inc is not a 4-controlled X (its middle
    // `h d; cu1(pi/4) d,e; h d;` differs from Qiskit's); qsim expands the definition as written.
    add("rzz", 1, 0, 2, [](P p) {
      Matrix r(16);
      r[0] = r[15] = 1.0;
      r[5] = r[10] = std::polar(1.0, p[0]);
      return r;
    });
    return m;
  }();
  return t;
}

}  // namespace

const Builtin* find_builtin(const std::string& name) {
  const auto& t = table();
  const auto it = t.find(name);
  return it == t.end() ? nullptr : &it->second;
}

std::vector<std::string> builtin_names() {
  std::vector<std::string> out;
  for (const auto& [name, b] : table()) out.push_back(name);
  return out;
}

}  // namespace qsim::qasm
