#!/usr/bin/env bash
# Runs the whole test suite: installs what is missing, builds, runs meson test.
# Tests that need a GPU are reported as skipped (exit 77) where none is usable.
# Without arguments (which select tests of build/), the CPU element tests
# (suite element-cpu) run again in a second build, build/ubsan, made with
# UBSan and without the CUDA backend (about a minute to build on 2 cores).
# Ends with one line 'N passed, N failed, N skipped' for both.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${CUDACONV_BUILD_DIR:-$root/build}
ubsan=$build/ubsan
"$root/tests/bootstrap.sh"
status=0
meson test -C "$build" --print-errorlogs "$@" || status=$?
logs=("$build/meson-logs/testlog.json")
if [ $# = 0 ]; then
  echo "== the CPU element tests under UBSan, in $ubsan"
  # undefined behaviour fails a test there (tests/meson.build sets
  # UBSAN_OPTIONS); valgrind cannot run such a build, hence a build of its own
  log=$(mktemp)
  trap 'rm -f "$log"' EXIT
  if [ ! -f "$ubsan/build.ninja" ]; then
    meson setup "$ubsan" "$root" -Db_sanitize=undefined -Dcuda=disabled \
      >"$log" 2>&1 || { cat "$log" >&2; exit 1; }
  fi
  meson compile -C "$ubsan" >"$log" 2>&1 ||
    { tail -n 60 "$log" >&2; echo "cudaconv: the UBSan build failed" >&2; exit 1; }
  meson test -C "$ubsan" --no-rebuild --print-errorlogs --suite element-cpu || status=$?
  logs+=("$ubsan/meson-logs/testlog.json")
fi
python3 - "${logs[@]}" <<'PY'
import json, sys
results = [json.loads(line)["result"] for log in sys.argv[1:] for line in open(log)
           if line.strip()]
failed = sum(r in ("FAIL", "TIMEOUT", "ERROR", "UNEXPECTEDPASS") for r in results)
print(f"{results.count('OK') + results.count('EXPECTEDFAIL')} passed, {failed} failed, "
      f"{results.count('SKIP')} skipped")
PY
exit $status
