#!/usr/bin/env bash
# Makes the picture of the privacy blur (docs/privacy-blur.png): OpenCV's
# messi5.jpg through facedetect display=false, then cudaconv region=inside,
# side by side: the original, pixelate and the gaussian blur. Each tile is the part of
# the photo around the face facedetect found, enlarged twice (nearest
# neighbour, so pixelate's blocks stay sharp), with its settings written on
# it. Only GStreamer's elements and cudaconv make it.
#   tools/privacy-picture.sh [OUT.png]    (default: docs/privacy-blur.png)
#   CUDACONV_PRIVACY_IMAGE  the photo (default: opencv-doc's messi5.jpg)
# Needs gstreamer1.0-opencv, opencv-data and opencv-doc (tests/bootstrap.sh
# installs them). Uses the GPU when there is one, the CPU otherwise.
set -euo pipefail
. "$(dirname "$0")/../pipelines/common.sh"
out=${1:-$root/docs/privacy-blur.png}
image=${CUDACONV_PRIVACY_IMAGE:-/usr/share/doc/opencv-doc/examples/data/messi5.jpg}
# the tile cut around the face, and how much it is enlarged
crop_w=160 crop_h=120 zoom=2
# label, then cudaconv's properties ("" for the original)
tiles=(
  "original" ""
  "pixelate radius=3 region-margin=0.25" "region=inside kernel=pixelate radius=3 region-margin=0.25"
  "gaussian radius=15 region-margin=0.25" "region=inside kernel=gaussian radius=15 region-margin=0.25"
)

# Debian's opencv-data lacks the nose, mouth and eye cascades facedetect
# opens by default (it detects faces without them): OpenCV would log an
# error for each
export OPENCV_LOG_LEVEL=${OPENCV_LOG_LEVEL:-OFF}
gst-inspect-1.0 facedetect >/dev/null 2>&1 ||
  { echo "$0: no facedetect element: install gstreamer1.0-opencv" >&2; exit 1; }
[ -f "$image" ] || { echo "$0: no $image: install opencv-doc" >&2; exit 1; }
detect="filesrc location=\"$image\" ! decodebin ! videoconvert ! facedetect display=false"

log=$(mktemp)
trap 'rm -f "$log"' EXIT
# where the face is, from facedetect's message, and the photo's size
if ! eval gst-launch-1.0 -m -v "$detect" ! fakesink >"$log" 2>&1; then
  cat "$log" >&2
  exit 1
fi
read -r fx fy fw fh < <(tr -d '\\' <"$log" | sed -n \
  's/.*"face, x=(uint)\([0-9]*\), y=(uint)\([0-9]*\), width=(uint)\([0-9]*\), height=(uint)\([0-9]*\);.*/\1 \2 \3 \4/p' |
  head -n 1) || { echo "$0: facedetect found no face in $image" >&2; exit 1; }
read -r width height < <(sed -n \
  's/.*facedetect0.GstPad:src: caps = .* width=(int)\([0-9]*\), height=(int)\([0-9]*\).*/\1 \2/p' "$log" |
  head -n 1)
# the tile's part of the photo: centred on the face, inside the photo
left=$((fx + fw / 2 - crop_w / 2)) top=$((fy + fh / 2 - crop_h / 2))
left=$((left < 0 ? 0 : left > width - crop_w ? width - crop_w : left))
top=$((top < 0 ? 0 : top > height - crop_h ? height - crop_h : top))
crop="videocrop left=$left top=$top right=$((width - crop_w - left)) bottom=$((height - crop_h - top))"
tile_w=$((crop_w * zoom)) tile_h=$((crop_h * zoom))

n=$((${#tiles[@]} / 2))
launch="compositor name=mix background=black"
for ((k = 0; k < n; k++)); do
  launch+=" sink_$k::xpos=$((k * tile_w))"
done
launch+=" ! video/x-raw,width=$((n * tile_w)),height=$tile_h"
launch+=" ! videoconvert ! pngenc compression-level=9 snapshot=true ! filesink location=\"$out\""
launch+=" $detect ! tee name=t"
for ((k = 0; k < n; k++)); do
  label=${tiles[2 * k]} props=${tiles[2 * k + 1]}
  launch+=" t. ! queue"
  [ -n "$props" ] && launch+=" ! cudaconv $props"
  launch+=" ! $crop ! videoscale method=nearest-neighbour"
  launch+=" ! video/x-raw,width=$tile_w,height=$tile_h,pixel-aspect-ratio=1/1"
  launch+=" ! textoverlay text=\"$label\" valignment=top halignment=left"
  launch+=" font-desc=\"Sans Bold 12\" shaded-background=true ! mix.sink_$k"
done
mkdir -p "$(dirname "$out")"
if ! eval gst-launch-1.0 -e "$launch" >"$log" 2>&1; then
  cat "$log" >&2
  exit 1
fi
echo "privacy-picture: wrote $out (face at x=$fx y=$fy ${fw}x$fh;" \
  "$n tiles of ${crop_w}x$crop_h around it, enlarged $zoom times)"
