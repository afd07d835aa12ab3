#!/usr/bin/env bash
# The cudaconv demo, for a fresh Debian 12 machine with or without a GPU:
# installs what is missing, builds, filters the built-in test picture
# (videotestsrc's pinwheel) with the main job, a gaussian blur, writes
# out/before.png and out/after.png, and reports which backend ran and its
# frame rate on 1920x1080 I420 frames.
#   CUDACONV_DEMO_PROPS  cudaconv properties (default: kernel=gaussian radius=7)
#   CUDACONV_DEMO_OUT    folder for the images (default: out/)
#   CUDACONV_DEMO_NO_SETUP=1  skip install and build (the test suite uses it)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
[ "${CUDACONV_DEMO_NO_SETUP:-0}" = 1 ] || "$root/tests/bootstrap.sh"
. "$root/pipelines/common.sh"
props=${CUDACONV_DEMO_PROPS:-kernel=gaussian radius=7}
out=${CUDACONV_DEMO_OUT:-$root/out}
mkdir -p "$out"

# shellcheck disable=SC2086
gst-launch-1.0 -q videotestsrc num-buffers=1 pattern=pinwheel ! \
  video/x-raw,width=1280,height=720,format=I420 ! tee name=t \
  t. ! queue ! videoconvert ! pngenc ! filesink location="$out/before.png" \
  t. ! queue ! cudaconv $props ! videoconvert ! pngenc ! \
  filesink location="$out/after.png"
echo "cudaconv demo: wrote $out/before.png and $out/after.png ($props)"

"$root/build/tests/cudaconv-bench" --element --size 1920x1080 \
  --format I420 --props "$props" --frames "${CUDACONV_DEMO_FRAMES:-300}" |
  grep -E "frames/s|not available" | sed 's/^/cudaconv demo: /'
