#!/usr/bin/env bash
# Filters a video file into another: file-filter.sh IN OUT [cudaconv properties]
#   IN   a .y4m file, or any file GStreamer can decode
#   OUT  .y4m (raw, lossless) or .avi (Motion JPEG)
# e.g. file-filter.sh in.y4m out.y4m kernel=sharpen radius=2
set -eu
# shellcheck source=pipelines/common.sh
. "$(dirname "$0")/common.sh"
if [ $# -lt 2 ]; then
  echo "usage: $0 IN OUT [cudaconv properties]" >&2
  exit 2
fi
in=$1 out=$2
shift 2
demux=$(file_decoder "$in")
case $out in
  *.y4m) mux="y4menc" ;;
  *.avi) mux="jpegenc ! avimux" ;;
  *) echo "$0: OUT must end in .y4m or .avi" >&2; exit 2 ;;
esac
# The first videoconvert passes through every format cudaconv takes (10-bit
# decoder output included) and converts the rest; the second serves the
# encoder.
# shellcheck disable=SC2086
exec gst-launch-1.0 -e filesrc location="$in" ! $demux ! videoconvert ! \
  cudaconv "$@" ! videoconvert ! $mux ! filesink location="$out"
