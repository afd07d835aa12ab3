#!/usr/bin/env bash
# The whole benchmark in one run (meson benchmark 'all', or by hand on the
# GPU machine): the kernels, the element end to end with its floor and
# cudaupload ! cudadownload (I420, then P010_10LE, YUY2 and v210), CUDA
# memory in and out against the kernels, 1 to 64 pipelines at once in one
# process (system memory, then CUDA memory), one pipeline per GPU against
# the floor of as many GPUs, NVDEC into cudaconv, the CPU
# backend against gaussianblur, crop metas taken against refused, the live
# run, (where gstreamer1.0-opencv is installed) the CPU backend against
# OpenCV's cvsmooth, then the Python peers (CuPy, PyTorch, OpenCV) on the
# same planes.
# Tables go to stdout; every number also goes to $CUDACONV_BENCH_CSV
# (default: bench.csv in the current directory), which benchmarks/bench-plot.py
# turns into the plot of BENCHMARKS.md.
#   benchmarks/benchmark.sh BUILD_DIR
set -uo pipefail
build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
csv=${CUDACONV_BENCH_CSV:-$PWD/bench.csv}
# the GPU machine has no GStreamer but the bundle (../shared/device/README.md)
if ! command -v gst-inspect-1.0 >/dev/null && [ -f "$here/../.gst/env.sh" ]; then
  # shellcheck disable=SC1091
  source "$here/../.gst/env.sh"
fi
export GST_PLUGIN_PATH_1_0=${GST_PLUGIN_PATH_1_0:-$(cd "$build" && pwd)/plugin}
: >"$csv"
status=0
date -u +"run at %Y-%m-%dT%H:%M:%SZ"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || echo "no nvidia-smi"
"$build/benchmarks/cudaconv-bench" --csv "$csv" --frames "${CUDACONV_BENCH_FRAMES:-1000}" || status=1
# the formats of 10-bit decoders and webcams, end to end against their floor
for format in P010_10LE YUY2 v210; do
  "$build/benchmarks/cudaconv-bench" --element --format $format --frames "${CUDACONV_BENCH_FRAMES:-1000}" || status=1
done
# many pipelines in one process sharing the bus (a CUDA context each, then
# one for all), then the GPU (one context for all, then a context each)
"$build/benchmarks/cudaconv-bench" --csv "$csv" --separate-contexts --streams 1,4,16,64 --frames 3000 || status=1
"$build/benchmarks/cudaconv-bench" --csv "$csv" --streams 1,4,16,64 --frames 3000 || status=1
"$build/benchmarks/cudaconv-bench" --csv "$csv" --cuda-streams 1,4,16,64 --frames 20000 || status=1
"$build/benchmarks/cudaconv-bench" --csv "$csv" --separate-contexts --cuda-streams 4,16 --frames 20000 || status=1
# one 2160p pipeline per GPU on 1, 2 and 4 GPUs against the floor of as
# many measured around each row, then 16 1080p pipelines with device-id=-1
# against the floor of all of them; with one GPU only the rows of one run,
# and the mode says why
"$build/benchmarks/cudaconv-bench" --csv "$csv" --multi-gpu --frames 2000 || status=1
# NVDEC into cudaconv: the small streams of benchmarks/media joined into
# 2400 frames of 1920x1080 and 1200 of 3840x2160
media=$(mktemp -d)
for i in $(seq 40); do cat "$here/media/smpte-1920x1080.h264"; done >"$media/smpte-1920x1080-2400.h264"
for i in $(seq 20); do cat "$here/media/smpte-3840x2160.h264"; done >"$media/smpte-3840x2160-1200.h264"
"$build/benchmarks/cudaconv-bench" --csv "$csv" --decode "$media/smpte-1920x1080-2400.h264,$media/smpte-3840x2160-1200.h264" || status=1
rm -rf "$media"
"$build/benchmarks/cudaconv-bench" --cpu-peers || status=1
PYTHONUNBUFFERED=1 python3 "$here/bench-peers.py" --csv "$csv" || status=1
python3 "$here/bench-report.py" "$csv" || status=1
exit $status
