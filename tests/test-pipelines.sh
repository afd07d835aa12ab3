#!/usr/bin/env bash
# Runs every script in pipelines/, and tools/privacy-picture.sh, to EOS on
# bounded sources and checks what they wrote. Called by meson with the
# build directory as $1.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export CUDACONV_BUILD_DIR=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# webcams' packed 4:2:2, which the scripts take with no converter in front
webcam="videotestsrc num-buffers=20 pattern=ball ! video/x-raw,width=320,height=240"
export CUDACONV_SINK="fakesink"
failed=0 passed=0

check() {
  local name=$1; shift
  if "$@" >"$work/$name.log" 2>&1; then
    passed=$((passed + 1)); echo "ok: $name"
  else
    failed=$((failed + 1)); echo "FAILED: $name"; tail -20 "$work/$name.log"
  fi
}

check webcam-blur env CUDACONV_SOURCE="$webcam,format=YUY2" \
  "$root/pipelines/webcam-blur.sh"
check webcam-edges env CUDACONV_SOURCE="$webcam,format=UYVY" \
  "$root/pipelines/webcam-edges.sh" kernel=edge

gst-launch-1.0 -q videotestsrc num-buffers=10 pattern=smpte ! \
  video/x-raw,width=176,height=144,format=I420 ! y4menc ! filesink location="$work/in.y4m"
check file-filter "$root/pipelines/file-filter.sh" "$work/in.y4m" "$work/out.y4m" kernel=sharpen
# same size (10 frames of the same format) but different pictures
check file-filter-size test "$(stat -c %s "$work/out.y4m" 2>/dev/null || echo 0)" = "$(stat -c %s "$work/in.y4m")"
check file-filter-changed bash -c "! cmp -s '$work/in.y4m' '$work/out.y4m'"

check demo env CUDACONV_DEMO_NO_SETUP=1 CUDACONV_DEMO_OUT="$work/demo" CUDACONV_DEMO_FRAMES=40 \
  "$root/pipelines/demo.sh"
check demo-images bash -c "[ -s '$work/demo/before.png' ] && [ -s '$work/demo/after.png' ] && ! cmp -s '$work/demo/before.png' '$work/demo/after.png'"
check demo-report grep -q "frames/s" "$work/demo.log"
check demo-backend grep -q "^cudaconv demo: backend: \(cuda\|cpu\) — ." "$work/demo.log"
check demo-three-lines test "$(wc -l <"$work/demo.log")" = 3

# the GPU machine's GStreamer bundle has neither compositor nor textoverlay
# (gstreamer1.0-x), which tests/bootstrap.sh installs everywhere else
if gst-inspect-1.0 compositor >/dev/null 2>&1 &&
  gst-inspect-1.0 textoverlay >/dev/null 2>&1; then
  check gallery "$root/pipelines/gallery.sh" "$work/presets.png"
  # a PNG of 4 x 3 tiles of 320x180: width and height in its header
  check gallery-size bash -c "[ \"\$(od -An -tx1 -j16 -N8 '$work/presets.png' | tr -d ' ')\" = 000005000000021c ]"
else
  echo "skipped: gallery (no compositor or textoverlay here)"
fi

# the privacy blur behind OpenCV's facedetect (gstreamer1.0-opencv, which
# the GPU machine does not have): the webcam script on a picture without
# faces, then messi5.jpg (opencv-doc), whose one face it finds; radius=7
# keeps them quick
photo=/usr/share/doc/opencv-doc/examples/data/messi5.jpg
if gst-inspect-1.0 facedetect >/dev/null 2>&1 && [ -f "$photo" ]; then
  check privacy-webcam-help "$root/pipelines/privacy-webcam.sh" --help
  check privacy-webcam env CUDACONV_SOURCE="$webcam,format=YUY2" \
    "$root/pipelines/privacy-webcam.sh" radius=7
  check privacy-webcam-background env CUDACONV_SOURCE="$webcam,format=YUY2" \
    "$root/pipelines/privacy-webcam.sh" --background --min-face 20 radius=7
  check privacy-file-help "$root/pipelines/privacy-file.sh" --help
  check privacy-file-picture "$root/pipelines/privacy-file.sh" "$photo" "$work/face.png" radius=7
  gst-launch-1.0 -q filesrc location="$photo" ! decodebin ! videoconvert ! \
    pngenc ! filesink location="$work/photo.png"
  check privacy-file-picture-changed bash -c "[ -s '$work/face.png' ] && ! cmp -s '$work/photo.png' '$work/face.png'"
  gst-launch-1.0 -q filesrc location="$photo" ! jpegdec ! imagefreeze num-buffers=10 ! \
    video/x-raw,framerate=10/1 ! jpegenc ! avimux ! filesink location="$work/photo.avi"
  check privacy-file-video "$root/pipelines/privacy-file.sh" --pixelate "$work/photo.avi" \
    "$work/face.webm" radius=3
  check privacy-file-video-size test -s "$work/face.webm"
  if gst-inspect-1.0 compositor >/dev/null 2>&1 &&
    gst-inspect-1.0 textoverlay >/dev/null 2>&1; then
    check privacy-picture "$root/tools/privacy-picture.sh" "$work/privacy.png"
    check privacy-picture-size test -s "$work/privacy.png"
  fi
else
  echo "skipped: privacy-webcam, privacy-file, privacy-picture (no facedetect or messi5.jpg here)"
fi

# a refused value on the command line ends in an ERROR (gst-launch-1.0
# exits 255: the pipeline does not preroll), never in a g_warning, which
# G_DEBUG=fatal-warnings would turn into a trap (exit 133)
refused_value_is_an_error() {
  local rc=0
  G_DEBUG=fatal-warnings gst-launch-1.0 videotestsrc num-buffers=2 ! \
    cudaconv backend=cpu kernel=custom matrix="1,2;3" ! fakesink \
    >"$work/refused.log" 2>&1 || rc=$?
  [ "$rc" = 255 ] && grep -q "invalid matrix" "$work/refused.log"
}
check refused-value-fatal-warnings refused_value_is_an_error

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
