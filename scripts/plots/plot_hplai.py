#!/usr/bin/env python3
"""Plots docs/img/hplai_h200.png from docs/data/h200_apps/hplai65536.txt (hplai --n 65536 on an H200).

Usage: /usr/bin/python3 scripts/plots/plot_hplai.py  (needs Debian's python3-matplotlib)
Bars: time to solution per scheme, split into factorisation and FP64 refinement, with the HPL-MxP
speedup over the cuSOLVER FP64 baseline and the scaled residual.
"""
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    rows = []
    with open(os.path.join(ROOT, "docs", "data", "h200_apps", "hplai65536.txt")) as f:
        lines = [l.split() for l in f if l.strip()]
    head = next(l for l in lines if l and l[0] == "scheme")
    for cols in lines[lines.index(head) + 1:]:
        if len(cols) >= len(head) - 1 and cols[-1] in ("PASS", "FAIL") or (len(cols) > 12 and cols[12] in ("PASS", "FAIL")):
            rows.append(dict(zip(head, cols)))
    names = [r["scheme"] for r in rows]
    fac = [float(r["factor_ms"]) / 1e3 for r in rows]
    ref = [float(r["refine_ms"]) / 1e3 for r in rows]
    fig, ax = plt.subplots(figsize=(9, 4.8))
    ax.barh(names, fac, color="#1f77b4", label="LU factorisation (working precision)")
    ax.barh(names, ref, left=fac, color="#ff7f0e", label="FP64 GMRES refinement")
    ax.invert_yaxis()
    for y, r in enumerate(rows):
        total = float(r["time_ms"]) / 1e3
        ax.text(total, y, f" {float(r['speedup']):.2f}x  res {float(r['scaled_res']):.1e} {r['check']}",
                va="center", fontsize=8)
    ax.set_xlabel("time to solution, s (n = 65536, nb = 1024, NVIDIA H200)")
    ax.set_xlim(0, max(f + g for f, g in zip(fac, ref)) * 1.45)
    ax.set_title("hplai: HPL-MxP with emulated trailing updates vs cuSOLVER FP64 LU")
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    out = os.path.join(ROOT, "docs", "img", "hplai_h200.png")
    fig.savefig(out + ".tmp.png", dpi=110)
    os.replace(out + ".tmp.png", out)
    print(out)


if __name__ == "__main__":
    main()
