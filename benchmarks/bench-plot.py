#!/usr/bin/env python3
"""Plots per-plane kernel time against radius from the benchmark's CSV.

  bench-plot.py RESULTS.csv OUT.png [WxH]

One line per strategy (8-bit, border clamp) and per peer from
benchmarks/bench-peers.py, at one plane size (3840x2160 unless given); log scale.
Needs matplotlib.
"""
import csv
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    path, out = sys.argv[1], sys.argv[2]
    size = sys.argv[3] if len(sys.argv) > 3 else "3840x2160"
    series = defaultdict(dict)
    with open(path) as f:
        for row in csv.reader(f):
            if len(row) != 6 or row[1] != size or row[2] != "8":
                continue
            what, _, _, radius, name, value = row
            if what not in ("kernel", "peer") or float(value) <= 0:
                continue
            label = name if what == "kernel" else f"{name} (peer)"
            series[label][int(radius)] = float(value)
    fig, ax = plt.subplots(figsize=(8, 5))
    # one colour per series: the default cycle has 10, the plot more
    colours = plt.get_cmap("tab20").colors
    for k, (label, points) in enumerate(sorted(series.items())):
        radii = sorted(points)
        style = "--" if "(peer)" in label or label == "fp32-floor" else "-"
        ax.plot(radii, [points[r] for r in radii], style, marker="o",
                label=label, color=colours[k % len(colours)])
    ax.set_yscale("log")
    ax.set_xlabel("radius (filter side 2r+1)")
    ax.set_ylabel("milliseconds per plane")
    ax.set_title(f"One 8-bit {size} plane, border clamp")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    return 0


if __name__ == "__main__":
    sys.exit(main())
