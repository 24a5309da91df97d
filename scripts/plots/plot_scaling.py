#!/usr/bin/env python3
"""Plots docs/img/scaling_qsim_h200x2.png from qsim's JSON output in docs/data/h200x2_scaling/session20/
(scripts/device/scaling.sh qsim; docs/scaling.md, "qsim on two GPUs").

Usage: /usr/bin/python3 scripts/plots/plot_scaling.py [DATA-DIR [PNG]]  (needs Debian's python3-matplotlib;
defaults: the two paths above). Reads qsim32_gpu1.txt, qsim32_gpu2.txt and qsim33_gpu2.txt.
Left: 32-qubit brickwork, seconds per scheme on one H200 and on two (rank 0's time, swaps included),
with the speedup above each pair. Right: 33 qubits on two H200s (too large for one in complex128),
seconds per scheme, with 1 - F against the complex128 run above each bar.
"""
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "docs", "data", "h200x2_scaling", "session20")
OUT = os.path.join(ROOT, "docs", "img", "scaling_qsim_h200x2.png")


def rows(path):
    """scheme -> (seconds, 1 - F) of one qsim --json run."""
    with open(path) as f:
        doc = json.load(f)
    return {r["scheme"]: (r["time_ms"] / 1e3, r["infidelity"]) for r in doc["results"]}


def main():
    data = sys.argv[1] if len(sys.argv) > 1 else DATA
    out = sys.argv[2] if len(sys.argv) > 2 else OUT
    one, two, big = (rows(os.path.join(data, f)) for f in ("qsim32_gpu1.txt", "qsim32_gpu2.txt", "qsim33_gpu2.txt"))
    schemes = [s for s in one if s in two]
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    x = range(len(schemes))
    width = 0.38
    left.bar([i - width / 2 for i in x], [one[s][0] for s in schemes], width, label="1 GPU")
    left.bar([i + width / 2 for i in x], [two[s][0] for s in schemes], width, label="2 GPUs (NCCL swaps)")
    for i, s in enumerate(schemes):
        left.text(i, max(one[s][0], two[s][0]) * 1.02, f"{one[s][0] / two[s][0]:.2f}x", ha="center")
    left.set_ylim(0, max(one[s][0] for s in schemes) * 1.15)
    left.set_xticks(list(x), schemes)
    left.set_ylabel("seconds (rank 0)")
    left.set_title("32-qubit brickwork, depth 20, --fuse 6")
    left.legend()
    names = list(big)
    right.bar(range(len(names)), [big[s][0] for s in names], 0.6, color="tab:orange")
    for i, s in enumerate(names):
        label = "reference" if s == "fp64" else f"1-F {big[s][1]:.1e}"
        right.text(i, big[s][0] * 1.02, label, ha="center")
    right.set_ylim(0, max(v[0] for v in big.values()) * 1.15)
    right.set_xticks(range(len(names)), names)
    right.set_ylabel("seconds (rank 0)")
    right.set_title("33 qubits on 2 GPUs (complex128: 128 GiB)")
    fig.suptitle("qsim over MPI ranks, one NVIDIA H200 each (NVLink), 2026-11-24")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print(out)


if __name__ == "__main__":
    main()
