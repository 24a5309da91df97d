OPENQASM 2.0;
qreg q[2];
U(pi/2, 0, pi) q[0];
CX q[0], q[1];
gate g a { U(0.1, 0.2, 0.3) a; }
opaque magic(x) a;
g q[1];
