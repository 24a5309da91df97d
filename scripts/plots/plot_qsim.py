#!/usr/bin/env python3
"""Plots docs/img/qsim30_tradeoff_h200.png from the qsim tables of session 4
(docs/data/h200_apps/session4/q30_d{5,6,7,8}_cgemm.txt; docs/qsim.md, "Session 4").

Usage: /usr/bin/python3 scripts/plots/plot_qsim.py  (needs Debian's python3-matplotlib)
Left: end-to-end time of the 30-qubit brickwork circuit (depth 20) against the fusion width d, for
native complex64 (cuBLAS CGEMM), fp16x2 and fp16x2-aligned (fused kernels).
Right: speed-up over native complex64 at the same d against 1 - fidelity; the shaded corner is
issue 6's acceptance read per d (>= 1.5x and 1 - F <= 1e-6); the title names the fastest native d.
"""
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "docs", "data", "h200_apps", "session4")
OUT = os.path.join(ROOT, "docs", "img", "qsim30_tradeoff_h200.png")
FUSES = (5, 6, 7, 8)
SCHEMES = (("fp32", "native complex64 (cuBLAS CGEMM)", "k", "o"), ("fp16x2", "fp16x2 (fused)", "tab:blue", "s"),
           ("fp16x2-aligned", "fp16x2-aligned (fused)", "tab:red", "D"))


def rows(name):
    """{scheme: (time_ms, vs_nat, 1 - fidelity)} of one saved qsim table."""
    out = {}
    for line in open(os.path.join(DATA, name)):
        cols = line.split()
        if len(cols) < 10 or cols[0] in ("scheme", "circuit", "fusion"):
            continue
        for i, c in enumerate(cols):  # the state column follows the (possibly multi-word) "used"
            if c in ("complex64", "complex128"):
                out[cols[0]] = (float(cols[i + 1]), float(cols[i + 2]), abs(float(cols[i + 6])))
                break
    return out


def main():
    data = {d: rows(f"q30_d{d}_cgemm.txt") for d in FUSES}
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 5))
    for scheme, label, color, marker in SCHEMES:
        left.plot(FUSES, [data[d][scheme][0] for d in FUSES], marker=marker, color=color, label=label)
    left.set_xlabel("--fuse d (block width in qubits)")
    left.set_ylabel("end-to-end time (ms)")
    left.set_xticks(FUSES)
    left.legend(fontsize=8)
    left.set_title("30-qubit brickwork, depth 20, NVIDIA H200")
    best_native = min(data[d]["fp32"][0] for d in FUSES)
    right.fill_between([1.5, 2.5], 1e-10, 1e-6, color="tab:green", alpha=0.15, label="acceptance per d (>= 1.5x, 1-F <= 1e-6)")
    for scheme, label, color, marker in SCHEMES[1:]:
        for d in FUSES:
            t, speed, infid = data[d][scheme]
            right.scatter(speed, max(infid, 1e-10), marker=marker, color=color, s=50,
                          label=label if d == FUSES[0] else None)
            right.annotate(f"d={d}", (speed, max(infid, 1e-10)), textcoords="offset points", xytext=(6, 3), fontsize=8)
    fastest = min(FUSES, key=lambda d: data[d]["fp32"][0])
    right.set_title(f"fastest native complex64: d={fastest}, {best_native:.0f} ms", fontsize=10)
    right.set_yscale("log")
    right.set_xlim(0.2, 2.5)
    right.set_ylim(1e-10, 1e-3)
    right.set_xlabel("speed-up over native complex64 at the same d")
    right.set_ylabel("1 - fidelity vs complex128")
    right.legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    fig.savefig(OUT, dpi=110)
    print("wrote", OUT)


if __name__ == "__main__":
    main()
