#!/usr/bin/env python3
"""Plots docs/img/kmeans_h200.png from the kmeans tables saved in docs/data/h200_apps/.

Usage: /usr/bin/python3 scripts/plots/plot_kmeans.py  (needs Debian's python3-matplotlib)
Left: time per Lloyd iteration at n = 700,000, d = 784, k = 1024 (Fashion-MNIST x 10).
Right: adjusted Rand index of each scheme's final assignment against the fp64 run, Fashion-MNIST
k = 10 and k = 256 (default near-tie re-check), and k = 256 without the re-check (an earlier run).
"""
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "docs", "data", "h200_apps")


def table(name):
    """Rows of a kmeans text table: {scheme: {column: value}}."""
    rows = {}
    with open(os.path.join(DATA, name)) as f:
        lines = [l.split() for l in f if l.strip()]
    head = lines[0]
    for cols in lines[1:]:
        if len(cols) < len(head) - 1:
            continue
        rows[cols[0]] = dict(zip(head, cols))
    return rows


def main():
    big = table("kmeans700k.txt")
    k10, k256 = table("kmeans_k10.txt"), table("kmeans_k256.txt")
    k256_raw = table("kmeans_k256_norecheck.txt")
    fig, (a, b) = plt.subplots(1, 2, figsize=(12, 4.2))
    names = list(big)
    ms = [float(big[s]["ms/iter"]) for s in names]
    colors = ["#777777" if s in ("fp32", "fp64") else "#1f77b4" for s in names]
    a.barh(names, ms, color=colors)
    a.invert_yaxis()
    a.set_xlabel("ms per Lloyd iteration (H200)")
    a.set_title("n = 700,000, d = 784, k = 1024 (20 iterations)")
    for y, (s, v) in enumerate(zip(names, ms)):
        a.text(v, y, f" {float(big['fp32']['ms/iter']) / v:.2f}x", va="center", fontsize=8)
    names2 = [s for s in k256 if s != "fp64"]
    x = range(len(names2))
    b.plot(x, [1 - float(k10[s]["ari"]) + 1e-7 for s in names2], "o-", label="k = 10")
    b.plot(x, [1 - float(k256[s]["ari"]) + 1e-7 for s in names2], "s-", label="k = 256")
    b.plot(x, [1 - float(k256_raw[s]["ari"]) + 1e-7 for s in names2], "x:", color="gray",
           label="k = 256, no near-tie re-check")
    b.axhline(1e-3, color="red", lw=0.8, ls="--", label="ARI = 0.999")
    b.set_yscale("log")
    b.set_xticks(list(x))
    b.set_xticklabels(names2, rotation=60, ha="right", fontsize=8)
    b.set_ylabel("1 - ARI vs fp64 (+1e-7)")
    b.set_title("Fashion-MNIST, 70,000 x 784: agreement with the fp64 run")
    b.legend(fontsize=8)
    fig.tight_layout()
    out = os.path.join(ROOT, "docs", "img", "kmeans_h200.png")
    fig.savefig(out + ".tmp.png", dpi=110)
    os.replace(out + ".tmp.png", out)
    print(out)


if __name__ == "__main__":
    sys.exit(main())
