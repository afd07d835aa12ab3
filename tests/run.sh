#!/usr/bin/env bash
# Runs the whole test suite: installs what is missing, builds, runs meson test.
# Tests that need a GPU are reported as skipped (exit 77) where none is usable.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/tests/bootstrap.sh"
meson test -C "${CUDACONV_BUILD_DIR:-$root/build}" --print-errorlogs "$@"
