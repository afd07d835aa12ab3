#!/usr/bin/env bash
# Blurs the faces in a video file or a picture into another file:
# OpenCV's facedetect finds them (on the CPU) and cudaconv region=inside
# blurs only their boxes, grown by a fifth of their size a side and kept
# for 10 frames after the detector last saw them.
#   pipelines/privacy-file.sh [options] IN OUT [cudaconv properties]
#   IN   any video file or picture GStreamer can decode (its sound is left out)
#   OUT  .webm (VP8), .mp4 (H.264: x264enc where gstreamer1.0-plugins-ugly
#        is installed, else openh264enc), .avi (Motion JPEG), .y4m (raw,
#        lossless), or .png / .jpg for a picture (its first frame)
#   --pixelate      pixelate (irreversible) instead of the gaussian blur
#   --background    blur everything but the faces (region=outside)
#   --min-face N    the smallest face found, in pixels (facedetect's
#                   min-size, default 30): smaller finds faces further away
#   --help          this text
# e.g. privacy-file.sh --pixelate in.mp4 out.webm radius=12
# Needs gstreamer1.0-opencv and opencv-data (tests/bootstrap.sh installs
# them).
set -eu
# shellcheck source=pipelines/common.sh
. "$(dirname "$0")/common.sh"
while [ $# -gt 0 ]; do
  privacy_option "$@"
  [ "$taken" -gt 0 ] || break
  shift "$taken"
done
if [ $# -lt 2 ]; then
  echo "usage: $0 [--pixelate] [--background] [--min-face N] IN OUT [cudaconv properties]" >&2
  exit 2
fi
in=$1 out=$2
shift 2
demux=$(file_decoder "$in")
case $out in
  *.webm) encode="vp8enc deadline=1 target-bitrate=0 ! webmmux" ;;
  *.mp4)
    if gst-inspect-1.0 x264enc >/dev/null 2>&1; then h264=x264enc; else h264=openh264enc; fi
    encode="$h264 ! h264parse ! mp4mux" ;;
  *.avi) encode="jpegenc ! avimux" ;;
  *.y4m) encode="y4menc" ;;
  *.png) encode="pngenc snapshot=true" ;;
  *.jpg | *.jpeg) encode="jpegenc snapshot=true" ;;
  *) echo "$0: OUT must end in .webm, .mp4, .avi, .y4m, .png or .jpg" >&2; exit 2 ;;
esac
# Debian's opencv-data lacks the nose, mouth and eye cascades facedetect
# opens by default (it finds faces without them): OpenCV would log an
# error for each
export OPENCV_LOG_LEVEL=${OPENCV_LOG_LEVEL:-OFF}
# facedetect takes RGB; the second videoconvert serves the encoder
# shellcheck disable=SC2086
exec gst-launch-1.0 -e filesrc location="$in" ! $demux ! videoconvert ! \
  facedetect display=false min-size-width="$min_face" min-size-height="$min_face" ! \
  cudaconv region=$region $filter region-margin=0.2 region-hold=10 "$@" ! \
  videoconvert ! $encode ! filesink location="$out"
