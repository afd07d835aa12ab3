#!/usr/bin/env bash
# Installs what cudaconv needs (Debian 12 packages) when it is missing, then
# configures and builds the project in build/. Used by pipelines/demo.sh and
# tests/run.sh; safe to run again (it installs and rebuilds only what changed).
#
# The CUDA toolkit is optional: with nvcc on PATH or in /usr/local/cuda/bin the
# CUDA backend is built, otherwise only the CPU backend.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${CUDACONV_BUILD_DIR:-$root/build}

# g++: meson builds CUDA only beside a C++ compiler; dpkg-dev: meson asks
# dpkg-architecture for the multiarch libdir (lib/x86_64-linux-gnu), where
# GStreamer looks for plugins, and takes lib64 without it. The privacy blur
# (its test, pipelines and picture) takes facedetect from
# gstreamer1.0-opencv, its face cascade from opencv-data and the photo
# messi5.jpg from opencv-doc.
packages="gcc g++ libc6-dev dpkg-dev pkg-config meson ninja-build
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev
  gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good
  gstreamer1.0-plugins-bad libgstreamer-plugins-bad1.0-dev gstreamer1.0-x
  valgrind python3-gi
  gir1.2-gst-plugins-base-1.0
  gstreamer1.0-opencv opencv-data opencv-doc"
missing=$(for p in $packages; do dpkg -s "$p" >/dev/null 2>&1 || echo "$p"; done)
if [ -n "$missing" ]; then
  echo "cudaconv: installing $(echo $missing)" >&2
  if [ "$(id -u)" = 0 ]; then sudo=""; elif command -v sudo >/dev/null; then sudo=sudo
  else echo "cudaconv: need root (or sudo) to install: $(echo $missing)" >&2; exit 1; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

if ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
# meson's and ninja's output goes to a log, shown only when the build fails
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if [ ! -f "$build/build.ninja" ]; then
  # shellcheck disable=SC2086
  meson setup "$build" "$root" ${CUDACONV_MESON_ARGS:-} >"$log" 2>&1 ||
    { cat "$log" >&2; exit 1; }
  # what meson found decides what is announced
  if grep -q '^#define HAVE_CUDA 1' "$build/config.h"; then
    echo "cudaconv: building in $build with the CUDA backend (the first build" \
      "compiles the CUDA kernels: a few minutes on 2 cores)" >&2
  else
    reason=$(sed -n 's/^#define CUDACONV_NO_CUDA_REASON "\(.*\)"$/\1/p' "$build/config.h")
    echo "cudaconv: building in $build with the CPU backend only: $reason" >&2
  fi
fi
meson compile -C "$build" >>"$log" 2>&1 ||
  { tail -n 60 "$log" >&2; echo "cudaconv: the build failed" >&2; exit 1; }
