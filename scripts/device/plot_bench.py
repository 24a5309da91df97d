#!/usr/bin/env python3
"""Plots of tcemu-bench CSV output (docs/history/2026-11-22-multipass-acceptance-issue3.md): rate vs size, and error vs speedup.

Usage: scripts/device/plot_bench.py docs/data/bench_h200.csv docs/img
"""
import csv
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def load(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def num(r, key):
    try:
        return float(r[key])
    except (ValueError, KeyError):
        return math.nan


def square_rows(rows, target):
    out = {}
    for r in rows:
        if r["dist"] != "uniform(-1,1)" or r["target"] != target or r["kind"] not in ("tcemu", "cublas"):
            continue
        if not r["shape"].isdigit() or r["m"] != r["n"] or r["n"] != r["k"]:
            continue
        out.setdefault(r["method"], {})[int(r["m"])] = num(r, "tflops")
    return out


def main():
    csv_path, out_dir = sys.argv[1], sys.argv[2]
    os.makedirs(out_dir, exist_ok=True)
    rows = load(csv_path)
    device = rows[0]["device"] if rows else "?"

    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    for ax, target, methods in (
        (axes[0], "fp32", ["cublas-sgemm", "cublas-1xtf32", "fp16x2", "tf32x2", "bf16x3", "bf16x9"]),
        (axes[1], "fp64", ["cublas-dgemm", "cublas-fp64-emu", "int8-ozaki"]),
    ):
        data = square_rows(rows, target)
        for m in methods:
            if m in data:
                xs = sorted(data[m])
                ax.plot(xs, [data[m][x] for x in xs], marker="o", label=m)
        ax.set_xscale("log", base=2)
        ax.set_xlabel("m = n = k")
        ax.set_ylabel("effective TFLOP/s (2mnk / time)")
        ax.set_title(f"{target.upper()} data, uniform(-1,1)")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(f"tcemu-bench on {device} (split and combine included)")
    fig.tight_layout()
    fig.savefig(os.path.join(out_dir, "bench_square.png"), dpi=110)

    # Error vs speedup at 8192^3: default chunks and the accumulation-chunk sweep.
    fig, ax = plt.subplots(figsize=(7, 5))
    sg = [r for r in rows if r["shape"] == "8192" and r["method"] == "cublas-sgemm" and r["dist"] == "uniform(-1,1)"]
    sg_err = num(sg[0], "rel_frob_err") if sg else math.nan
    colors = {"fp16x2": "C0", "tf32x2": "C1", "bf16x3": "C2", "bf16x9": "C3", "fp16x2-markidis": "C4"}
    for r in rows:
        if r["shape"] != "8192" or r["dist"] != "uniform(-1,1)" or r["method"] not in colors:
            continue
        kind = r["kind"]
        label = "default" if kind == "tcemu" else kind.replace("tcemu-chunk", "chunk ")
        x, y = num(r, "speedup_vs_native"), num(r, "rel_frob_err")
        ax.scatter(x, y, color=colors[r["method"]], marker="o" if kind == "tcemu" else "x")
        ax.annotate(f"{r['method']} {label}", (x, y), fontsize=6)
    if not math.isnan(sg_err):
        ax.axhline(2 * sg_err, color="k", ls="--", lw=0.8, label="2x SGEMM error")
        ax.scatter([1.0], [sg_err], color="k", marker="s", label="cuBLAS SGEMM")
    ax.axvline(2.0, color="grey", ls=":", lw=0.8, label="2.0x SGEMM")
    ax.axvline(2.5, color="grey", ls="-.", lw=0.8, label="2.5x SGEMM")
    ax.set_yscale("log")
    ax.set_xlabel("speedup over cuBLAS SGEMM (8192^3, split included)")
    ax.set_ylabel("relative Frobenius error vs FP64")
    ax.set_title("FP32 emulation: error vs speed (chunk = k per FP32 TC accumulator)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(out_dir, "bench_error_speed_8192.png"), dpi=110)


if __name__ == "__main__":
    main()
