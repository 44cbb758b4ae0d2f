#!/usr/bin/env bash
# Runs the upstream storage-js jest suite against the gateway: supabase-js's own
# tests, whose expectations (and snapshots) are real Storage answers. No code of
# theirs is kept here: SUPABASE_JS names a supabase-js checkout (or its `git
# archive`; packages/core/storage-js, tsconfig.base.json and tsconfig.json are
# read). Not run by `make test`: no package registry serves those tests.
#
#   SUPABASE_JS=<checkout> scripts/upstream/storage-js/run.sh
#   SUPABASE_JS=<checkout> scripts/upstream/storage-js/run.sh storageFileApi   # only matching files
#
# The tests hard-code http://127.0.0.1:54321/storage/v1 and the Supabase CLI's
# demo service_role key, so the gateway runs with the CLI's demo JWT secret on
# port 54321; as root, everything runs in a network namespace of its own
# (`unshare -n`), so another service on 54321 is neither hit nor in the way.
# Each run starts target/debug/gateway on a fresh data dir (embedded
# PostgreSQL) with sql/0*.sql and policies/ (minus the shop's), plus upstream's
# test/supabase/seed.sql as sql/900_upstream_seed.sql (users, buckets, objects,
# policies); writes, under target/upstream-storage-js/results/,
#   jest-output.txt  jest's console output (verbose)
#   jest.json        jest's JSON results
#   gateway.log      the gateway's log
#   score.txt        passed/failed per file
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
MAIN=$(cd "$HERE/../../.." && pwd)
GATEWAY_BIN=${GATEWAY_BIN:-$MAIN/target/debug/gateway}
RUN=$MAIN/target/upstream-storage-js/run
RESULTS=${RESULTS:-$MAIN/target/upstream-storage-js/results}
SRC=${SUPABASE_JS:?set SUPABASE_JS to a supabase-js checkout}
# The Supabase CLI's documented demo secret, which signs the key the tests carry.
DEMO_JWT_SECRET=super-secret-jwt-token-with-at-least-32-characters-long

if [ "${_IN_NETNS:-0}" != 1 ] && [ "$(id -u)" = 0 ] && command -v unshare >/dev/null; then
  exec env _IN_NETNS=1 unshare -n "$0" "$@"
fi
if [ "${_IN_NETNS:-0}" = 1 ]; then
  ip link set lo up
fi

[ -x "$GATEWAY_BIN" ] || { echo "no gateway binary at $GATEWAY_BIN (cargo build -p gateway)" >&2; exit 1; }
[ -d "$SRC/packages/core/storage-js/test" ] || { echo "no storage-js tests under $SRC" >&2; exit 1; }
(cd "$HERE" && { [ -d node_modules/jest ] || npm ci --no-audit --no-fund --loglevel=error; })

stop_gateway() {
  if [ -f "$RUN/gateway.pid" ]; then
    pid=$(cat "$RUN/gateway.pid")
    if kill -INT "$pid" 2>/dev/null; then
      for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -KILL "$pid" 2>/dev/null || true
    fi
    rm -f "$RUN/gateway.pid"
  fi
  link=$(readlink "$RUN/data/postgres" 2>/dev/null || true)
  pgdata=${link:-$RUN/data/postgres}
  if [ -f "$pgdata/postmaster.pid" ]; then
    bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
    runuser -u postgres -- "$bindir/pg_ctl" stop -D "$pgdata" -m immediate >/dev/null 2>&1 || true
  fi
  [ -n "$link" ] && rm -rf "$link"
  rm -rf "$RUN/data" "$RUN/storage"
}
trap stop_gateway EXIT

stop_gateway
rm -rf "$RUN" "$RESULTS"
mkdir -p "$RUN/schema/sql" "$RUN/schema/policies" "$RESULTS"
# A private copy of the package, so jest's cache and ts-jest see one tree.
mkdir -p "$RUN/src/packages/core"
cp "$SRC/tsconfig.base.json" "$SRC/tsconfig.json" "$RUN/src/"
cp -r "$SRC/packages/core/storage-js" "$RUN/src/packages/core/"
PKG=$RUN/src/packages/core/storage-js
# TypeScript resolves types and tslib from the tree's own node_modules.
ln -s "$HERE/node_modules" "$RUN/src/node_modules"

# The gateway's infrastructure migrations and policies, not the shop's (a
# Supabase project under test would not have it); then upstream's seed, which
# hashes its users' passwords with pgcrypto's crypt().
cp "$MAIN"/sql/0*.sql "$RUN/schema/sql/"
for f in "$MAIN"/policies/*.sql; do
  case $(basename "$f") in shop.sql|storage.sql) ;; *) cp "$f" "$RUN/schema/policies/" ;; esac
done
{ echo "create extension if not exists pgcrypto;"; cat "$PKG/test/supabase/seed.sql"; } >"$RUN/schema/sql/900_upstream_seed.sql"

cp "$GATEWAY_BIN" "$RUN/gateway-bin"
echo "gateway binary $GATEWAY_BIN built $(stat -c '%y' "$GATEWAY_BIN" | cut -d. -f1); HEAD $(git -C "$MAIN" rev-parse --short HEAD)" | tee "$RESULTS/binary.txt"
# The CLI's config.toml: file_size_limit 50MiB.
JWT_SECRET=$DEMO_JWT_SECRET STORAGE_FILE_SIZE_LIMIT=${STORAGE_FILE_SIZE_LIMIT:-52428800} \
  "$RUN/gateway-bin" serve --data-dir "$RUN/data" --sql-root "$RUN/schema" --listen 127.0.0.1:54321 \
  --storage-root "$RUN/storage" >"$RUN/banner" 2>>"$RESULTS/gateway.log" &
echo $! >"$RUN/gateway.pid"
for _ in $(seq 900); do
  grep -q 'service_role key:' "$RUN/banner" 2>/dev/null && break
  kill -0 "$(cat "$RUN/gateway.pid")" 2>/dev/null || break
  sleep 0.1
done
grep -q 'service_role key:' "$RUN/banner" || { echo "the gateway did not start:" >&2; tail -30 "$RESULTS/gateway.log" >&2; exit 1; }

echo "running jest..."
(cd "$HERE" && STORAGE_JS=$PKG npx jest --config "$HERE/jest.config.js" --ci --runInBand --verbose \
  --json --outputFile="$RESULTS/jest.json" "$@" >"$RESULTS/jest-output.txt" 2>&1)
status=$?
node "$HERE/../score.js" "$RESULTS/jest.json" | column -t -s $'\t' | tee "$RESULTS/score.txt"
grep -E '^\s+✕' "$RESULTS/jest-output.txt" | tee "$RESULTS/failures.txt"
exit $status
