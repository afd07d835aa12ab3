#!/usr/bin/env bash
# meson install into a DESTDIR: the plugin lands in
# <prefix>/<libdir>/gstreamer-1.0 (or -Dplugins_dir), gst-inspect-1.0
# finds it there with GStreamer searching nowhere else, and shows the
# plugin's release date and package name. Exits 77 (skipped) where the meson on
# PATH is not the one that configured the build directory (the GPU machine
# runs the tests without meson). Called by meson with the build directory
# as $1.
set -euo pipefail
build=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
configured=$(python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["meson_version"]["full"])' \
  "$build/meson-info/meson-info.json")
if [ "$(meson --version 2>/dev/null)" != "$configured" ]; then
  echo "SKIP: no meson $configured here to install with"
  exit 77
fi
expected=$(python3 -c 'import json, sys
o = {x["name"]: x["value"] for x in json.load(open(sys.argv[1]))}
print(o["plugins_dir"] or "%s/%s/gstreamer-1.0" % (o["prefix"], o["libdir"]))' \
  "$build/meson-info/intro-buildoptions.json")
meson install -C "$build" --no-rebuild --destdir "$work/root" >"$work/install.log"
installed=$work/root$expected/libgstcudaconv.so
if [ ! -f "$installed" ]; then
  echo "not installed at $expected:"; cat "$work/install.log"; exit 1
fi
GST_PLUGIN_SYSTEM_PATH_1_0=$work/root$expected GST_PLUGIN_PATH_1_0= \
  GST_PLUGIN_PATH= GST_REGISTRY_1_0=$work/registry.bin \
  gst-inspect-1.0 cudaconv >"$work/inspect.txt"
grep -q "Filename *$installed" "$work/inspect.txt" ||
  { echo "gst-inspect-1.0 did not find $installed:"; cat "$work/inspect.txt"; exit 1; }
# the plugin's metadata: a release date and this project's package name
grep -Eq "Source release date *[0-9]{4}-[0-9]{2}-[0-9]{2}" "$work/inspect.txt" &&
  grep -q "Binary package *cudaconv" "$work/inspect.txt" ||
  { echo "metadata missing:"; cat "$work/inspect.txt"; exit 1; }
echo "installed and found: $expected/libgstcudaconv.so"
