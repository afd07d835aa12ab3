#!/usr/bin/env bash
# Blurs the webcam with a 7x7 gaussian on the GPU (the CPU without one).
# Extra arguments are cudaconv properties, e.g. radius=7 kernel=box.
set -eu
. "$(dirname "$0")/common.sh"
# shellcheck disable=SC2086
exec gst-launch-1.0 -e $source ! videoconvert ! \
  cudaconv kernel=gaussian radius=3 "$@" ! videoconvert ! $sink
