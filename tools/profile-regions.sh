#!/usr/bin/env bash
# The GPU time of each kernel of a frame filtered inside four boxes, on the
# GPU machine: Nsight Compute (ncu) over gst-launch-1.0, 1920x1080 I420
# from videotestsrc into cudaconv's pinned pool (writable: filtered in
# place, the mapped path that gathers the boxes' windows from host memory),
# gaussian r31 in the four boxes of cudaconv-bench --regions; kernels
# 151 to 166 (past the first frames), each run alone as ncu runs them.
#   tools/profile-regions.sh [BUILD]
# GStreamer comes from .gst (tools/gpu-bundle.sh); the CSV and the table
# go to $OUT or out/gpu.
set -uo pipefail
build=${1:-build}
out=${OUT:-out/gpu}
mkdir -p "$out"
# shellcheck disable=SC1091
source "${CUDACONV_GST_BUNDLE:-.gst}/env.sh"
export GST_PLUGIN_PATH_1_0=$PWD/$build/plugin
boxes="100,100,288,180;1532,100,288,180;100,800,288,180;1532,800,288,180"
ncu --launch-skip 150 --launch-count 16 --metrics gpu__time_duration.sum \
  --csv --page raw gst-launch-1.0 -q videotestsrc num-buffers=60 \
  ! video/x-raw,format=I420,width=1920,height=1080 \
  ! cudaconv backend=cuda kernel=gaussian radius=31 region=inside \
  region-boxes="$boxes" ! fakesink >"$out/regions-ncu.csv" 2>"$out/regions-ncu.err" \
  || { tail -20 "$out/regions-ncu.err"; exit 1; }
# kernel, grid, time: one line each
python3 - "$out/regions-ncu.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
head = next(i for i, r in enumerate(rows) if 'Kernel Name' in r)
name = rows[head].index('Kernel Name')
time = rows[head].index('gpu__time_duration.sum')
grid = rows[head].index('Grid Size')
for r in rows[head + 2:]:
    print(f"{r[time]:>10} {rows[head + 1][time]}  grid {r[grid]:<12} {r[name].split('(')[0]}")
PY
