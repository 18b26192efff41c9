#!/usr/bin/env bash
# cargo-mutants on one crate of impl_rust/: mutation/rust.sh <crate> <domain>... [-- <cargo-mutants args>]
#   e.g. mutation/rust.sh hanzo-pkce oauth-pkce
# Each mutant is built and tested with the crate's own tests and hanzo-conformance's
# (whose tests/vectors.rs runs the vectors natively), on the vectors of the given
# domains only (a temporary folder holding those files, HANZO_CONFORMANCE_VECTORS).
# cargo-mutants works in a copy of the tree (the checkout is never modified) and
# builds into target/mutants/build (CARGO_TARGET_DIR), never into target/ itself:
# cargo names a workspace crate's artifacts by its path relative to the workspace, so
# the copy's mutated builds would replace the checkout's, and look up to date to it.
# The first run builds the dependencies there once. Results:
# target/mutants/<crate>/mutants.out/ (outcomes.json,
# caught.txt, missed.txt, timeout.txt, unviable.txt). Needs `cargo install
# cargo-mutants --locked` once. Not part of the test suite.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
[ $# -ge 2 ] || { echo "usage: $0 <crate> <domain>... [-- <cargo-mutants args>]" >&2; exit 2; }
crate="$1"; shift
[ -d "$root/impl_rust/$crate" ] || { echo "no impl_rust/$crate" >&2; exit 2; }
command -v cargo-mutants >/dev/null || { echo "run: cargo install cargo-mutants --locked" >&2; exit 2; }
vectors="$(mktemp -d)"
trap 'rm -rf "$vectors"' EXIT
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  [ -f "$root/vectors/$1.json" ] || { echo "no vectors/$1.json" >&2; exit 2; }
  cp "$root/vectors/$1.json" "$vectors/"
  shift
done
[ $# -gt 0 ] && shift  # the "--"
cd "$root"
mkdir -p "target/mutants/$crate"
# No debug info: each mutant rebuilds hanzo-conformance and links its test binaries, and
# without it those builds are cheaper (no mutant needs a debugger).
HANZO_CONFORMANCE_VECTORS="$vectors" HANZO_CONFORMANCE_FAIL_FAST=1 CARGO_TARGET_DIR="$root/target/mutants/build" \
  CARGO_PROFILE_DEV_DEBUG=0 CARGO_PROFILE_TEST_DEBUG=0 \
  nice -n 10 cargo mutants --package "$crate" \
  --test-package "$crate" --test-package hanzo-conformance \
  --jobs 1 --timeout 120 --build-timeout 900 --no-shuffle \
  --output "target/mutants/$crate" "$@"
