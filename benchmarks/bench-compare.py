#!/usr/bin/env python3
"""Compares benchmark CSVs from two builds run in turn on one machine: per
row the median over the runs of each build, the ratio of new to old, and
the rows slower than the limit.

    benchmarks/bench-compare.py --limit 1.03 old1.csv new1.csv old2.csv new2.csv ...
    benchmarks/bench-compare.py --limit 1.03 kernels-old-1.csv kernels-new-1.csv I420-old-1.csv ...

CSVs named TAG-old-N.csv and TAG-new-N.csv (as tools/gpu-ab.sh writes
them) are sorted by their names, any others taken as alternating old,
new.
Rows compared:
- kernel rows (cudaconv-bench --kernels): milliseconds per plane, lower is
  better; the ratio is new / old;
- element rows (--element): the element's frame rate against the transfer
  floor measured just before each run ("... / floor"), and cuda-memory rows
  (--cuda-memory) and the two pipelines of each regions row (--regions,
  "a" and "b"): frames per second; higher is better, the ratio is old /
  new, so that above 1 is slower here too.
The rows of one TAG are kept apart from other tags' (the same element row
of another format or size).

Exits 1 if any row of the new build is slower than limit x the old one's."""
import argparse
import csv
import os
import re
import statistics
import sys

TIMED = ("tiled-halo", "cache-halo", "separable", "gaussian-2d",
         "fastest-2d-waiting")
RATES = ("frames_per_s",)


def tag(path):
    m = re.match(r"(.*)-(old|new)-\d+\.csv$", os.path.basename(path))
    return m.group(1) if m else ""


def rows(path):
    """{key: (value, lower_is_better)}"""
    found = {}
    t = tag(path)
    with open(path, newline="") as f:
        for r in csv.reader(f):
            if len(r) != 6:
                continue
            value = float(r[5])
            name = r[4]
            key = (t, r[0], r[1], int(r[2]), int(r[3]), name)
            if r[0] == "kernel" and name in TIMED:
                found[key] = (value, True)
            elif r[0] == "element" and name.endswith(" / floor"):
                found[key] = (value, False)
            elif r[0] == "cuda-memory" and name in RATES:
                found[key] = (value, False)
            elif r[0].startswith("regions-") and name in ("a", "b"):
                found[key] = (value, False)
    return found


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--limit", type=float, default=1.03)
    ap.add_argument("csv", nargs="+")
    a = ap.parse_args()
    named = [re.search(r"-(old|new)-\d+\.csv$", p) for p in a.csv]
    if all(named):
        old = [rows(p) for p, m in zip(a.csv, named) if m.group(1) == "old"]
        new = [rows(p) for p, m in zip(a.csv, named) if m.group(1) == "new"]
    elif len(a.csv) % 2:
        sys.exit("give the CSVs in pairs: old, new, old, new, ...")
    else:
        old = [rows(p) for p in a.csv[0::2]]
        new = [rows(p) for p in a.csv[1::2]]
    everywhere = set().union(*old) & set().union(*new)
    slower = 0
    ratios = []
    print("%-12s %-11s %-10s %4s %3s %-36s %10s %10s %7s" % (
        "tag", "table", "size", "bits", "r", "row", "old", "new", "slower"))
    for k in sorted(everywhere):
        o = statistics.median(r[k][0] for r in old if k in r)
        n = statistics.median(r[k][0] for r in new if k in r)
        lower_is_better = next(r[k][1] for r in old if k in r)
        if o <= 0 or n <= 0:
            continue
        ratio = n / o if lower_is_better else o / n
        ratios.append(ratio)
        flag = " SLOWER" if ratio > a.limit else ""
        slower += ratio > a.limit
        print("%-12s %-11s %-10s %4d %3d %-36s %10.4f %10.4f %7.3f%s" % (
            k + (o, n, ratio, flag)))
    if ratios:
        print("%d rows: slower-ratio median %.3f, min %.3f, max %.3f; %d "
              "slower than %.2fx" % (len(ratios), statistics.median(ratios),
                                     min(ratios), max(ratios), slower,
                                     a.limit))
    else:
        print("no rows in common")
        return 1
    return 1 if slower else 0


if __name__ == "__main__":
    sys.exit(main())
