#!/usr/bin/env bash
# The README's three installs, each found where GStreamer looks by itself:
# - this build's `meson install` into a DESTDIR: the plugin lands in
#   <prefix>/<libdir>/gstreamer-1.0 (or -Dplugins_dir), gst-inspect-1.0
#   finds it there and shows the release date and package name;
# - system-wide, a build configured with --prefix=/usr (CPU backend, only
#   the plugin compiled) installed into a DESTDIR: the plugin must land in
#   the directory this machine's GStreamer searches by default
#   (pkg-config's pluginsdir, /usr/lib/<multiarch>/gstreamer-1.0 on Debian);
# - for one user, -Dplugins_dir=$HOME/.local/share/gstreamer-1.0/plugins
#   with HOME a new folder: gst-inspect-1.0 finds it with no GStreamer
#   variable set.
# Exits 77 (skipped) where the meson on PATH is not the one that configured
# the build directory (the GPU machine runs the tests without meson).
# Called by meson with the build directory as $1.
set -euo pipefail
build=$(cd "$1" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
configured=$(python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["meson_version"]["full"])' \
  "$build/meson-info/meson-info.json")
if [ "$(meson --version 2>/dev/null)" != "$configured" ]; then
  echo "SKIP: no meson $configured here to install with"
  exit 77
fi
source_dir=$(python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["directories"]["source"])' \
  "$build/meson-info/meson-info.json")

# gst-inspect-1.0 cudaconv with no GStreamer variable but those given
inspect() {
  env -u GST_PLUGIN_PATH -u GST_PLUGIN_PATH_1_0 -u GST_PLUGIN_SYSTEM_PATH \
    -u GST_PLUGIN_SYSTEM_PATH_1_0 -u XDG_DATA_HOME \
    GST_REGISTRY_1_0="$work/registry-$RANDOM.bin" "$@" gst-inspect-1.0 cudaconv
}
found_at() {  # found_at PLUGIN_FILE OUTPUT_FILE
  grep -q "Filename *$1" "$2" ||
    { echo "gst-inspect-1.0 did not find $1:"; cat "$2"; exit 1; }
}

# 1. this build, as configured
expected=$(python3 -c 'import json, sys
o = {x["name"]: x["value"] for x in json.load(open(sys.argv[1]))}
print(o["plugins_dir"] or "%s/%s/gstreamer-1.0" % (o["prefix"], o["libdir"]))' \
  "$build/meson-info/intro-buildoptions.json")
meson install -C "$build" --no-rebuild --destdir "$work/root" >"$work/install.log"
installed=$work/root$expected/libgstcudaconv.so
if [ ! -f "$installed" ]; then
  echo "not installed at $expected:"; cat "$work/install.log"; exit 1
fi
inspect GST_PLUGIN_SYSTEM_PATH_1_0="$work/root$expected" >"$work/inspect.txt"
found_at "$installed" "$work/inspect.txt"
# the plugin's metadata: a release date and this project's package name
grep -Eq "Source release date *[0-9]{4}-[0-9]{2}-[0-9]{2}" "$work/inspect.txt" &&
  grep -q "Binary package *cudaconv" "$work/inspect.txt" ||
  { echo "metadata missing:"; cat "$work/inspect.txt"; exit 1; }
echo "this build: installed and found at $expected"

# 2. system-wide: --prefix=/usr lands where GStreamer looks by default
system_dir=$(pkg-config --variable=pluginsdir gstreamer-1.0)
meson setup "$work/b" "$source_dir" --prefix=/usr -Dcuda=disabled \
  >"$work/setup.log" 2>&1 || { cat "$work/setup.log"; exit 1; }
meson compile -C "$work/b" gstcudaconv >"$work/compile.log" 2>&1 ||
  { tail -n 40 "$work/compile.log"; exit 1; }
meson install -C "$work/b" --no-rebuild --destdir "$work/system" >"$work/install.log"
if [ ! -f "$work/system$system_dir/libgstcudaconv.so" ]; then
  echo "--prefix=/usr did not install into $system_dir, GStreamer's plugin" \
    "directory; it installed:"
  (cd "$work/system" && find . -name '*.so')
  exit 1
fi
inspect GST_PLUGIN_SYSTEM_PATH_1_0="$work/system$system_dir" >"$work/inspect.txt"
found_at "$work/system$system_dir/libgstcudaconv.so" "$work/inspect.txt"
echo "--prefix=/usr: installed and found at $system_dir"

# 3. for one user: GStreamer's user plugin folder, searched with no variable
home=$work/home
mkdir -p "$home"
meson configure "$work/b" -Dplugins_dir="$home/.local/share/gstreamer-1.0/plugins" \
  >/dev/null
# into a DESTDIR too: only the new install plan, made as meson regenerates,
# may leave it; the plugin has to be where that plan says
meson install -C "$work/b" --destdir "$work/user" >"$work/install.log" 2>&1 ||
  { cat "$work/install.log"; exit 1; }
[ -f "$work/user$home/.local/share/gstreamer-1.0/plugins/libgstcudaconv.so" ] ||
  { echo "-Dplugins_dir was not followed:"; cat "$work/install.log"; exit 1; }
cp -r "$work/user$home/." "$home/"
inspect HOME="$home" >"$work/inspect.txt"
found_at "$home/.local/share/gstreamer-1.0/plugins/libgstcudaconv.so" "$work/inspect.txt"
echo "-Dplugins_dir=\$HOME/.local/share/gstreamer-1.0/plugins: installed and found"
