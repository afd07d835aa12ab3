#!/usr/bin/env bash
# Makes the H.264 streams the decoder test and the benchmark read, as
# byte-stream with parameter sets before every IDR frame, so that copies of
# a file joined end to end are one valid stream (the benchmark joins them
# for long runs). Needs x264enc (gstreamer1.0-plugins-ugly); the GPU
# machine has NVDEC but no encoder, so the files are made here and kept
# small, since they travel with the tree:
#   tools/make-h264-media.sh
set -euo pipefail
cd "$(dirname "$0")/.."

encode() { # width height frames kbps pattern file
  gst-launch-1.0 -q videotestsrc num-buffers="$3" pattern="$5" \
    horizontal-speed=3 ! "video/x-raw,format=I420,width=$1,height=$2,framerate=30/1" ! \
    x264enc bitrate="$4" key-int-max=30 speed-preset=veryfast ! \
    h264parse config-interval=-1 ! \
    video/x-h264,stream-format=byte-stream,alignment=au ! filesink location="$6"
  echo "$6: $(stat -c %s "$6") bytes"
}

# odd-sized and cropped: 98x66 is coded as 112x80
encode 98 66 6 400 snow tests/media/snow-98x66.h264
encode 1920 1080 60 2000 smpte benchmarks/media/smpte-1920x1080.h264
encode 3840 2160 60 6000 smpte benchmarks/media/smpte-3840x2160.h264
