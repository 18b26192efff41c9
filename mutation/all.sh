#!/usr/bin/env bash
# Every crate of impl_rust/ (cargo-mutants) or every module of impl_js/src/ (Stryker),
# one after another, each against the vector files that reach it (mutation/reach.tsv):
#   mutation/all.sh rust|js [<crate or module>...]   (none: every row of that kind)
# Hours of CPU on 2 cores; the results stay where rust.sh and js/run.sh put them, and
# mutation/scores.py reads them into the README's tables. Not part of the test suite.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
kind="${1:?usage: $0 rust|js [<crate or module>...]}"; shift
case "$kind" in rust) run="$here/rust.sh" ;; js) run="$here/js/run.sh" ;; *) echo "rust or js, not $kind" >&2; exit 2 ;; esac
status=0
while read -r k name files; do
  [ "$k" = "$kind" ] || continue
  if [ $# -gt 0 ] && ! printf '%s\n' "$@" | grep -qx "$name"; then continue; fi
  echo "== $kind $name: $files ($(date -u +%H:%M:%S))"
  # cargo-mutants exits 2 when a mutant was missed, Stryker 0: go on to the next either way.
  # shellcheck disable=SC2086
  "$run" "$name" $files </dev/null || { rc=$?; [ "$rc" = 2 ] || status=$rc; }
done < <(grep -v '^#' "$here/reach.tsv")
exit "$status"
