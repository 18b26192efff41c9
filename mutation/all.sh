#!/usr/bin/env bash
# Every crate of impl_rust/ (cargo-mutants) or every module of impl_js/src/ (Stryker),
# one after another, each against the vector files that reach it (mutation/reach.tsv):
#   mutation/all.sh rust|js [<crate or module>...]   (none: every row of that kind; else those, in that order)
# Hours of CPU on 2 cores; the results stay where rust.sh and js/run.sh put them, and
# mutation/scores.py reads them into the README's tables. Not part of the test suite.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
kind="${1:?usage: $0 rust|js [<crate or module>...]}"; shift
case "$kind" in rust) run="$here/rust.sh" ;; js) run="$here/js/run.sh" ;; *) echo "rust or js, not $kind" >&2; exit 2 ;; esac
rows="$(grep -v '^#' "$here/reach.tsv" | awk -v k="$kind" '$1 == k')"
if [ $# -gt 0 ]; then  # the named ones, in the order named (cheap ones first, say)
  rows="$(for name in "$@"; do
    printf '%s\n' "$rows" | awk -v n="$name" '$2 == n' | grep . || { echo "no $kind row $name in reach.tsv" >&2; exit 2; }
  done)"
fi
status=0
while read -r k name files; do
  echo "== $kind $name: $files ($(date -u +%H:%M:%S))"
  # cargo-mutants exits 2 when a mutant was missed, Stryker 0: go on to the next either way.
  # shellcheck disable=SC2086
  "$run" "$name" $files </dev/null || { rc=$?; [ "$rc" = 2 ] || status=$rc; }
done <<<"$rows"
exit "$status"
