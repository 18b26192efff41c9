#!/usr/bin/env bash
# Stryker on one module of impl_js/src: mutation/js/run.sh <module> <domain>...
#   e.g. mutation/js/run.sh backoff backoff-timing
# Each mutant runs `node --test` on the vectors of the given domains (a temporary
# folder holding only those files, HANZO_CONFORMANCE_VECTORS) and on the module's own
# unit test. Needs `npm ci` in mutation/js once. Not part of the test suite.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
[ $# -ge 2 ] || { echo "usage: $0 <module> <domain>..." >&2; exit 2; }
module="$1"; shift
[ -f "$root/impl_js/src/$module.js" ] || { echo "no impl_js/src/$module.js" >&2; exit 2; }
[ -x "$here/node_modules/.bin/stryker" ] || { echo "run: (cd mutation/js && npm ci)" >&2; exit 2; }
[ -d "$root/impl_js/node_modules" ] || { echo "run: (cd impl_js && npm ci)" >&2; exit 2; }
vectors="$(mktemp -d)"
trap 'rm -rf "$vectors"' EXIT
for domain in "$@"; do
  [ -f "$root/vectors/$domain.json" ] || { echo "no vectors/$domain.json" >&2; exit 2; }
  cp "$root/vectors/$domain.json" "$vectors/"
done
cd "$root"
HANZO_STRYKER_MODULE="$module" HANZO_CONFORMANCE_VECTORS="$vectors" HANZO_CONFORMANCE_FAIL_FAST=1 \
  nice -n 10 "$here/node_modules/.bin/stryker" run "$here/stryker.config.mjs"
