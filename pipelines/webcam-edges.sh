#!/usr/bin/env bash
# Shows the webcam's edges: Sobel gradient magnitude as a gray picture.
# Extra arguments are cudaconv properties, e.g. kernel=edge.
set -eu
. "$(dirname "$0")/common.sh"
# shellcheck disable=SC2086
# cudaconv takes the raw formats webcams deliver (YUY2, UYVY, I420, NV12...)
exec gst-launch-1.0 -e $source ! cudaconv kernel=sobel "$@" ! videoconvert ! \
  $sink
