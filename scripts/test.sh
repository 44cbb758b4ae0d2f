#!/usr/bin/env bash
# Runs every test suite of the project:
#   1. clippy with warnings as errors;
#   2. the Rust unit and integration tests (each integration test gets a fresh
#      database cloned from a migrated template on a private cluster);
#   3. the supabase-js client tests, against a gateway started here on the
#      embedded default, and the type-level tests of the generated types
#      (tests/types: supabase-js typed by them, checked by tsc);
#   4. the frontend: its build (which fails when the JS budget is exceeded),
#      its unit tests (Vitest) and its browser tests (Chromium against a
#      gateway each test file starts, serving the build);
#   5. the book under docs/, whose build fails on a broken link.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh

echo "== clippy"
cargo clippy --locked --workspace --all-targets -- -D warnings

echo "== cargo test"
cargo test --locked --workspace

echo "== supabase-js client tests"
work=$(mktemp -d)
# The project's sql/ and policies/, plus the REST fixture the client tests read
# and the Realtime policies they join private channels with, and the tables
# whose changes they watch.
mkdir -p "$work/schema"
cp -r sql policies "$work/schema/"
cp gateway/tests/fixtures/shop.sql "$work/schema/sql/900_client_fixture.sql"
cp tests/client/fixtures/realtime.sql "$work/schema/sql/901_client_realtime.sql"
cp tests/client/fixtures/realtime_changes.sql "$work/schema/sql/902_client_realtime_changes.sql"
# The Edge Functions the client tests invoke are the Rust tests' fixtures.
# Debug logging, so that the check after the suite reads everything the
# gateway can write about a request.
RUST_LOG=debug target/debug/gateway serve --data-dir "$work/.data" --sql-root "$work/schema" --listen 127.0.0.1:0 \
  --functions-dir gateway/tests/fixtures/functions/supabase/functions \
  >"$work/banner" 2>"$work/gateway.log" &
gateway=$!
cleanup() {
  kill -INT "$gateway" 2>/dev/null && wait "$gateway" || true
  # As root the cluster lives in the postgres user's home, linked from .data.
  link=$(readlink "$work/.data/postgres" 2>/dev/null || true)
  [ -n "$link" ] && rm -rf "$link"
  rm -rf "$work"
}
trap cleanup EXIT
for _ in $(seq 600); do
  grep -q 'service_role key:' "$work/banner" && break
  kill -0 "$gateway" 2>/dev/null || { cat "$work/gateway.log" >&2; exit 1; }
  sleep 0.1
done
grep -q 'service_role key:' "$work/banner" || { echo "the gateway did not start" >&2; cat "$work/gateway.log" >&2; exit 1; }
GATEWAY_URL=$(awk '/API URL:/ {print $3}' "$work/banner")
ANON_KEY=$(awk '/anon key:/ {print $3}' "$work/banner")
SERVICE_ROLE_KEY=$(awk '/service_role key:/ {print $3}' "$work/banner")
PUBLISHABLE_KEY=$(awk '/publishable key:/ {print $3}' "$work/banner")
SECRET_KEY=$(awk '/secret key:/ {print $3}' "$work/banner")
# The key tests run `gateway keys` and `gateway signing-keys` on this database
# (its JWT secret is in the data directory), and they and the resumable-upload
# test start a second gateway on it (the same JWT secret and storage root).
GATEWAY_DATABASE_URL=$(awk '/database:/ {print $2}' "$work/banner")
GATEWAY_SQL_ROOT="$work/schema"
GATEWAY_DATA_DIR="$work/.data"
GATEWAY_BIN="$PWD/target/debug/gateway"
export GATEWAY_URL ANON_KEY SERVICE_ROLE_KEY PUBLISHABLE_KEY SECRET_KEY
export GATEWAY_DATABASE_URL GATEWAY_SQL_ROOT GATEWAY_DATA_DIR GATEWAY_BIN
# Every credential the suite sends or receives is noted (lib/record-secrets.mjs)
# and searched for in the gateway's log afterwards: none may be there.
SECRETS_FILE="$work/credentials.jsonl"
: >"$SECRETS_FILE"
(cd tests/client && SECRETS_FILE="$SECRETS_FILE" NODE_OPTIONS="--import=$PWD/lib/record-secrets.mjs" npm test)
echo "== no credential in the gateway's debug log"
node tests/client/lib/check-secrets.mjs "$SECRETS_FILE" "$work/gateway.log"
cleanup
trap - EXIT

echo "== type-level tests of the generated types"
(cd tests/types && npm test)

if [ -f frontend/package.json ]; then
  echo "== frontend: build"
  (cd frontend && npm run build)
  echo "== frontend: unit tests"
  (cd frontend && npm test)
  echo "== frontend: browser tests"
  (cd frontend && npm run e2e)
fi

echo "== docs"
scripts/docs.sh
