#!/usr/bin/env bash
# The GPU machine's whole check in one device call: every meson test of the
# build and every compute-sanitizer run of tools/gpu-run.sh (memcheck and
# racecheck over each kernel topic and the frame graphs, memcheck over each
# element topic on the CUDA backend, CUDACONV_TEST_QUICK=1) as a job of its
# own, JOBS at a time, the longest first, each cut at LIMIT seconds: most
# of it fits one device call (README.md says how much did), where
# tools/gpu-run.sh's parts one after another take several. The memcheck
# run of the element formats, the longest, is cut into one run per test
# (GST_CHECKS). On a machine of several GPUs the jobs take
# them in turn (CUDA_VISIBLE_DEVICES), but for the multi-GPU programs,
# which see them all. Tests run without meson through the bundle's
# run-meson-tests.py (that machine has none); the tests that may skip there
# are tools/gpu-run.sh's (tools/gpu-common.sh).
#   tools/gpu-check.sh [JOBS] [LIMIT]     (defaults: the CPUs, 540)
# Logs go to $OUT/check (or out/gpu/check); summaries to $OUT/suite.txt
# and $OUT/sanitizers.txt; exits 1 if a test failed, timed out, was not
# run or skipped where it may not, or a sanitizer run did not end clean.
# CUDACONV_BUILD_DIR and CUDACONV_GST_BUNDLE as for tools/gpu-run.sh.
# CUDACONV_CHECK_JOBS, a regex, keeps the jobs whose numbered line of
# $OUT/check/jobs.txt it matches (for example 'element', 'formats' or
# '^(0|1|16) '), so that the check can be cut over several calls.
set -uo pipefail
jobs=${1:-$(nproc)}
limit=${2:-540}
out=${OUT:-out/gpu}
build=${CUDACONV_BUILD_DIR:-build}
bundle=${CUDACONV_GST_BUNDLE:-.gst}
logs=$out/check
# a run's summaries are counted: none of an earlier run's may stay
rm -rf "$logs"
mkdir -p "$logs"
# shellcheck disable=SC1091
source "$bundle/env.sh"
# shellcheck source=tools/gpu-common.sh
source "$(dirname "$0")/gpu-common.sh"
export GST_PLUGIN_PATH_1_0=$PWD/$build/plugin
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"
# the GPUs the jobs take in turn: those CUDA_VISIBLE_DEVICES names, else
# every one
if [ -n "${CUDA_VISIBLE_DEVICES:-}" ]; then
  IFS=, read -r -a devices <<<"$CUDA_VISIBLE_DEVICES"
else
  mapfile -t devices < <(seq 0 $(($(nvidia-smi -L | grep -c '^GPU') - 1)))
fi
gpus=${#devices[@]}
devices_list="${devices[*]}"

# one line a job: "test NAME", "kernels TOOL PROGRAM" or "element PROGRAM
# [TESTS]" (TESTS: GST_CHECKS, a comma-separated list of its tests)
list=$logs/jobs.txt
python3 - "$build" "$(dirname "$0")/.." >"$list" <<'EOF' || { echo "gpu-check: no list of jobs"; exit 1; }
import glob, json, os, re, sys
build, root = sys.argv[1], sys.argv[2]
tests = [t["name"] for t in json.load(open(os.path.join(build, "meson-info", "intro-tests.json")))]
programs = lambda pattern: sorted(p for p in glob.glob(os.path.join(build, "tests", pattern)) if os.path.isfile(p))
kernels = programs("test-kernels-cuda-*") + programs("test-frame-graph")
elements = programs("test-element-cuda-*") + programs("test-element-multi-gpu")
# the element programs whose memcheck runs are cut into parts of a few
# tests, named as tests/element/TOPIC.c adds them
split = {"element-cuda-formats": 1}
def element_jobs(p):
    name = p.rsplit("test-", 1)[1]
    if name not in split:
        return ["element " + p]
    topic = name.split("-", 2)[2]
    names = re.findall(r"tcase_add_test \(tc, (\w+)\)", open(os.path.join(root, "tests", "element", topic + ".c")).read())
    n = split[name]
    return ["element %s %s" % (p, ",".join(names[i:i + n])) for i in range(0, len(names), n)]
# the longest, measured on an H200 beside the others: sanitizers of the
# largest kernel topics, the element formats, the long kernel tests
slow = ["kernels-cuda-convolve", "element-cuda-formats", "kernels-cpu-convolve", "kernels-cuda-samples",
        "element-cuda-memory", "element-cuda-regions"]
first = []
for name in slow:
    first += ["kernels %s %s" % (tool, p) for p in kernels if p.endswith(name) for tool in ("racecheck", "memcheck")]
    first += [j for p in elements if p.endswith(name) for j in element_jobs(p)]
    first += ["test " + name] if name in tests else []
rest = ["kernels %s %s" % (tool, p) for p in kernels for tool in ("racecheck", "memcheck")]
rest += [j for p in elements for j in element_jobs(p)] + ["test " + t for t in tests]
jobs = first + [j for j in rest if j not in first]
# numbered before they are chosen, so that a job keeps its number (and its
# log's name) in every run
keep = re.compile(os.environ.get("CUDACONV_CHECK_JOBS", ""))
for line in ("%d %s" % (i, j) for i, j in enumerate(jobs)):
    if keep.search(line):
        print(line)
EOF
[ -s "$list" ] || { echo "gpu-check: no job matches CUDACONV_CHECK_JOBS"; exit 1; }

# a job's line split into its words; called by xargs below
# shellcheck disable=SC2086,SC2317
job() {
  set -- $1
  local index=$1
  shift
  case "$*" in
    *multi-gpu*) ;;
    *) if [ "$gpus" -gt 1 ]; then
         local devices
         read -r -a devices <<<"$devices_list"
         export CUDA_VISIBLE_DEVICES=${devices[index % gpus]}
       fi ;;
  esac
  case $1 in
    test)
      python3 "$bundle/run-meson-tests.py" "$build" "$2" >"$logs/test-$2.txt" 2>&1 ;;
    kernels)
      gpu_sanitize_kernels "$2" "$3" "$logs/$2-${3##*/}.log" \
        >"$logs/summary-$2-${3##*/}.txt" ;;
    element)
      # an empty GST_CHECKS would name no test
      [ -n "${3:-}" ] && export GST_CHECKS=$3
      gpu_sanitize_element "$build" "$2" \
        "$logs/memcheck-${2##*/}${3:+-$index}.log" \
        >"$logs/summary-element-${2##*/}${3:+-$index}.txt" ;;
  esac
}
export -f job gpu_sanitize_kernels gpu_sanitize_element
export build bundle logs gpus devices_list
export CUDACONV_SANITIZER_TIMEOUT=$limit
start=$(date +%s)
tr '\n' '\0' <"$list" | timeout "$limit" xargs -0 -P "$jobs" -I{} bash -c 'job "{}"'
echo "$(wc -l <"$list") jobs, $jobs at a time: $(($(date +%s) - start)) s"

status=0
cat "$logs"/test-*.txt 2>/dev/null | grep -E '^(OK|SKIP|FAIL|TIMEOUT)|^    ' >"$out/suite.txt"
cat "$logs"/summary-*.txt 2>/dev/null >"$out/sanitizers.txt"
tests=$(grep -c '^[0-9]* test ' "$list")
ok=$(grep -c '^OK' "$out/suite.txt")
skipped=$(grep -c '^SKIP' "$out/suite.txt")
echo "suite: $ok passed, $skipped skipped, $((tests - ok - skipped)) failed or not run, of $tests"
grep -vE '^OK' "$out/suite.txt"
[ $((ok + skipped)) = "$tests" ] || status=1
if grep '^SKIP' "$out/suite.txt" | grep -Ev "$(gpu_may_skip "$gpus")" | grep -q .; then
  echo "a test was skipped on the GPU machine"; status=1
fi
cat "$out/sanitizers.txt"
runs=$(grep -c -E '^[0-9]* (kernels|element) ' "$list")
[ "$(wc -l <"$out/sanitizers.txt")" = "$runs" ] || { echo "sanitizer runs that did not end: $((runs - $(wc -l <"$out/sanitizers.txt")))"; status=1; }
# a two-GPU program exits 77 where there is one GPU
grep -vE 'exit 0;|element multi-gpu: exit 77;' "$out/sanitizers.txt" | grep -q . && status=1
exit $status
