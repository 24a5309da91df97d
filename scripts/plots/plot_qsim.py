#!/usr/bin/env python3
"""Plots docs/img/qsim30_tradeoff_h200.png: speed against infidelity of every FP32-target configuration
on the 30-qubit brickwork circuit (depth 20, --fuse 8 and 7), from the qsim tables saved in
docs/data/h200_apps/session2/ (docs/qsim.md, "After the real embedding and the fused kernel").

Usage: /usr/bin/python3 scripts/plots/plot_qsim.py  (needs Debian's python3-matplotlib)
x: speed-up over native complex64 of the same run; y: 1 - fidelity against complex128 (log scale).
The shaded corner is issue 6's acceptance (>= 1.5x and 1 - F <= 1e-6).
"""
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "docs", "data", "h200_apps", "session2")
OUT = os.path.join(ROOT, "docs", "img", "qsim30_tradeoff_h200.png")
RUNS = [("qsim30_d8_multipass.txt", "multi-pass, --fuse 8", "o"),
        ("qsim30_d8_fused.txt", "fused kernel, --fuse 8", "s"),
        ("qsim30_d8_ozaki.txt", "--fuse 8", "^"),
        ("qsim30_d7_ozaki.txt", "--fuse 7", "v")]


def rows(name):
    """{scheme: (vs_nat, 1 - fidelity)} of one saved qsim table."""
    out = {}
    for line in open(os.path.join(DATA, name)):
        cols = line.split()
        if len(cols) < 10 or cols[0] in ("scheme", "circuit", "fusion"):
            continue
        # scheme used... state time_ms vs_nat gemm% perms fallb 1-fidelity ...: find the state column
        for i, c in enumerate(cols):
            if c in ("complex64", "complex128"):
                out[cols[0]] = (float(cols[i + 2]), abs(float(cols[i + 6])))
                break
    return out


def main():
    fig, ax = plt.subplots(figsize=(8, 5.5))
    ax.fill_between([1.5, 3.0], 1e-10, 1e-6, color="tab:green", alpha=0.15, label="acceptance (>= 1.5x, 1-F <= 1e-6)")
    for name, label, marker in RUNS:
        for scheme, (speed, infid) in rows(name).items():
            if scheme in ("fp64",):
                continue
            if scheme == "fp32" and "multipass" not in name:
                continue
            ax.scatter(speed, max(infid, 1e-10), marker=marker, s=60)
            ax.annotate(f"{scheme} ({label})" if scheme != "fp32" else "native complex64",
                        (speed, max(infid, 1e-10)), textcoords="offset points", xytext=(6, 4), fontsize=8)
    ax.set_xscale("linear")
    ax.set_yscale("log")
    ax.set_xlim(0.3, 2.0)
    ax.set_ylim(1e-10, 1e-3)
    ax.set_xlabel("speed-up over native complex64 (same run)")
    ax.set_ylabel("1 - fidelity vs complex128")
    ax.set_title("qsim, 30-qubit brickwork depth 20, NVIDIA H200 (FP32 target)")
    ax.legend(loc="lower left", fontsize=8)
    fig.tight_layout()
    fig.savefig(OUT, dpi=110)
    print("wrote", OUT)


if __name__ == "__main__":
    main()
