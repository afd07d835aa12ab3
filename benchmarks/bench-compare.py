#!/usr/bin/env python3
"""Compares the kernel rows of benchmark CSVs from two builds run in turn
on one machine (cudaconv-bench --kernels --csv FILE, the two builds
alternating): per row the median over the runs of each build, the ratio
new / old, and the rows slower than the limit.

    benchmarks/bench-compare.py --limit 1.03 old1.csv new1.csv old2.csv new2.csv ...

CSV files alternate old, new. Exits 1 if any kernel row of the new build
is slower than limit x the old one's."""
import argparse
import csv
import statistics
import sys

TIMED = ("tiled-halo", "cache-halo", "separable", "gaussian-2d",
         "fastest-2d-waiting")


def kernel_rows(path):
    rows = {}
    with open(path, newline="") as f:
        for r in csv.reader(f):
            if len(r) == 6 and r[0] == "kernel" and r[4] in TIMED:
                rows[(r[1], int(r[2]), int(r[3]), r[4])] = float(r[5])
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--limit", type=float, default=1.03)
    ap.add_argument("csv", nargs="+")
    a = ap.parse_args()
    if len(a.csv) % 2:
        sys.exit("give the CSVs in pairs: old, new, old, new, ...")
    old = [kernel_rows(p) for p in a.csv[0::2]]
    new = [kernel_rows(p) for p in a.csv[1::2]]
    keys = sorted(set.intersection(*(set(r) for r in old + new)))
    slower = 0
    ratios = []
    print("%-10s %4s %3s %-18s %10s %10s %7s" % ("size", "bits", "r",
                                                 "row", "old ms", "new ms",
                                                 "new/old"))
    for k in keys:
        o = statistics.median(r[k] for r in old)
        n = statistics.median(r[k] for r in new)
        if o <= 0 or n <= 0:
            continue
        ratio = n / o
        ratios.append(ratio)
        flag = " SLOWER" if ratio > a.limit else ""
        slower += ratio > a.limit
        print("%-10s %4d %3d %-18s %10.4f %10.4f %7.3f%s" % (k + (o, n, ratio,
                                                                 flag)))
    if ratios:
        print("%d rows: new/old median %.3f, min %.3f, max %.3f; %d slower "
              "than %.2fx" % (len(ratios), statistics.median(ratios),
                              min(ratios), max(ratios), slower, a.limit))
    return 1 if slower else 0


if __name__ == "__main__":
    sys.exit(main())
