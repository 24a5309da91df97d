#!/usr/bin/env python3
"""Host experiment behind the closing note of session 3 (issue 6): does a row-aligned FP16 hi part
remove the norm loss of fp16x2 on Hopper Tensor Cores?

Model of one Tensor Core step (docs/accuracy.md, measured bit-identical on an H200): the 16 products
of an MMA step and the accumulator are cut toward zero to w = 25 bits below the largest of them,
summed exactly, and the sum is rounded toward zero to FP32. The fused wgmma kernel chains 4 steps
(one 128-byte k-tile) per promotion and adds the chain's result to an FP32 register with RN; the
low products (hi*lo, lo*hi) chain through all of k.

Splits of x (state rows, complex Gaussian, real-embedded) and y (a real-embedded Haar unitary):
  standard: hi = fp16(x) (11 bits relative to each element), lo = fp16(x - hi)
  aligned b: x scaled by 2^sigma (operand max in [2^14, 2^15), as tcemu's fp16x2-aligned), then
            hi = u * round(x / u) with u = 2^(E - b), E the exponent of the line's largest |x|
            (|hi / u| <= 2^b: with b = 9 a 64-element chain of hi*hi products, with b = 10 a
            16-element one, stays an exact integer multiple of u_row * u_col below 2^24), lo = fp16(x - hi)
and promotion every 64 (wgmma kernel) or 16 (mma.sync kernel) elements of k, with or without lo*lo.
Prints, per split, the mean relative change of |row of x @ y|^2 against the exact product (the norm
loss per block that accumulates in qsim) and the relative Frobenius error against FP64.
Usage: python3 scripts/experiments/aligned_hi_bias.py [rows] [d]   (needs numpy; default 256 rows, d = 8)
"""
import sys

import numpy as np

W = 25


def tc_chain(terms, c):
    """One MMA step: terms (..., 16) exact products, c (...) accumulator -> new accumulator (FP32 RZ)."""
    allt = np.concatenate([terms, c[..., None]], axis=-1)
    mx = np.max(np.abs(allt), axis=-1)
    e = np.floor(np.log2(np.where(mx > 0, mx, 1.0)))
    q = np.exp2(e - W)[..., None]
    cut = np.trunc(allt / q) * q
    s = cut.sum(axis=-1)
    f = s.astype(np.float32).astype(np.float64)
    over = np.abs(f) > np.abs(s)  # RN went away from zero: step back toward zero
    f = np.where(over, np.nextafter(f.astype(np.float32), np.float32(0)).astype(np.float64), f)
    return f


def fp16(v):
    return v.astype(np.float16).astype(np.float64)


def split(x, bits, axis):
    """bits = 0: standard FP16 hi; otherwise hi = u * round(x / u), |hi / u| <= 2^bits."""
    if bits == 0:
        hi = fp16(x)
        return hi, fp16(x - hi)
    # as tcemu's fp16x2-aligned: the operand scaled by 2^sigma so that its max lies in [2^14, 2^15)
    sigma = 15 - (np.floor(np.log2(np.max(np.abs(x)))) + 1)
    xs = x * np.exp2(sigma)
    mx = np.max(np.abs(xs), axis=axis, keepdims=True)
    e = np.floor(np.log2(mx)) + 1
    u = np.exp2(e - bits)
    hi = np.round(xs / u) * u
    assert np.all(np.abs(hi) <= 2**bits * u)
    lo = fp16(xs - hi)
    return hi * np.exp2(-sigma), lo * np.exp2(-sigma)


def fused(xh, xl, yh, yl, chain, lolo):
    """hi*hi chained over `chain` elements of k per promotion; low products chained over all of k."""
    m, k = xh.shape
    n = yh.shape[1]
    acc = np.zeros((m, n))
    accl = np.zeros((m, n))
    for kt in range(0, k, chain):
        t = np.zeros((m, n))
        for ks in range(kt, kt + chain, 16):
            sl = slice(ks, ks + 16)
            hh = xh[:, None, sl] * yh.T[None, :, sl]
            t = tc_chain(hh, t)
            accl = tc_chain(xh[:, None, sl] * yl.T[None, :, sl], accl)
            accl = tc_chain(xl[:, None, sl] * yh.T[None, :, sl], accl)
            if lolo:
                accl = tc_chain(xl[:, None, sl] * yl.T[None, :, sl], accl)
        acc = (acc.astype(np.float32) + t.astype(np.float32)).astype(np.float64)  # RN promotion
    return (acc.astype(np.float32) + accl.astype(np.float32)).astype(np.float64)


def main():
    rows = int(sys.argv[1]) if len(sys.argv) > 1 else 256
    d = int(sys.argv[2]) if len(sys.argv) > 2 else 8
    rng = np.random.default_rng(1)
    dim = 2 ** d
    z = (rng.standard_normal((dim, dim)) + 1j * rng.standard_normal((dim, dim))) / np.sqrt(2)
    q, r = np.linalg.qr(z)
    u = q * (np.diag(r) / np.abs(np.diag(r)))  # Haar unitary
    psi = (rng.standard_normal((rows, dim)) + 1j * rng.standard_normal((rows, dim))) / np.sqrt(2 * dim)
    # real embedding: [Re psi, Im psi] @ [[Re U^T, Im U^T], [-Im U^T, Re U^T]] = [Re, Im] of psi @ U^T
    x = np.hstack([psi.real, psi.imag])
    ut = u.T
    y = np.block([[ut.real, ut.imag], [-ut.imag, ut.real]])
    exact = x @ y
    n_exact = np.sum(exact**2, axis=1)
    configs = (("standard fp16x2, chain 64", 0, 64, False), ("standard fp16x2, chain 16", 0, 16, False),
               ("aligned 9 bits, chain 64", 9, 64, False), ("aligned 9 bits, chain 64, +lo*lo", 9, 64, True),
               ("aligned 10 bits, chain 16, +lo*lo", 10, 16, True),
               ("aligned 10 bits, chain 64, +lo*lo", 10, 64, True))  # tcemu's fp16x2-aligned, fused wgmma
    for name, bits, chain, lolo in configs:
        xh, xl = split(x, bits, axis=1)
        yh, yl = split(y, bits, axis=0)
        out = fused(xh, xl, yh, yl, chain, lolo)
        dn = (np.sum(out**2, axis=1) - n_exact) / n_exact
        err = np.linalg.norm(out - exact) / np.linalg.norm(exact)
        print(f"{name:34s} d={d} rows={rows}: mean norm change per block {dn.mean():+.3e} "
              f"(std of the mean {dn.std() / np.sqrt(rows):.1e}), rel. Frobenius error {err:.2e}")


if __name__ == "__main__":
    main()
