#!/usr/bin/env bash
# Blurs the webcam with a 7x7 gaussian on the GPU (the CPU without one).
# Extra arguments are cudaconv properties, e.g. radius=7 kernel=box.
set -eu
. "$(dirname "$0")/common.sh"
# shellcheck disable=SC2086
# cudaconv takes the raw formats webcams deliver (YUY2, UYVY, I420, NV12...)
exec gst-launch-1.0 -e $source ! cudaconv kernel=gaussian radius=3 "$@" ! \
  videoconvert ! $sink
