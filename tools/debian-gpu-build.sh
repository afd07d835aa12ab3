#!/usr/bin/env bash
# Builds this working tree for the GPU machine against another Debian's
# GStreamer: inside a chroot kept by tools/debian-check.sh
# (CUDACONV_DEBIAN_KEEP=1), with the tree bound at its own path so the
# build directory's paths hold on the GPU machine too. Makes BUILD
# (-Dgpu_archs=90, the H100/H200's) and the GStreamer bundle BUNDLE
# (tools/gpu-bundle.sh) from that Debian's packages, then prints the
# GStreamer version and the newest glibc symbol version they need (the
# bundle uses the GPU machine's glibc). Then, on the GPU machine:
#   CUDACONV_BUILD_DIR=BUILD CUDACONV_GST_BUNDLE=BUNDLE tools/gpu-run.sh
#   tools/debian-gpu-build.sh CHROOT BUILD BUNDLE     (as root)
set -euo pipefail
chroot_dir=$(cd "${1:?usage: $0 CHROOT BUILD BUNDLE}" && pwd)
build=${2:?usage: $0 CHROOT BUILD BUNDLE}
bundle=${3:?usage: $0 CHROOT BUILD BUNDLE}
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tools/chroot-common.sh
. "$root/tools/chroot-common.sh"
trap chroot_unmount_all EXIT
chroot_mount_system
chroot_bind "$root"
# gpu-bundle.sh takes the common bundle script from ../shared/device
[ -d "$root/../shared" ] && chroot_bind "$(cd "$root/../shared" && pwd)" ro
chroot_run "$root" "export PATH=/usr/local/cuda/bin:\$PATH &&
  { [ -f $build/build.ninja ] || meson setup $build -Dgpu_archs=90 >/dev/null; } &&
  meson compile -C $build >/dev/null && tools/gpu-bundle.sh $bundle &&
  echo \"GStreamer \$(pkg-config --modversion gstreamer-1.0), GLib \$(pkg-config --modversion glib-2.0)\""
echo "newest glibc symbol version needed: $(find "$root/$bundle" "$root/$build" \
  -type f \( -name '*.so*' -o -perm -u+x \) -exec objdump -T {} + 2>/dev/null |
  grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -n 1)"
