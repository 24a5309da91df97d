#!/usr/bin/env python3
"""Sums Nsight Compute's gpu__time_duration per kernel name over two CSV logs (`ncu --csv --log-file`)
and prints the names side by side, the largest difference in total GPU time first.

Usage: ncu_kernel_sums.py OLD.csv NEW.csv [ROWS]
Names are cut at 90 characters (template arguments make them long); launches counted per name."""
import csv
import sys
from collections import defaultdict

TO_MS = {"nsecond": 1e-6, "ns": 1e-6, "usecond": 1e-3, "us": 1e-3, "msecond": 1.0, "ms": 1.0}


def sums(path):
    total, count = defaultdict(float), defaultdict(int)
    with open(path, newline="") as f:
        lines = [line for line in f if line.startswith('"')]  # skip ==PROF== lines and the program's output
    for row in csv.DictReader(lines):
        if row.get("Metric Name") != "gpu__time_duration.sum":
            continue
        name = row["Kernel Name"][:90]
        total[name] += float(row["Metric Value"].replace(",", "")) * TO_MS.get(row.get("Metric Unit", "ns"), 1e-6)
        count[name] += 1
    return total, count


def main():
    old, old_n = sums(sys.argv[1])
    new, new_n = sums(sys.argv[2])
    rows = int(sys.argv[3]) if len(sys.argv) > 3 else 25
    names = sorted(set(old) | set(new), key=lambda k: -abs(new.get(k, 0) - old.get(k, 0)))
    print("total GPU ms: old %.2f (%d launches), new %.2f (%d launches)" %
          (sum(old.values()), sum(old_n.values()), sum(new.values()), sum(new_n.values())))
    print("%10s %6s %10s %6s %9s  %s" % ("old ms", "n", "new ms", "n", "diff ms", "kernel"))
    for k in names[:rows]:
        print("%10.2f %6d %10.2f %6d %+9.2f  %s" % (old.get(k, 0), old_n.get(k, 0), new.get(k, 0), new_n.get(k, 0),
                                                  new.get(k, 0) - old.get(k, 0), k))


if __name__ == "__main__":
    main()
