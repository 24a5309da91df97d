#!/usr/bin/env python3
"""Plots docs/img/qsim30_inplace_h200.png: end-to-end time of the 30-qubit brickwork circuit (depth 20,
NVIDIA H200) against the fusion width d for native complex64 (cuBLAS CGEMM on the permuted state),
fp16x2-aligned through the dense path (permutation + fused GEMM, session 4) and fp16x2-aligned in
place (bit-indexed kernel, session 5), with the line 1.5x below the fastest native run (issue 6).

Usage: /usr/bin/python3 scripts/plots/plot_qsim_inplace.py  (needs Debian's python3-matplotlib)
Data: docs/data/h200_apps/session4/q30_d{5..8}_cgemm.txt, docs/data/h200_apps/session5/q30_d*.txt.
"""
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
S4 = os.path.join(ROOT, "docs", "data", "h200_apps", "session4")
S5 = os.path.join(ROOT, "docs", "data", "h200_apps", "session5")
OUT = os.path.join(ROOT, "docs", "img", "qsim30_inplace_h200.png")
# The committed (sixth) version of the in-place kernel at each d, with the native run of the same call.
S5_FILES = {4: "q30_d4_final.txt", 5: "q30_d5_v6.txt", 6: "q30_d6_final.txt"}


def times(path):
    """{scheme: time_ms} of one saved qsim table."""
    out = {}
    for line in open(path):
        cols = line.split()
        if len(cols) < 10 or cols[0] in ("scheme", "circuit", "fusion"):
            continue
        for i, c in enumerate(cols):  # the state column follows the (possibly multi-word) "used"
            if c in ("complex64", "complex128"):
                out[cols[0]] = float(cols[i + 1])
                break
    return out


def main():
    s4 = {d: times(os.path.join(S4, f"q30_d{d}_cgemm.txt")) for d in (5, 6, 7, 8)}
    s5 = {d: times(os.path.join(S5, f)) for d, f in S5_FILES.items()}
    native = {d: s5[d]["fp32"] for d in s5}
    native.update({d: s4[d]["fp32"] for d in (7, 8)})
    fig, ax = plt.subplots(figsize=(7, 4.5))
    ds = sorted(native)
    ax.plot(ds, [native[d] for d in ds], "o-", color="k", label="native complex64 (cuBLAS CGEMM + permutation)")
    ax.plot((5, 6, 7, 8), [s4[d]["fp16x2-aligned"] for d in (5, 6, 7, 8)], "D--", color="tab:gray",
            label="fp16x2-aligned, permutation + fused GEMM (session 4)")
    ax.plot(sorted(s5), [s5[d]["fp16x2-aligned"] for d in sorted(s5)], "D-", color="tab:red",
            label="fp16x2-aligned in place (bit-indexed kernel)")
    best = min(native.values())
    ax.axhline(best / 1.5, color="tab:green", ls=":", label=f"fastest native {best:.0f} ms / 1.5")
    ax.set_xlabel("--fuse d (block width in qubits)")
    ax.set_ylabel("end-to-end time (ms)")
    ax.set_xticks(ds)
    ax.set_ylim(0, None)
    ax.set_title("qsim, 30-qubit brickwork, depth 20, NVIDIA H200", fontsize=10)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(OUT, dpi=110)
    print("wrote", OUT)


if __name__ == "__main__":
    main()
