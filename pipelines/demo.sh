#!/usr/bin/env bash
# The cudaconv demo, for a fresh Debian 12 machine with or without a GPU:
# installs what is missing, builds, filters the built-in test picture
# (videotestsrc's pinwheel) with the main job, a gaussian blur, into
# out/before.png and out/after.png, and says in three lines which backend
# ran and why, where the pictures are, and the filter's frame rate on
# 1920x1080 I420 frames.
#   pipelines/demo.sh [--bench]   --bench: then the whole end-to-end table
#                                 (transfer floor, pinned/registered/staged
#                                 input, cudaupload ! cudadownload)
#   CUDACONV_DEMO_PROPS  cudaconv properties (default: kernel=gaussian radius=7)
#   CUDACONV_DEMO_OUT    folder for the pictures (default: out/)
#   CUDACONV_DEMO_FRAMES frames timed (default 300)
#   CUDACONV_DEMO_NO_SETUP=1  skip install and build (the test suite uses it)
#   CUDACONV_BUILD_DIR   the build directory (default: build/)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bench=0
case ${1:-} in
  --bench) bench=1 ;;
  "") ;;
  *) echo "usage: $0 [--bench]" >&2; exit 2 ;;
esac
[ "${CUDACONV_DEMO_NO_SETUP:-0}" = 1 ] || "$root/tests/bootstrap.sh"
. "$root/pipelines/common.sh"
props=${CUDACONV_DEMO_PROPS:-kernel=gaussian radius=7}
out=${CUDACONV_DEMO_OUT:-$root/out}
mkdir -p "$out"

# The element says on the bus which backend it took: an INFO naming the GPU,
# or the WARNING that says why it fell back to the CPU.
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# shellcheck disable=SC2086
if ! gst-launch-1.0 videotestsrc num-buffers=1 pattern=pinwheel ! \
  video/x-raw,width=1280,height=720,format=I420 ! tee name=t \
  t. ! queue ! videoconvert ! pngenc ! filesink location="$out/before.png" \
  t. ! queue ! cudaconv $props ! videoconvert ! pngenc ! \
  filesink location="$out/after.png" >"$log" 2>&1; then
  cat "$log" >&2
  exit 1
fi
if device=$(grep -o "using the CUDA backend on device .*" "$log"); then
  echo "cudaconv demo: backend: cuda — ${device#using the CUDA backend on }"
elif reason=$(grep -o "No usable CUDA device; using the CPU backend: .*" "$log"); then
  echo "cudaconv demo: backend: cpu — ${reason#*CPU backend: }"
else
  echo "cudaconv demo: backend: cpu — asked for (backend=cpu)"
fi
shown=${out#"$PWD"/}
echo "cudaconv demo: pictures: $shown/before.png, $shown/after.png ($props)"

"$build/benchmarks/cudaconv-bench" --once --size 1920x1080 --format I420 \
  --props "$props" --frames "${CUDACONV_DEMO_FRAMES:-300}" |
  sed 's/^/cudaconv demo: /'
if [ "$bench" = 1 ]; then
  "$build/benchmarks/cudaconv-bench" --element --size 1920x1080 --format I420 \
    --props "$props" --frames "${CUDACONV_DEMO_FRAMES:-300}"
fi
