#!/usr/bin/env bash
# Makes the GStreamer bundle that tools/gpu-run.sh needs on the GPU machine:
# ../shared/device/gst-bundle.sh plus what it leaves out: the Y4M elements
# the file-filter pipeline test uses, videocrop for cudaconv-bench --crop,
# and the controller library the element tests link. Run in the project root:
#   tools/gpu-bundle.sh .gst
set -euo pipefail
dir=${1:-.gst}
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/../shared/device/gst-bundle.sh" "$dir" \
  /usr/lib/x86_64-linux-gnu/libgstcontroller-1.0.so.0
cp -L /usr/lib/x86_64-linux-gnu/gstreamer-1.0/libgsty4menc.so \
  /usr/lib/x86_64-linux-gnu/gstreamer-1.0/libgsty4mdec.so \
  /usr/lib/x86_64-linux-gnu/gstreamer-1.0/libgstvideocrop.so "$dir/plugins/"
