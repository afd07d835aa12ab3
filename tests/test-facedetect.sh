#!/usr/bin/env bash
# cudaconv region=inside behind the real face detector: OpenCV's messi5.jpg
# through facedetect display=false, whose default cascade finds one face
# (x=226 y=94 38x38 with Debian 12's OpenCV 4.6). Against the same picture
# without cudaconv, as RGB:
#   - radius=7: most pixels of the face change, and none farther than the
#     radius from it (facedetect's box is the region: the filter reads the
#     pixels around it but writes only inside); so the ROI meta reached the
#     element;
#   - radius=3 region-margin=0.5: the changed pixels fill the box grown by
#     half its side, and go no further than the radius past it;
#   - no face found (min-size larger than the picture): bit-identical.
# Runs on the CPU backend, and on the CUDA backend too where a device is
# usable. Exits 77 (skipped) where facedetect (gstreamer1.0-opencv), its
# cascade (opencv-data) or messi5.jpg (opencv-doc) is missing, as on the GPU
# machine; tests/bootstrap.sh installs them everywhere else.
# Called by meson with the build directory as $1.
#   CUDACONV_TEST_FACE_IMAGE  another picture with messi5.jpg's face
set -uo pipefail
image=${CUDACONV_TEST_FACE_IMAGE:-/usr/share/doc/opencv-doc/examples/data/messi5.jpg}
# Debian's opencv-data lacks the nose, mouth and eye cascades facedetect
# opens by default (faces are found without them): OpenCV would log an
# error for each
export OPENCV_LOG_LEVEL=OFF
if ! inspect=$(gst-inspect-1.0 facedetect 2>/dev/null); then
  echo "SKIP: no facedetect element (gstreamer1.0-opencv)"
  exit 77
fi
cascade=$(sed -n '/^  profile /,/Default:/s/.*Default: "\(.*\)"$/\1/p' <<<"$inspect")
if [ ! -f "$cascade" ]; then
  echo "SKIP: no face cascade ${cascade:-(facedetect names none)} (opencv-data)"
  exit 77
fi
if [ ! -f "$image" ]; then
  echo "SKIP: no $image (opencv-doc)"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
fail() { echo "FAILED: $*"; failed=1; }

detect="filesrc location=$image ! jpegdec ! videoconvert ! facedetect display=false"
rgb="videoconvert ! video/x-raw,format=RGB"

# the face, from facedetect's message, and the picture's size
# shellcheck disable=SC2086
if ! gst-launch-1.0 -m -v $detect ! $rgb ! fakesink >"$work/detect.log" 2>&1; then
  cat "$work/detect.log"; exit 1
fi
faces=$(tr -d '\\' <"$work/detect.log" | grep -o 'face, x=(uint)[0-9]*, y=(uint)[0-9]*, width=(uint)[0-9]*, height=(uint)[0-9]*' |
  sed 's/[^0-9 ]//g; s/  */ /g; s/^ //')
echo "facedetect: $(sed 's/\([0-9]*\) \([0-9]*\) \([0-9]*\) \([0-9]*\)/x=\1 y=\2 \3x\4/' <<<"${faces:-no face}")"
if [ "$(grep -c . <<<"$faces")" != 1 ]; then
  echo "FAILED: facedetect found $(grep -c . <<<"$faces") faces in $image, not one"; exit 1
fi
read -r fx fy fw fh <<<"$faces"
read -r width height < <(sed -n \
  's/.*capsfilter0.GstPad:src: caps = .* width=(int)\([0-9]*\), height=(int)\([0-9]*\).*/\1 \2/p' \
  "$work/detect.log" | head -n 1)
# near where Debian 12's OpenCV puts it
if ((fx < 216 || fx > 236 || fy < 84 || fy > 104 || fw < 30 || fw > 48 || fh < 30 || fh > 48)); then
  fail "the face is at x=$fx y=$fy ${fw}x$fh, not near x=226 y=94 38x38"
fi

# runs the picture through facedetect and $1 (elements) into $2 as RGB
run() {
  # shellcheck disable=SC2086
  gst-launch-1.0 -q $detect $1 ! $rgb ! filesink location="$2" >"$2.log" 2>&1 ||
    { cat "$2.log"; return 1; }
}

# compare ORIG OUT INNER OUTER MIN_INSIDE: pixels that differ must lie
# within the face box grown by OUTER pixels a side (negative: none may
# differ), and at least MIN_INSIDE percent of the box grown by INNER must
# differ; prints what it found
compare() {
  python3 - "$@" "$width" "$height" "$fx" "$fy" "$fw" "$fh" <<'PY'
import sys
orig, out = (open(p, "rb").read() for p in sys.argv[1:3])
inner, outer, min_inside, w, h, fx, fy, fw, fh = map(float, sys.argv[3:])
w, h = int(w), int(h)
stride = (w * 3 + 3) // 4 * 4          # GStreamer's RGB rows: 4-byte aligned
if len(orig) != stride * h or len(out) != len(orig):
    sys.exit(f"sizes: {len(orig)} and {len(out)} bytes, want {stride * h}")
def inside(x, y, grow):
    return (fx - grow <= x < fx + fw + grow) and (fy - grow <= y < fy + fh + grow)
changed = outside = box = changed_in_box = 0
x0 = x1 = y0 = y1 = None
for y in range(h):
    row = y * stride
    a, b = orig[row:row + w * 3], out[row:row + w * 3]
    if a == b:
        box += sum(inside(x, y, inner) for x in range(w)) if fy - inner <= y < fy + fh + inner else 0
        continue
    for x in range(w):
        same = a[3 * x:3 * x + 3] == b[3 * x:3 * x + 3]
        if inside(x, y, inner):
            box += 1
            changed_in_box += not same
        if not same:
            changed += 1
            x0 = x if x0 is None else min(x0, x); x1 = x if x1 is None else max(x1, x)
            y0 = y if y0 is None else min(y0, y); y1 = y if y1 is None else max(y1, y)
            if outer < 0 or not inside(x, y, outer):
                outside += 1
where = f", within x {x0}..{x1} y {y0}..{y1}" if changed else ""
print(f"{changed} pixels changed{where}; {changed_in_box} of the {box} in the box"
      f"{f' grown by {inner:g}' if inner else ''}; {outside} outside what may change")
ok = outside == 0 and (box == 0 or changed_in_box * 100 >= min_inside * box)
sys.exit(0 if ok else 1)
PY
}

run "" "$work/orig.rgb" || exit 1

backends=cpu
# the element says on the bus which backend it took
gst-launch-1.0 videotestsrc num-buffers=1 ! cudaconv ! fakesink >"$work/probe.log" 2>&1
if grep -q "using the CUDA backend on device" "$work/probe.log"; then
  backends="cpu cuda"
else
  echo "no CUDA device: backend=cpu only ($(grep -o 'No usable CUDA device.*' "$work/probe.log" | head -n 1))"
fi

for backend in $backends; do
  conv="cudaconv backend=$backend region=inside kernel=gaussian"
  name="backend=$backend radius=7"
  if run "! $conv radius=7" "$work/r7-$backend.rgb"; then
    # 90%: a gaussian leaves a pixel of a flat patch as it is
    echo -n "$name: "
    compare "$work/orig.rgb" "$work/r7-$backend.rgb" 0 7 90 || fail "$name"
  else
    fail "$name: the pipeline failed"
  fi
  # half of 38 is 19 pixels a side; the element rounds the grown box out
  margin=$(((fw > fh ? fw : fh) / 2 + 1))
  name="backend=$backend radius=3 region-margin=0.5"
  if run "! $conv radius=3 region-margin=0.5" "$work/margin-$backend.rgb"; then
    echo -n "$name: "
    compare "$work/orig.rgb" "$work/margin-$backend.rgb" $((margin - 3)) $((margin + 3)) 80 ||
      fail "$name"
  else
    fail "$name: the pipeline failed"
  fi
  name="backend=$backend, no face found"
  if run "min-size-width=$((width + 1)) min-size-height=$((height + 1)) ! $conv radius=7" \
    "$work/none-$backend.rgb"; then
    echo -n "$name: "
    compare "$work/orig.rgb" "$work/none-$backend.rgb" 0 -1 0 || fail "$name"
  else
    fail "$name: the pipeline failed"
  fi
done
exit $failed
