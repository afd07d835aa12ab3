#!/usr/bin/env bash
# Blurs the faces in the webcam's picture: OpenCV's facedetect finds them
# (on the CPU) and cudaconv region=inside blurs only their boxes, grown by
# a fifth of their size a side and kept for 10 frames after the detector
# last saw them, so that a missed frame does not uncover a face.
#   pipelines/privacy-webcam.sh [options] [cudaconv properties]
#   --device DEV    the V4L2 device (default: v4l2src's, /dev/video0)
#   --pixelate      pixelate (irreversible) instead of the gaussian blur
#   --background    blur everything but the faces (region=outside)
#   --min-face N    the smallest face found, in pixels (facedetect's
#                   min-size, default 30): smaller finds faces further away
#   --help          this text
# Extra arguments are cudaconv properties, e.g. radius=12 region-hold=30;
# CUDACONV_SOURCE and CUDACONV_SINK replace the webcam and the window.
# Needs gstreamer1.0-opencv and opencv-data (tests/bootstrap.sh installs
# them).
set -eu
# shellcheck source=pipelines/common.sh
. "$(dirname "$0")/common.sh"
while [ $# -gt 0 ]; do
  if [ "$1" = --device ]; then
    source="v4l2src device=$2"
    shift 2
    continue
  fi
  privacy_option "$@"
  [ "$taken" -gt 0 ] || break
  shift "$taken"
done
# Debian's opencv-data lacks the nose, mouth and eye cascades facedetect
# opens by default (it finds faces without them): OpenCV would log an
# error for each
export OPENCV_LOG_LEVEL=${OPENCV_LOG_LEVEL:-OFF}
# facedetect takes RGB; cudaconv filters it as it comes
# shellcheck disable=SC2086
exec gst-launch-1.0 -e $source ! videoconvert ! \
  facedetect display=false min-size-width="$min_face" min-size-height="$min_face" ! \
  cudaconv region=$region $filter region-margin=0.2 region-hold=10 "$@" ! \
  videoconvert ! $sink
