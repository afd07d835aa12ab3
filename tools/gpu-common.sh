# shellcheck shell=bash
# cudaconv: what tools/gpu-run.sh and tools/gpu-check.sh share on the GPU
# machine: which tests may skip there, and how each compute-sanitizer run
# is made and summed up. Sourced; defines functions only.

# The tests that may skip on that machine, a regex: the memcheck runs of
# the CPU element tests (element-cpu-memcheck-<topic>: no valgrind), the
# Python example (no PyGObject), the face detector's test (no OpenCV
# plugin) and the install test (no meson there), and the two-GPU tests
# where there is one GPU.
#   gpu_may_skip GPUS
gpu_may_skip() {
  local skip="element-cpu-memcheck-|embed-python|privacy-facedetect|install"
  [ "$1" -lt 2 ] && skip="$skip|element-multi-gpu"
  echo "$skip"
}

# compute-sanitizer TOOL over a kernel program (test-kernels-cuda-<topic>
# or test-frame-graph) in quick mode, its output in LOG; prints one
# summary line and returns the run's exit status.
#   gpu_sanitize_kernels TOOL PROGRAM LOG
gpu_sanitize_kernels() {
  local rc
  CUDACONV_TEST_QUICK=1 ${CUDACONV_SANITIZER_TIMEOUT:+timeout "$CUDACONV_SANITIZER_TIMEOUT"} \
    compute-sanitizer --tool "$1" --error-exitcode 99 "$2" >"$3" 2>&1
  rc=$?
  echo "compute-sanitizer $1 ${2##*/test-}: exit $rc; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$3" | tail -1); $(grep -E 'passed, .* failed' "$3" | tail -1)"
  return $rc
}

# memcheck over an element program of BUILD (test-element-cuda-<topic>:
# malformed buffers and frames in CUDA memory included; quick mode: six
# formats of those, and packed 4:2:2 at 97x35 alone), its output in LOG;
# prints one summary line and returns the run's exit status.
#   gpu_sanitize_element BUILD PROGRAM LOG
gpu_sanitize_element() {
  local rc
  CK_FORK=no GST_REGISTRY_1_0=$PWD/$1/tests/registry.bin \
    CUDACONV_TEST_QUICK=1 CUDACONV_TEST_MEDIA=$PWD/tests/media \
    ${CUDACONV_SANITIZER_TIMEOUT:+timeout "$CUDACONV_SANITIZER_TIMEOUT"} \
    compute-sanitizer --tool memcheck --error-exitcode 99 "$2" >"$3" 2>&1
  rc=$?
  echo "compute-sanitizer memcheck, element ${2##*/test-element-}: exit $rc; $(grep -E 'ERROR SUMMARY' "$3" | tail -1); $(grep -E 'Checks:|^SKIP' "$3" | tail -1)"
  return $rc
}
