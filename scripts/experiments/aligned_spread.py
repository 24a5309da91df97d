#!/usr/bin/env python3
"""Why fp16x2-aligned's range check stops at a 5-bit line spread (core/include/tcemu/split.hpp,
kAlignedMaxSpreadBits): the representation error of its per-line grid grows with the spread of a line.

For uniform(-0.5, 0.5) * exp(phi N(0,1)) operands (tcemu's phi distributions) it prints
 1. the largest line spread log2(max |x| / mean |x|) of 96 x 200 operands (the shape of
    tests/core/test_gemm_host.cpp's SchemeAccuracy cases), and
 2. for n = 256 square products, the relative Frobenius error of the aligned parts' exact product
    (hi*hi + hi*lo + lo*hi + lo*lo in FP64, i.e. representation error only) against FP64, next to
    FP32 matmul's error, mean over three seeds.
Usage: python3 scripts/experiments/aligned_spread.py   (needs numpy)
"""
import numpy as np


def split(x, axis):
    """tcemu's fp16x2-aligned split: operand scaled to max in [2^14, 2^15), hi on the line's 2^(e-10) grid."""
    mx = np.max(np.abs(x), axis=axis, keepdims=True)
    e = np.floor(np.log2(np.where(mx > 0, mx, 1))) + 1
    sig = 15 - (np.floor(np.log2(np.abs(x).max())) + 1)
    xs = x * 2.0**sig
    u = 2.0 ** (e + sig - 10)
    hi = (np.round(xs / u) * u).astype(np.float16).astype(np.float64)
    lo = (xs - hi).astype(np.float16).astype(np.float64)
    return hi, lo, sig


def phi_data(rng, phi, shape):
    return (rng.uniform(-0.5, 0.5, shape) * np.exp(phi * rng.standard_normal(shape))).astype(np.float32).astype(np.float64)


def main():
    rng = np.random.default_rng(1)
    print("1. largest line spread of 96 x 200 operands")
    for phi in (0, 0.1, 0.5, 1, 1.5, 2, 4):
        a = np.abs(phi_data(rng, phi, (96, 200)))
        print(f"   phi={phi}: {np.max(np.log2(a.max(1) / a.mean(1))):.2f} bits")
    rng = np.random.default_rng(5)
    n = 256
    print("2. n = 256: aligned representation error vs FP32 matmul error")
    for phi in (0, 1, 1.25, 1.5, 1.75, 2, 3, 4):
        errs, sg, sp = [], [], []
        for _ in range(3):
            A, B = phi_data(rng, phi, (n, n)), phi_data(rng, phi, (n, n))
            R = A @ B
            ah, al, sa = split(A, 1)
            bh, bl, sb = split(B, 0)
            C = (ah @ bh + ah @ bl + al @ bh + al @ bl) * 2.0 ** (-sa - sb)
            S = (A.astype(np.float32) @ B.astype(np.float32)).astype(np.float64)
            errs.append(np.linalg.norm(C - R) / np.linalg.norm(R))
            sg.append(np.linalg.norm(S - R) / np.linalg.norm(R))
            a, b = np.abs(A), np.abs(B)
            sp.append(max(np.max(np.log2(a.max(1) / a.mean(1))), np.max(np.log2(b.max(0) / b.mean(0)))))
        print(f"   phi={phi}: spread {np.mean(sp):.2f} bits, aligned {np.mean(errs):.2e}, "
              f"FP32 {np.mean(sg):.2e}, ratio {np.mean(errs) / np.mean(sg):.2f}")


if __name__ == "__main__":
    main()
