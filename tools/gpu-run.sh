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
# valgrind, PyGObject, OpenCV's facedetect and this machine's meson are not
# on that machine: the memcheck runs of the CPU element tests
# (element-cpu-memcheck-<topic>), the Python example, the face detector's
# test and the install test are the tests that may skip there, and the
# two-GPU tests where there is one GPU
may_skip="element-cpu-memcheck-|embed-python|privacy-facedetect|install"
if [ "$gpus" -lt 2 ]; then
  may_skip="$may_skip|element-multi-gpu"
fi
if grep "^SKIP" "$out/tests.log" | grep -Ev "$may_skip" | grep -q .; then
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
    log=$out/$tool-$program.log
    CUDACONV_TEST_QUICK=1 compute-sanitizer --tool $tool --error-exitcode 99 \
      "$path" >"$log" 2>&1
    rc=$?
    echo "compute-sanitizer $tool $program: exit $rc; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -1); $(grep -E 'passed, .* failed' "$log")"
    [ $rc = 0 ] || status=1
  done
  [ $ran -ge 1 ] || { echo "no test-kernels-cuda-<topic> in $build/tests"; status=1; }
done

# the element on the CUDA backend, each topic's program
# (test-element-cuda-<topic>: malformed buffers and frames in CUDA memory
# included; CUDACONV_TEST_QUICK=1: six formats of those, and packed 4:2:2
# at 97x35 alone) and the two-GPU one, which exits 77 where there is one GPU
if wants element-memcheck; then
ran=0
for program in "$build"/tests/test-element-cuda-* "$build/tests/test-element-multi-gpu"; do
  [ -f "$program" ] || continue  # not the .p folders of object files
  name=${program##*/test-element-}
  ran=$((ran + 1))
  CK_FORK=no GST_REGISTRY_1_0=$PWD/$build/tests/registry.bin \
    CUDACONV_TEST_QUICK=1 CUDACONV_TEST_MEDIA=$PWD/tests/media \
    compute-sanitizer --tool memcheck --error-exitcode 99 \
    "$program" >"$out/memcheck-element-$name.log" 2>&1
  rc=$?
  echo "compute-sanitizer memcheck, element $name: exit $rc; $(grep -E 'ERROR SUMMARY' "$out/memcheck-element-$name.log" | tail -1); $(grep -E 'Checks:|^SKIP' "$out/memcheck-element-$name.log")"
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
