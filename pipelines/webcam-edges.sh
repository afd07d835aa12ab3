#!/usr/bin/env bash
# Shows the webcam's edges: Sobel gradient magnitude as a gray picture.
# Extra arguments are cudaconv properties, e.g. kernel=edge.
set -eu
. "$(dirname "$0")/common.sh"
# shellcheck disable=SC2086
exec gst-launch-1.0 -e $source ! videoconvert ! video/x-raw,format=I420 ! \
  cudaconv kernel=sobel "$@" ! videoconvert ! $sink
