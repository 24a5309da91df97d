OPENQASM 2.0;
include "qelib1.inc";
// user gates with parameters, expanded like macros
gate rot(theta, phi) a { rz(phi) a; ry(theta/2) a; rz(-phi) a; }
gate pair(t) a, b { rot(t, pi/4) a; cx a, b; u3(t, -t, 2*t) b; }
qreg q[3];
qreg r[1];
creg c[4];
pair(0.5) q[0], q[1];
rot(sin(pi/3)^2, -(1.5e-1 + cos(0.2))) q[2];
u1(ln(2)*exp(1)/sqrt(3)) r[0];
ccx q[0], q[1], q[2];
cu1(tan(0.3)) q[2], r[0];
barrier q, r;
h q;
cx q, r[0];
measure q[0] -> c[0];
measure r -> c[3];
