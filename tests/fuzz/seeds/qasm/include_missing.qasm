OPENQASM 2.0;
include "qelib1.inc";
include "other.inc";
qreg q[1];
h q[0];
