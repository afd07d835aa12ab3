#!/usr/bin/env bash
# Runs the whole test suite: installs what is missing, builds, runs meson test.
# Tests that need a GPU are reported as skipped (exit 77) where none is usable.
# Ends with one line 'N passed, N failed, N skipped'.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${CUDACONV_BUILD_DIR:-$root/build}
"$root/tests/bootstrap.sh"
status=0
meson test -C "$build" --print-errorlogs "$@" || status=$?
python3 - "$build/meson-logs/testlog.json" <<'PY'
import json, sys
results = [json.loads(line)["result"] for line in open(sys.argv[1]) if line.strip()]
failed = sum(r in ("FAIL", "TIMEOUT", "ERROR", "UNEXPECTEDPASS") for r in results)
print(f"{results.count('OK') + results.count('EXPECTEDFAIL')} passed, {failed} failed, "
      f"{results.count('SKIP')} skipped")
PY
exit $status
