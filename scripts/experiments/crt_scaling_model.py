#!/usr/bin/env python3
"""Model of int8-crt's scaling error (Ozaki scheme II, docs/crt.md) on the acceptance inputs.

The scheme's error is (almost) all in the scaling: rows of A and columns of B are scaled by powers
of two and made integers, and the INT8 residue products and the CRT reconstruction are exact up to
rounding errors some 2^-60 below it. So the error of entry (i, j) is, to that precision,
    (da B' + a' db)_ij / 2^(ea_i + eb_j),   a' = 2^ea a, A' = integer(a'), da = A' - a' (B likewise),
which this script evaluates in FP64 for the Cauchy-Schwarz rule (the one the scheme uses) and
compares with a long-double reference of A B. It reports median and largest relative errors per
variant of the rule; the acceptance's DGEMM errors come from cuBLAS on the GPU (docs/benchmarks.md),
not from this script (numpy's FP64 product here uses OpenBLAS, whose errors differ).

Variants:
  trunc, Lb-2   integers by truncation, |A'||B'| <= 2^(Lb-2) (the scheme before session 34)
  rint, Lb-2    rounding to nearest, same limit
  rint, Lb-1    rounding to nearest, |A'||B'| <= 2^(Lb-1) (session 34)
  rint, Lb-1, split   the same with rows given (Lb - 1 - d - c) / 2 and columns (Lb - 1 + d - c) / 2,
                      d = 1 when every row has Lb - 1 - c odd, else 0 (session 34's split,
                      crt_arith::split_d: the rows are its source, op(A) on a tie as here)
  rint, Lb-1, fractional   not implemented in the scheme: each line scaled by 2^((Lb - 1 - log2 s2) / 2)
                      with its fractional part (a factor in [1, 2) beside the power of two; 2^-20 below
                      it as a margin), so that no line loses the floors' half bits; the result would be
                      divided by the two factors (one FP64 rounding, not modelled)

Usage: crt_scaling_model.py [seed] [m]   (m = n sampled rows and columns, k = 8192)
"""
import math
import sys

import numpy as np

MODULI = [256, 255, 253, 251, 247, 241, 239, 233, 229, 227, 223, 217, 211, 199, 197, 193, 191, 181, 179, 173]


def floor_log2_p(n):
    p = 1
    for q in MODULI[:n]:
        p *= q
    return p.bit_length() - 1


def cauchy_schwarz_lines(x):
    """c = ceil(log2 s2) and base = 16 - E per row of x (crt_arith: line_exponent_of_max, ceil_mag)."""
    mx = np.abs(x).max(axis=1)
    e = np.array([math.frexp(v)[1] for v in mx])  # max |line| < 2^E
    base = 16 - e
    q = np.ceil(np.abs(x) * np.ldexp(1.0, base)[:, None])
    s2 = (q * q).sum(axis=1)
    c = np.array([math.ceil(math.log2(v)) for v in s2])
    return c, base




def model(a, b, n_moduli, rounding, limit_offset, split):
    budget = floor_log2_p(n_moduli) - limit_offset
    ca, ba = cauchy_schwarz_lines(a)
    cb, bb = cauchy_schwarz_lines(b.T)
    d = 1 if split and np.all((budget - ca) % 2 == 1) else 0
    ha = np.floor((budget - d - ca) / 2)
    hb = np.floor((budget + d - cb) / 2)
    if rounding == "rint":  # crt_arith::scale_exponent: one more halving where h < 0
        ha = np.where(ha >= 0, ha, ha - 1)
        hb = np.where(hb >= 0, hb, hb - 1)
    ea = (ha + ba).astype(int)
    eb = (hb + bb).astype(int)
    to_int = np.rint if rounding == "rint" else np.trunc
    ap = np.ldexp(a, ea[:, None])
    bp = np.ldexp(b, eb[None, :])
    A, B = to_int(ap), to_int(bp)
    err = (A - ap) @ B + ap @ (B - bp)
    return err / np.ldexp(1.0, ea[:, None] + eb[None, :])


def model_fractional(a, b, n_moduli, margin=2.0**-20):
    """The fractional variant: scales 2^((Lb - 1 - log2 s2) / 2 + base - margin) per line, no floor."""
    budget = floor_log2_p(n_moduli) - 1
    scales = []
    for x in (a, b.T):
        mx = np.abs(x).max(axis=1)
        base = 16 - np.array([math.frexp(v)[1] for v in mx])
        q = np.ceil(np.abs(x) * np.ldexp(1.0, base)[:, None])
        s2 = (q * q).sum(axis=1)
        scales.append(2.0 ** ((budget - np.log2(s2)) / 2 - margin + base))
    sa, sb = scales
    ap, bp = a * sa[:, None], b * sb[None, :]
    A, B = np.rint(ap), np.rint(bp)
    err = (A - ap) @ B + ap @ (B - bp)
    return err / (sa[:, None] * sb[None, :])


def main():
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    m = int(sys.argv[2]) if len(sys.argv) > 2 else 128
    k = 8192
    rng = np.random.default_rng(seed)
    variants = [("trunc, Lb-2", "trunc", 2, False), ("rint, Lb-2", "rint", 2, False),
                ("rint, Lb-1", "rint", 1, False), ("rint, Lb-1, split", "rint", 1, True)]
    print("phi   N  variant                  median rel   max rel")
    for phi, ns in ((0.1, (14, 15)), (1.0, (14, 15)), (4.0, (16, 17))):
        a = rng.uniform(-0.5, 0.5, (m, k)) * np.exp(phi * rng.standard_normal((m, k)))
        b = rng.uniform(-0.5, 0.5, (k, m)) * np.exp(phi * rng.standard_normal((k, m)))
        ref = (a.astype(np.longdouble) @ b.astype(np.longdouble)).astype(float)
        for n in ns:
            for name, rounding, off, split in variants:
                r = np.abs(model(a, b, n, rounding, off, split) / ref)
                print(f"{phi:<5} {n:<2} {name:<24} {np.median(r):.2e}     {r.max():.2e}")
            r = np.abs(model_fractional(a, b, n) / ref)
            print(f"{phi:<5} {n:<2} {'rint, Lb-1, fractional':<24} {np.median(r):.2e}     {r.max():.2e}")


if __name__ == "__main__":
    main()
