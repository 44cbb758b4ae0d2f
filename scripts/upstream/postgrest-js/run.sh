#!/usr/bin/env bash
# Runs the upstream postgrest-js jest suite against the gateway: supabase-js's
# own tests, whose inline snapshots are real PostgREST 13/14 answers. No code
# of theirs is kept here: SUPABASE_JS names a supabase-js checkout (or its
# `git archive`; only packages/core/postgrest-js, tsconfig.base.json,
# tsconfig.json and package.json are read). Not run by `make test`: no package
# registry serves those tests.
#
#   SUPABASE_JS=<checkout> scripts/upstream/postgrest-js/run.sh
#
#   ./run.sh                 # whole suite
#   ./run.sh basic filters   # only test files whose path matches (jest patterns)
#   ISOLATE=1 ./run.sh       # a fresh gateway + database for each test file
#   HARNESS_FIXUP=1 ./run.sh # diagnostic: redo the cleanup max-affected.test.ts skips when it fails
#   KEEP=1 ./run.sh          # leave gateway + proxy running afterwards (stop: ./run.sh --stop)
#   ./run.sh --stop          # stop a kept gateway/proxy and remove its data
#
# Each run: stops what a previous run left, starts target/debug/gateway on a
# fresh data dir (embedded PostgreSQL) with sql/0*.sql + policies/ (minus the shop
# application: sql/1*, policies/shop.sql, whose tables collide with upstream's) plus
# the upstream test schema and seed as sql/900_* and sql/901_*, exposing
# public,personal, listening on 127.0.0.1:54329; starts proxy.js on :54321 (adds
# apikey: <anon key> when absent, logs every exchange); runs jest (no -u, --ci);
# writes, under target/upstream-postgrest-js/results/,
#   results/jest-output.txt    jest's console output (verbose)
#   results/jest.json          jest's JSON results
#   results/exchanges.jsonl    every HTTP exchange, tagged with its test
#   results/failures.md        per failing test: error + its HTTP exchanges
#   results/gateway.log        the gateway's log
#   results/score.txt          passed/failed per file; results/binary.txt: which binary
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
cd "$HERE"
MAIN=$(cd "$HERE/../../.." && pwd)
GATEWAY_BIN=${GATEWAY_BIN:-$MAIN/target/debug/gateway}
GW_PORT=${GW_PORT:-54329}
PROXY_PORT=54321
RUN=$MAIN/target/upstream-postgrest-js/run
RESULTS=${RESULTS:-$MAIN/target/upstream-postgrest-js/results}
PKG=${SUPABASE_JS:?set SUPABASE_JS to a supabase-js checkout}/packages/core/postgrest-js
export POSTGREST_JS=$PKG

stop_all() {
  if [ -f "$RUN/proxy.pid" ]; then
    kill "$(cat "$RUN/proxy.pid")" 2>/dev/null || true
    rm -f "$RUN/proxy.pid"
  fi
  if [ -f "$RUN/gateway.pid" ]; then
    pid=$(cat "$RUN/gateway.pid")
    if kill -INT "$pid" 2>/dev/null; then
      for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -KILL "$pid" 2>/dev/null || true
    fi
    rm -f "$RUN/gateway.pid"
  fi
  # A cluster left running by a killed gateway: stop it, then remove its files
  # (as root the cluster lives in the postgres user's home, linked from data/postgres).
  link=$(readlink "$RUN/data/postgres" 2>/dev/null || true)
  pgdata=${link:-$RUN/data/postgres}
  if [ -f "$pgdata/postmaster.pid" ]; then
    bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
    runuser -u postgres -- "$bindir/pg_ctl" stop -D "$pgdata" -m immediate >/dev/null 2>&1 || true
  fi
  [ -n "$link" ] && rm -rf "$link"
  rm -rf "$RUN/data"
}

if [ "${1:-}" = "--stop" ]; then stop_all; exit 0; fi

[ -x "$GATEWAY_BIN" ] || { echo "no gateway binary at $GATEWAY_BIN (cd $MAIN && cargo build -p gateway)" >&2; exit 1; }
[ -d "$PKG/test" ] || { echo "no postgrest-js tests under $PKG" >&2; exit 1; }
[ -d node_modules/jest ] || npm ci --no-audit --no-fund --loglevel=error

prepare_schema() {
  rm -rf "$RUN/schema"
  # The gateway's infrastructure migrations (sql/0*: roles, schemas, auth, storage)
  # and its policies, but not the shop application (sql/1*, policies/shop.sql):
  # its tables (products, product_categories, ...) collide with the upstream
  # test schema's, which a Supabase project would not have.
  mkdir -p "$RUN/schema/sql" "$RUN/schema/policies"
  cp "$MAIN"/sql/0*.sql "$RUN/schema/sql/"
  for f in "$MAIN"/policies/*.sql; do
    [ "$(basename "$f")" = shop.sql ] || cp "$f" "$RUN/schema/policies/"
  done
  # The upstream schema, with the one change the embedded cluster needs: it has no
  # PostGIS, so `create extension postgis` is dropped and shops.shop_geom becomes
  # text (only transforms.test.ts 'geojson' reads it).
  sed -e 's/^create extension if not exists postgis schema extensions;/-- harness: no PostGIS in the embedded cluster\n-- &/' \
      -e 's/shop_geom extensions\.geometry(POINT, 4326)/shop_geom text -- harness: was extensions.geometry(POINT, 4326)/' \
      "$PKG/test/supabase/migrations/00000000000000_schema.sql" >"$RUN/schema/sql/900_upstream_schema.sql"
  cp "$PKG/test/supabase/seed.sql" "$RUN/schema/sql/901_upstream_seed.sql"
}

# Starts a gateway on a fresh database and the proxy in front of it.
start_stack() {
  stop_all
  mkdir -p "$RUN"
  # Upstream's config.toml: schemas public, personal; max_rows 1000; its schema
  # sets pgrst.db_aggregates_enabled and pgrst.db_plan_enabled (the gateway reads env vars).
  GATEWAY_DB_SCHEMAS=public,personal GATEWAY_MAX_ROWS=1000 GATEWAY_DB_AGGREGATES_ENABLED=true GATEWAY_DB_PLAN_ENABLED=true \
    "$RUN/gateway-bin" serve --data-dir "$RUN/data" --sql-root "$RUN/schema" --listen "127.0.0.1:$GW_PORT" \
    >"$RUN/banner" 2>>"$RESULTS/gateway.log" &
  echo $! >"$RUN/gateway.pid"
  local gw
  gw=$(cat "$RUN/gateway.pid")
  for _ in $(seq 900); do
    grep -q 'service_role key:' "$RUN/banner" 2>/dev/null && break
    kill -0 "$gw" 2>/dev/null || break
    sleep 0.1
  done
  if ! grep -q 'service_role key:' "$RUN/banner"; then
    echo "the gateway did not start; its log:" >&2
    tail -50 "$RESULTS/gateway.log" >&2
    stop_all
    exit 1
  fi
  ANON_KEY=$(awk '/anon key:/ {print $3; exit}' "$RUN/banner")
  cp "$RUN/banner" "$RESULTS/banner.txt"
  ANON_KEY=$ANON_KEY UPSTREAM_PORT=$GW_PORT LISTEN_PORT=$PROXY_PORT LOG_FILE="$RESULTS/exchanges.jsonl" \
    node proxy.js >>"$RUN/proxy.log" 2>&1 &
  echo $! >"$RUN/proxy.pid"
  for _ in $(seq 50); do
    curl -s -o /dev/null "http://127.0.0.1:$PROXY_PORT/rest/v1/" && break
    sleep 0.1
  done
}

run_jest() { # outfile-stem, jest args...
  local stem=$1; shift
  npx jest --config "$HERE/jest.config.js" --ci --runInBand --verbose \
    --json --outputFile="$stem.json" "$@" >"$stem-output.txt" 2>&1
}

stop_all
mkdir -p "$RUN" "$RESULTS"
rm -rf "$RESULTS"/*
prepare_schema
: >"$RESULTS/exchanges.jsonl"
# A private copy, so a rebuild during the run cannot change the binary under test.
cp "$GATEWAY_BIN" "$RUN/gateway-bin"
{ echo "gateway binary $GATEWAY_BIN built $(stat -c '%y' "$GATEWAY_BIN" | cut -d. -f1), sha256 $(sha256sum "$RUN/gateway-bin" | cut -c1-16)"
  echo "main HEAD $(git -C "$MAIN" rev-parse --short HEAD 2>/dev/null); uncommitted: $(git -C "$MAIN" status --short -- gateway sql policies 2>/dev/null | wc -l) files"
} | tee "$RESULTS/binary.txt"

if [ "${ISOLATE:-0}" = 1 ]; then
  # One fresh gateway + database per test file, so no file sees another's leftovers.
  mkdir -p "$RESULTS/isolated"
  files=$(cd "$PKG/test" && ls *.test.ts)
  status=0
  for f in $files; do
    if [ $# -gt 0 ]; then
      match=0; for p in "$@"; do [[ $f == *$p* ]] && match=1; done
      [ $match = 1 ] || continue
    fi
    start_stack
    echo "== $f (isolated)"
    run_jest "$RESULTS/isolated/${f%.test.ts}" --runTestsByPath "$PKG/test/$f" || status=1
  done
  node -e '
    const fs = require("fs"), dir = process.argv[1];
    const parts = fs.readdirSync(dir).filter(f => f.endsWith(".json")).map(f => JSON.parse(fs.readFileSync(dir + "/" + f)));
    const m = { testResults: [], numPassedTests: 0, numFailedTests: 0, numPendingTests: 0, numTodoTests: 0, numTotalTests: 0 };
    for (const p of parts) { m.testResults.push(...p.testResults); for (const k of ["numPassedTests","numFailedTests","numPendingTests","numTodoTests","numTotalTests"]) m[k] += p[k]; }
    fs.writeFileSync(process.argv[2], JSON.stringify(m));
  ' "$RESULTS/isolated" "$RESULTS/jest.json"
  cat "$RESULTS"/isolated/*-output.txt >"$RESULTS/jest-output.txt"
else
  start_stack
  echo "running jest (whole suite, upstream order, one database)..."
  run_jest "$RESULTS/jest" "$@"
  status=$?
fi

node "$HERE/failures.js" "$RESULTS/jest.json" "$RESULTS/exchanges.jsonl" >"$RESULTS/failures.md" || true
node "$HERE/../score.js" "$RESULTS/jest.json" | column -t -s $'\t' | tee "$RESULTS/score.txt"

if [ "${KEEP:-0}" = 1 ]; then
  echo "KEEP=1: gateway (:$GW_PORT) and proxy (:$PROXY_PORT) left running; ./run.sh --stop to stop"
else
  stop_all
fi
exit $status
