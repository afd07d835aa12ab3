#!/usr/bin/env bash
# The distribution check: a fresh minimal Debian (minbase, made with
# debootstrap from the archive apt uses here), the CUDA toolkit of this
# machine bound in read-only, a clone of this repository's HEAD, and the
# README's two commands run there as a new user would run them. Prints the
# versions found, each command's time and its closing lines, and ends with
# the suite's 'N passed, N failed, N skipped'. Needs root (debootstrap,
# chroot and bind mounts); where that, or Debian's archive, cannot be had it
# prints one line saying that it did not run and why, and exits 0.
#   tools/debian-check.sh [SUITE]        SUITE: trixie (default) or bookworm
#   CUDACONV_DEBIAN_DIR   where the chroot is made (default: a new folder
#                         under /var/tmp, removed at the end)
#   CUDACONV_DEBIAN_KEEP=1  keep the chroot, for tools/debian-gpu-build.sh
set -euo pipefail
suite=${1:-trixie}
root=$(cd "$(dirname "$0")/.." && pwd)
say() { echo "debian-check ($suite): $*"; }
skip() { say "did not run: $*"; exit 0; }

[ "$(id -u)" = 0 ] || skip "needs root for debootstrap, chroot and bind mounts"
# the Debian archive apt uses here (deb822 or one-line sources)
mirror=$(sed -n 's/^URIs: *\(\S*\/debian\)\/\?$/\1/p' /etc/apt/sources.list.d/*.sources \
  2>/dev/null | head -n 1)
[ -n "$mirror" ] || mirror=$(sed -n 's/^deb \(\[[^]]*\] \)\?\(\S*\/debian\)\/\? .*/\2/p' \
  /etc/apt/sources.list 2>/dev/null | head -n 1)
mirror=${mirror:-http://deb.debian.org/debian}
python3 -c 'import sys, urllib.request
urllib.request.urlopen(sys.argv[1], timeout=30).read(1)' \
  "$mirror/dists/$suite/Release" 2>/dev/null ||
  skip "Debian's archive ($mirror/dists/$suite) cannot be reached from here"
if ! command -v debootstrap >/dev/null; then
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
      --no-install-recommends debootstrap; } >/dev/null 2>&1 ||
    skip "debootstrap is not installed and apt-get could not install it"
fi
[ -f "/usr/share/debootstrap/scripts/$suite" ] ||
  skip "this debootstrap does not know the suite '$suite'"

dir=${CUDACONV_DEBIAN_DIR:-$(mktemp -d /var/tmp/cudaconv-debian-XXXXXX)}
mkdir -p "$dir"
chroot_dir=$(cd "$dir" && pwd)
dir=$chroot_dir
# shellcheck source=tools/chroot-common.sh
. "$root/tools/chroot-common.sh"
cleanup() {
  chroot_unmount_all
  [ "${CUDACONV_DEBIAN_KEEP:-0}" = 1 ] && return
  # never delete through a mount that is still there (/dev, the toolkit)
  if chroot_has_mounts; then
    say "left $dir in place: something is still mounted under it"
  else
    rm -rf "$dir"
  fi
}
trap cleanup EXIT

start=$(date +%s)
if [ ! -x "$dir/bin/bash" ]; then
  say "debootstrap --variant=minbase $suite from $mirror into $dir"
  debootstrap --variant=minbase "$suite" "$dir" "$mirror" >"$dir.debootstrap.log" 2>&1 ||
    { tail -n 20 "$dir.debootstrap.log"; say "debootstrap failed"; exit 1; }
  rm -f "$dir.debootstrap.log"
fi
say "chroot ready in $(($(date +%s) - start)) s"
chroot_mount_system || skip "mounts are not allowed here (proc, dev, sys in the chroot)"
rm -rf "$dir/root/cudaconv"
git clone --quiet "$root" "$dir/root/cudaconv"

in_chroot() { chroot_run /root/cudaconv "$1"; }
say "Debian $(cat "$dir/etc/debian_version"), $(uname -m), clone of $(git -C "$root" rev-parse --short HEAD)"
status=0
for command in pipelines/demo.sh tests/run.sh; do
  start=$(date +%s)
  rc=0
  in_chroot "$command" >"$dir/check.log" 2>&1 || rc=$?
  seconds=$(($(date +%s) - start))
  if [ $rc != 0 ]; then
    tail -n 40 "$dir/check.log" | sed "s/^/  | /"; status=1
  fi
  case $command in
    pipelines/demo.sh) grep -E '^cudaconv' "$dir/check.log" || true ;;
    tests/run.sh) grep -E '^cudaconv: building' "$dir/check.log" || true
      summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$dir/check.log" | tail -n 1) ;;
  esac
  say "$command: exit $rc in $((seconds / 60)) min $((seconds % 60)) s"
  if [ "$command" = pipelines/demo.sh ]; then
    # the demo's run is the first build from a fresh clone
    say "versions: $(in_chroot 'echo "GStreamer $(pkg-config --modversion gstreamer-1.0), GLib $(pkg-config --modversion glib-2.0), $(gcc --version | head -n 1), meson $(meson --version), $(/usr/local/cuda/bin/nvcc --version 2>/dev/null | tail -n 1 || echo no nvcc)"')"
    size=$(stat -c %s "$dir/root/cudaconv/build/plugin/libgstcudaconv.so" 2>/dev/null || echo 0)
    say "libgstcudaconv.so: $size bytes ($(python3 -c "print(round($size / 1e6, 1))") MB)"
  fi
done
say "README's install, then gst-inspect-1.0 without GST_PLUGIN_PATH:"
# as README says it, without --no-rebuild: only the regenerated install plan
# knows the new prefix
in_chroot 'meson configure build --prefix=/usr >/dev/null && meson install -C build >/dev/null &&
  env -u GST_PLUGIN_PATH gst-inspect-1.0 cudaconv | grep -E "^ *Filename"' || status=1
echo "${summary:-0 passed, 1 failed, 0 skipped}"
exit $status
