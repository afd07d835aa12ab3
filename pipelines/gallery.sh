#!/usr/bin/env bash
# Makes the picture of what the presets do (docs/presets.png): one frame of
# videotestsrc's pinwheel through cudaconv with each preset, a wide gaussian
# and two custom matrices, tiled 4 x 3 with their settings written on them.
#   pipelines/gallery.sh [OUT.png]    (default: docs/presets.png)
# Uses the GPU when there is one, the CPU otherwise: the pictures are the
# same to within one step of rounding.
set -euo pipefail
. "$(dirname "$0")/common.sh"
out=${1:-$root/docs/presets.png}
tile_w=320 tile_h=180 columns=4

# label, then cudaconv's properties ("" for the unfiltered picture)
tiles=(
  "original" ""
  "box radius=3" "kernel=box radius=3"
  "gaussian radius=3" "kernel=gaussian radius=3"
  "sharpen radius=2" "kernel=sharpen radius=2"
  "edge" "kernel=edge"
  "sobel" "kernel=sobel"
  "sobel-x offset=128" "kernel=sobel-x offset=128"
  "sobel-y offset=128" "kernel=sobel-y offset=128"
  "emboss" "kernel=emboss"
  "gaussian sigma=6 border=wrap" "kernel=gaussian radius=15 sigma=6 border=wrap"
  "custom: motion blur" "kernel=custom matrix=\"1,0,0,0,0;0,1,0,0,0;0,0,1,0,0;0,0,0,1,0;0,0,0,0,1\""
  "custom: ridge" "kernel=custom matrix=\"0,-1,0;-1,4,-1;0,-1,0\" offset=128"
)

n=$((${#tiles[@]} / 2))
rows=$(((n + columns - 1) / columns))
launch="compositor name=mix background=black"
for ((k = 0; k < n; k++)); do
  launch+=" sink_$k::xpos=$((k % columns * tile_w)) sink_$k::ypos=$((k / columns * tile_h))"
done
launch+=" ! video/x-raw,width=$((columns * tile_w)),height=$((rows * tile_h))"
launch+=" ! videoconvert ! pngenc snapshot=true ! filesink location=\"$out\""
launch+=" videotestsrc num-buffers=1 pattern=pinwheel foreground-color=0xfff0c040"
launch+=" background-color=0xff203070"
launch+=" ! video/x-raw,format=I420,width=$tile_w,height=$tile_h ! tee name=t"
for ((k = 0; k < n; k++)); do
  label=${tiles[2 * k]} props=${tiles[2 * k + 1]}
  launch+=" t. ! queue"
  [ -n "$props" ] && launch+=" ! cudaconv $props"
  launch+=" ! textoverlay text=\"$label\" valignment=top halignment=left"
  launch+=" font-desc=\"Sans Bold 15\" shaded-background=true ! mix.sink_$k"
done
mkdir -p "$(dirname "$out")"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# shellcheck disable=SC2086
if ! eval gst-launch-1.0 -e $launch >"$log" 2>&1; then
  cat "$log" >&2
  exit 1
fi
echo "gallery: wrote $out (${n} pictures, ${columns}x${rows})"
