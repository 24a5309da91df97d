#pragma once
/// \file circuit_generators.hpp
/// Built-in circuits (--generate NAME:key=value,...):
///
///   brickwork:n=N,depth=D,seed=S[,d=2]   random unitary circuit of the Ozaki-INT8 paper (Fig. 10):
///       D layers of Haar-random d-qubit unitaries on consecutive qubits, layer l starting at qubit
///       (l odd ? floor(d/2) : 0) (for d = 2: pairs (0,1),(2,3),... then (1,2),(3,4),...).
///   sycamore:n=N,depth=D,seed=S[,layout=line|grid]   Sycamore-like random circuit (Arute et al.
///       2019): D cycles of random single-qubit gates from {sqrt(X), sqrt(Y), sqrt(W)} (never the same
///       gate twice in a row on a qubit) followed by fSim(pi/2, pi/6) couplers, the couplers of cycle
///       l from the pattern sequence ABCDCDAB (grid: A/B horizontal even/odd pairs, C/D vertical on a
///       ceil(sqrt(N))-wide grid; line: A/C even pairs, B/D odd pairs), and a last single-qubit layer.
///   qft:n=N[,input=J]     quantum Fourier transform of basis state |J> (X gates, then H and
///       controlled phases cp(pi/2^k), then the final swaps): amplitudes e^{2 pi i J K / 2^N} / 2^{N/2}.
///   ghz:n=N               H on qubit 0, then cx(q, q+1): (|0...0> + |1...1>)/sqrt(2).
///   random:n=N,gates=G,seed=S[,targets=3,controls=2]   G Haar-random gates on 1..targets random
///       qubits with 0..controls random control qubits (exercises fusion and controlled blocks).
#include <string>

#include "circuit.hpp"

namespace qsim {

/// Builds the circuit of a generator spec (see the file comment). Circuit::name is the spec.
/// Throws tcemu::InvalidArgument naming the spec for an unknown generator, an unknown, missing or
/// repeated key, a non-integer value, or a value out of range (n in 1..kMaxQubits, depth >= 0,
/// 2 <= d <= n, d <= kMaxBlockQubits, 0 <= input < 2^n, gates <= kMaxGates, an explicit random
/// `controls` with targets + controls > n, a sycamore depth that can exceed kMaxGates gates).
Circuit generate(const std::string& spec);

Circuit brickwork(int n, int depth, std::uint64_t seed, int d = 2);
Circuit sycamore(int n, int depth, std::uint64_t seed, bool grid);
Circuit qft(int n, std::uint64_t input = 0);
Circuit ghz(int n);
Circuit random_circuit(int n, int gates, std::uint64_t seed, int max_targets = 3, int max_controls = 2);

}  // namespace qsim
