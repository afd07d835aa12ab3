#!/usr/bin/env bash
# Runs pipelines/embed.py to EOS on 60 frames and checks what it reports:
# the backend, the radius animated by its controller from 1 to 8, the
# kernel switched while playing. Exits 77 (skipped) where PyGObject with
# GStreamer's introspection data is not installed (the GPU machine);
# tests/bootstrap.sh installs it everywhere else. Called by meson with the
# build directory as $1.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
if ! /usr/bin/python3 -c 'import gi; gi.require_version("GstController", "1.0")' 2>/dev/null; then
  echo "SKIP: python3-gi or GStreamer's GObject introspection data is missing"
  exit 77
fi
out=$(CUDACONV_BUILD_DIR=$1 /usr/bin/python3 "$root/pipelines/embed.py" \
  --frames 60 --sink fakesink 2>&1)
rc=$?
echo "$out"
[ $rc = 0 ] || { echo "embed.py exited $rc"; exit 1; }
for want in "^backend: (CUDA backend on device|CPU backend)" \
  "^60 frames; radius from 1 to 8; kernel now sharpen$"; do
  grep -Eq "$want" <<<"$out" || { echo "missing: $want"; exit 1; }
done
