#!/usr/bin/env bash
# The GPU machine's whole check: gst-inspect and the whole test suite (no
# GPU test may skip); compute-sanitizer memcheck and racecheck over the
# kernel tests and the frame graphs' (CUDACONV_TEST_QUICK=1: every case but
# the 1920x1080 and larger planes, which take the sanitizers minutes),
# memcheck over the element tests on the CUDA backend; then the whole benchmark
# (benchmarks/benchmark.sh) unless CUDACONV_GPU_RUN_BENCH=0. The parts can be
# run alone, since all of it takes longer than one device call may;
# sanitizers is memcheck, racecheck and element-memcheck:
#   tools/gpu-run.sh [suite] [sanitizers | memcheck racecheck element-memcheck] [bench]
# That machine has no GStreamer: build here, make the bundle and carry
# both:
#   meson compile -C build && tools/gpu-bundle.sh .gst
#   device run, carry [".gst", "build"]: tools/gpu-run.sh suite
# Logs, the benchmark's CSV and its plot go to $OUT (the device tool's) or
# out/gpu.
# CUDACONV_BUILD_DIR and CUDACONV_GST_BUNDLE name another build and bundle
# (default build and .gst), for example those of tools/debian-gpu-build.sh.
set -uo pipefail
out=${OUT:-out/gpu}
build=${CUDACONV_BUILD_DIR:-build}
mkdir -p "$out"
# shellcheck disable=SC1091
source "${CUDACONV_GST_BUNDLE:-.gst}/env.sh"
# shellcheck source=tools/gpu-common.sh
source "$(dirname "$0")/gpu-common.sh"
export GST_PLUGIN_PATH_1_0=$PWD/$build/plugin
status=0
parts=" ${*:-suite sanitizers bench} "
parts=${parts/ sanitizers / memcheck racecheck element-memcheck }
if [ "${CUDACONV_GPU_RUN_BENCH:-1}" = 0 ]; then parts=${parts/ bench / }; fi
wants() { [[ $parts == *" $1 "* ]]; }

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/gpu.txt"
gpus=$(nvidia-smi -L | grep -c '^GPU')
gst-inspect-1.0 cudaconv >"$out/inspect.txt" 2>&1 || { echo "gst-inspect-1.0 cudaconv failed"; status=1; }

if wants suite; then
python3 "${CUDACONV_GST_BUNDLE:-.gst}/run-meson-tests.py" "$build" 2>&1 | tee "$out/tests.log"
[ "${PIPESTATUS[0]}" = 0 ] || status=1
if grep "^SKIP" "$out/tests.log" | grep -Ev "$(gpu_may_skip "$gpus")" | grep -q .; then
  echo "a test was skipped on the GPU machine"; status=1
fi
fi

for tool in memcheck racecheck; do
  wants $tool || continue
  # each topic's kernel program (test-kernels-cuda-<topic>), then the
  # frame graphs'
  ran=0
  for path in "$build"/tests/test-kernels-cuda-* "$build/tests/test-frame-graph"; do
    program=${path##*/test-}
    if [[ $program == kernels-cuda-* ]]; then
      [ -f "$path" ] || continue  # not the .p folders of object files
      ran=$((ran + 1))
    fi
    gpu_sanitize_kernels $tool "$path" "$out/$tool-$program.log" || status=1
  done
  [ $ran -ge 1 ] || { echo "no test-kernels-cuda-<topic> in $build/tests"; status=1; }
done

# the element on the CUDA backend, each topic's program
# (gpu_sanitize_element) and the two-GPU one, which exits 77 where there is
# one GPU
if wants element-memcheck; then
ran=0
for program in "$build"/tests/test-element-cuda-* "$build/tests/test-element-multi-gpu"; do
  [ -f "$program" ] || continue  # not the .p folders of object files
  name=${program##*/test-element-}
  ran=$((ran + 1))
  gpu_sanitize_element "$build" "$program" "$out/memcheck-element-$name.log"
  rc=$?
  if [ $rc = 77 ] && [ "$name" = multi-gpu ] && [ "$gpus" -lt 2 ]; then
    continue
  fi
  [ $rc = 0 ] || status=1
done
[ $ran -ge 2 ] || { echo "no test-element-cuda-<topic> in $build/tests"; status=1; }
fi

if wants bench; then
  CUDACONV_BENCH_CSV=$out/bench.csv benchmarks/benchmark.sh "$build" 2>&1 | tee "$out/bench.txt"
  python3 benchmarks/bench-plot.py "$out/bench.csv" "$out/kernels-3840x2160.png" \
    >/dev/null 2>&1 || echo "no plot here (matplotlib missing?)"
fi
exit $status
