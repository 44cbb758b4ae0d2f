#!/usr/bin/env bash
# Runs the upstream functions-js jest suite against the gateway: supabase-js's
# own tests, written against supabase/deno-relay in Docker. No code of theirs
# is kept here: SUPABASE_JS names a supabase-js checkout (or its `git
# archive`; packages/core/functions-js and tsconfig.base.json are read). Not
# run by `make test`: no package registry serves those tests.
#
#   SUPABASE_JS=<checkout> scripts/upstream/functions-js/run.sh
#   SUPABASE_JS=<checkout> scripts/upstream/functions-js/run.sh hello   # only matching files
#
# In a private copy of the package, three things change:
#   - test/relay/container.ts is relay.ts: each `runRelay` starts
#     target/debug/gateway with the suite's JWT secret and the one function,
#     its deno.land std import mapped to Deno.serve by a deno.json;
#   - the tests' client URL, the relay's root, gets the gateway's /functions/v1;
#   - the suite's JWT secrets are 40 random characters instead of 10 (the
#     gateway, like GoTrue, refuses a secret shorter than 32).
# Results land in target/upstream-functions-js/results/ (jest-output.txt,
# jest.json, score.txt).
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
MAIN=$(cd "$HERE/../../.." && pwd)
export GATEWAY_BIN=${GATEWAY_BIN:-$MAIN/target/debug/gateway}
RUN=$MAIN/target/upstream-functions-js/run
RESULTS=${RESULTS:-$MAIN/target/upstream-functions-js/results}
SRC=${SUPABASE_JS:?set SUPABASE_JS to a supabase-js checkout}

[ -x "$GATEWAY_BIN" ] || { echo "no gateway binary at $GATEWAY_BIN (cargo build -p gateway)" >&2; exit 1; }
[ -d "$SRC/packages/core/functions-js/test" ] || { echo "no functions-js tests under $SRC" >&2; exit 1; }
(cd "$HERE" && { [ -d node_modules/jest ] || npm ci --no-audit --no-fund --loglevel=error; })

rm -rf "$RUN" "$RESULTS"
mkdir -p "$RUN/src/packages/core" "$RESULTS"
cp "$SRC/tsconfig.base.json" "$RUN/src/"
cp -r "$SRC/packages/core/functions-js" "$RUN/src/packages/core/"
PKG=$RUN/src/packages/core/functions-js
ln -s "$HERE/node_modules" "$RUN/src/node_modules"
cp "$HERE/relay.ts" "$PKG/test/relay/container.ts"
sed -i -e 's|http://localhost:${relay.container.getMappedPort(8081)}|&/functions/v1|g' \
  -e 's|const jwtSecret = nanoid(10)|const jwtSecret = nanoid(40)|' "$PKG"/test/spec/*.ts

(cd "$HERE" && FUNCTIONS_JS=$PKG npx jest --ci --config "$HERE/jest.config.js" \
  --json --outputFile="$RESULTS/jest.json" "$@" >"$RESULTS/jest-output.txt" 2>&1)
node "$HERE/../score.js" "$RESULTS/jest.json" | column -t -s $'\t' | tee "$RESULTS/score.txt"
