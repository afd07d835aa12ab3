#!/usr/bin/env bash
# Runs a test program under valgrind memcheck: invalid reads and writes,
# uninitialised bytes that reach a decision or a system call, and definite
# leaks fail it. Exits 77 (skipped) where valgrind is not installed, as on
# the GPU machine; tests/bootstrap.sh installs it everywhere else.
if ! command -v valgrind >/dev/null; then
  echo "SKIP: valgrind is not installed"
  exit 77
fi
exec valgrind --quiet --error-exitcode=1 --leak-check=full \
  --errors-for-leak-kinds=definite --show-leak-kinds=definite \
  --suppressions="$(dirname "${BASH_SOURCE[0]}")/valgrind.supp" "$@"
