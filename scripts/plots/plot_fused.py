#!/usr/bin/env python3
"""Plots docs/img/fused_vs_multipass_h200.png from docs/data/bench_h200_fused.csv (tcemu-bench --kernels
fused,multipass; docs/benchmarks.md, "Fused kernel vs multi-pass").

Usage: /usr/bin/python3 scripts/plots/plot_fused.py [CSV [PNG]]  (needs Debian's python3-matplotlib;
defaults: the two paths above). Schemes missing from the CSV are left out.
Top: speedup over cuBLAS SGEMM per scheme and implementation at the three shapes (split included).
Bottom: relative Frobenius error against FP64, with cuBLAS SGEMM's error and the 2x SGEMM bound.
"""
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CSV = os.path.join(ROOT, "docs", "data", "bench_h200_fused.csv")
OUT = os.path.join(ROOT, "docs", "img", "fused_vs_multipass_h200.png")
SCHEMES = ["fp16x2", "fp16x2-legemm", "fp16x2-markidis", "fp16x2-egemm", "fp16x2-aligned", "tf32x2",
           "tf32x2-aligned", "bf16x3", "bf16x9"]
SHAPES = ["8192", "knn", "kmeans"]


def main():
    csv_path = sys.argv[1] if len(sys.argv) > 1 else CSV
    out = sys.argv[2] if len(sys.argv) > 2 else OUT
    rows = list(csv.DictReader(open(csv_path)))
    methods = {r["method"] for r in rows}
    schemes = [s for s in SCHEMES if f"{s}/fused" in methods and f"{s}/multipass" in methods]
    fig, axes = plt.subplots(2, len(SHAPES), figsize=(15, 8), sharey="row")
    for col, shape in enumerate(SHAPES):
        sub = [r for r in rows if r["shape"] == shape]
        sgemm = next(r for r in sub if r["method"] == "cublas-sgemm")
        x = range(len(schemes))
        for off, impl, color in ((-0.2, "multipass", "tab:blue"), (0.2, "fused", "tab:orange")):
            sp, err = [], []
            for s in schemes:
                r = next(r for r in sub if r["method"] == f"{s}/{impl}")
                sp.append(float(r["speedup_vs_native"]))
                err.append(float(r["rel_frob_err"]))
            axes[0][col].bar([i + off for i in x], sp, 0.4, label=impl, color=color)
            axes[1][col].bar([i + off for i in x], err, 0.4, label=impl, color=color)
        e = float(sgemm["rel_frob_err"])
        axes[0][col].axhline(1.0, color="k", lw=0.8)
        axes[1][col].axhline(e, color="k", lw=0.8, label="cuBLAS SGEMM")
        axes[1][col].axhline(2 * e, color="r", lw=0.8, ls="--", label="2x SGEMM")
        axes[0][col].set_title(f"{shape} ({sgemm['m']} x {sgemm['n']} x {sgemm['k']})")
        for ax in (axes[0][col], axes[1][col]):
            ax.set_xticks(list(x))
            ax.set_xticklabels(schemes, rotation=40, ha="right", fontsize=8)
        axes[1][col].set_yscale("log")
    axes[0][0].set_ylabel("speedup over cuBLAS SGEMM")
    axes[1][0].set_ylabel("rel. Frobenius error vs FP64")
    axes[0][0].legend()
    axes[1][0].legend(fontsize=8)
    fig.suptitle("tcemu on NVIDIA H200: fused wgmma kernel (sm_90a) vs multi-pass (cuBLAS products), uniform(-1,1)")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print("wrote", out)


if __name__ == "__main__":
    main()
