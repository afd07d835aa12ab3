#!/usr/bin/env bash
# Makes the GStreamer bundle that tests/gpu-run.sh needs on the GPU machine:
# ../shared/device/gst-bundle.sh plus the Y4M elements the file-filter
# pipeline test uses, which that bundle leaves out. Run in the project root:
#   tests/gpu-bundle.sh .gst
set -euo pipefail
dir=${1:-.gst}
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/../shared/device/gst-bundle.sh" "$dir"
cp -L /usr/lib/x86_64-linux-gnu/gstreamer-1.0/libgsty4menc.so \
  /usr/lib/x86_64-linux-gnu/gstreamer-1.0/libgsty4mdec.so "$dir/plugins/"
