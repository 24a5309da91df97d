#!/usr/bin/env python3
"""Digest of an Nsight Compute raw CSV (`ncu --page raw --csv`): per profiled kernel, its time, issue
and pipe utilisation, occupancy, instruction count and the stall reasons above 0.2 per issue.
Usage: ncu_digest.py FILE.csv [...]"""
import csv
import sys

KEYS = [
    "gpu__time_duration.sum",
    "smsp__issue_active.avg.pct_of_peak_sustained_active",
    "sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_elapsed",
    "sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active",
    "sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active",
    "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
    "launch__registers_per_thread",
    "smsp__inst_executed.sum",
]
STALL = ("smsp__average_warps_issue_stalled_", "_per_issue_active.ratio")

for path in sys.argv[1:]:
    rows = [r for r in csv.reader(l for l in open(path) if l.startswith('"'))]
    if not rows:
        print(f"{path}: no rows")
        continue
    head = rows[0]
    name = head.index("Kernel Name")
    print(path)
    for r in rows[2:]:  # row 1 holds the units
        print("  " + r[name].split("(")[0].replace("void ", "").replace("(anonymous namespace)::", "")[-80:])
        for k in KEYS:
            if k in head:
                print(f"    {k} = {r[head.index(k)]}")
        stalls = []
        for i, h in enumerate(head):
            if h.startswith(STALL[0]) and h.endswith(STALL[1]):
                try:
                    v = float(r[i].replace(",", ""))
                except ValueError:
                    continue
                if v > 0.2:
                    stalls.append(f"{h[len(STALL[0]):-len(STALL[1])]} {v:.2f}")
        print("    stalls per issue: " + ", ".join(stalls))
