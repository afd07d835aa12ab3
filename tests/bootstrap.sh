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

packages="gcc libc6-dev pkg-config meson ninja-build
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev
  gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good
  gstreamer1.0-plugins-bad libgstreamer-plugins-bad1.0-dev gstreamer1.0-x
  valgrind python3-gi
  gir1.2-gst-plugins-base-1.0"
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
  note=""
  command -v nvcc >/dev/null &&
    note=" (the first build compiles the CUDA kernels: about 5 minutes on 2 cores)"
  echo "cudaconv: building in $build$note" >&2
  # shellcheck disable=SC2086
  meson setup "$build" "$root" ${CUDACONV_MESON_ARGS:-} >"$log" 2>&1 ||
    { cat "$log" >&2; exit 1; }
fi
meson compile -C "$build" >>"$log" 2>&1 ||
  { tail -n 60 "$log" >&2; echo "cudaconv: the build failed" >&2; exit 1; }
