#!/usr/bin/env bash
# The Realtime change-feed benchmark: a throw-away PostgreSQL
# cluster (wal_level=logical) and the gateway (release build) on it; first
# the rate PostgreSQL commits single-row inserts alone (pgbench, nobody
# subscribed, so no reader runs), then for each subscriber count, over
# WebSockets from bench/realtime.mjs:
#   - throughput: pgbench inserting as fast as it can (WRITERS connections),
#     changes per second delivered end to end (every change to every
#     subscriber) and the p50/p99 latency from commit to client;
#   - latency at a low rate: pgbench throttled to RATE inserts per second.
#
#   bench/realtime.sh                           5 s per measurement
#   DURATION=10 SUBSCRIBERS="1 100" QUEUED=1024 bench/realtime.sh
#
# Everything listens on 127.0.0.1 and is removed at the end, but the
# gateway's log, left in /tmp/gateway-bench-realtime.log. Not run by CI.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

DURATION=${DURATION:-5}
SUBSCRIBERS=${SUBSCRIBERS:-"1 100 1000"}
WRITERS=${WRITERS:-4}
RATE=${RATE:-50}
# Messages a socket may have waiting: the default (1,024) closes a socket of
# 100 channels on one table at once at full rate (a burst of changes times 100
# channels), which measures the drop policy, not the feed.
QUEUED=${QUEUED:-1000000}

# need, free_port, bindir, secret, jwt (bench/lib.sh).
. bench/lib.sh
need pgbench "install PostgreSQL's client programs (Debian: postgresql)"
need psql "install PostgreSQL's client programs (Debian: postgresql)"
need node "install Node.js 20 or later"

echo "== building the gateway (release)"
cargo build --release --locked -p gateway -q
gateway=$root/target/release/gateway

pg_port=$(free_port)
gw_port=$(free_port)

work=$(mktemp -d /tmp/gateway-bench-realtime.XXXXXX)
as_pg=()
if [ "$(id -u)" = 0 ]; then
  chown postgres: "$work"
  as_pg=(runuser -u postgres --)
fi
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  "${as_pg[@]}" "$bindir/pg_ctl" -D "$work/pg" -m immediate stop >/dev/null 2>&1 || true
  cp "$work/gateway.log" /tmp/gateway-bench-realtime.log 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

echo "== PostgreSQL on 127.0.0.1:$pg_port (wal_level=logical, shared_buffers=256MB, fsync on)"
"${as_pg[@]}" "$bindir/initdb" -D "$work/pg" -U postgres --auth=trust -E UTF8 >/dev/null
"${as_pg[@]}" "$bindir/pg_ctl" -D "$work/pg" -l "$work/pg.log" -w \
  -o "-c listen_addresses=127.0.0.1 -p $pg_port -k $work -c shared_buffers=256MB -c max_connections=300 -c wal_level=logical" \
  start >/dev/null
export PGHOST=127.0.0.1 PGPORT=$pg_port
psql -q -U postgres -d postgres -c "create database bench"

RUST_LOG=warn "$gateway" migrate --database-url "postgres://postgres@127.0.0.1:$pg_port/bench" \
  --jwt-secret "$secret" --sql-root "$root" >/dev/null
psql -q -U postgres -d bench -v ON_ERROR_STOP=1 <<'SQL'
create table public.bench_changes (id bigserial primary key, n integer not null, body text not null);
grant select on public.bench_changes to anon, authenticated;
alter publication supabase_realtime add table public.bench_changes;
SQL
echo "insert into public.bench_changes (n, body) values (1, 'a change of about sixty bytes of text, as a row would be');" \
  >"$work/insert.sql"
writer() { pgbench -n -U postgres -f "$work/insert.sql" "$@" bench; }

anon=$(jwt "{\"role\":\"anon\",\"iss\":\"supabase\",\"exp\":$(($(date +%s) + 86400))}")

echo "== PostgreSQL alone: $WRITERS connections inserting one row per transaction for ${DURATION}s"
writer -c "$WRITERS" -j 2 -T "$DURATION" | awk '/^tps = / {printf "   %d commits/s\n", $3}'

echo "== gateway on 127.0.0.1:$gw_port"
RUST_LOG=${RUST_LOG:-warn} REALTIME_MAX_JOINS_PER_SECOND=10000 REALTIME_MAX_CONCURRENT_USERS=100000 REALTIME_MAX_QUEUED_MESSAGES=$QUEUED "$gateway" serve \
  --database-url "postgres://authenticator@127.0.0.1:$pg_port/bench" \
  --jwt-secret "$secret" --listen "127.0.0.1:$gw_port" --sql-root "$root" >"$work/gateway.log" 2>&1 &
pids+=($!)
for _ in $(seq 300); do
  curl -s -o /dev/null "http://127.0.0.1:$gw_port/health" && break
  sleep 0.1
done
ws="ws://127.0.0.1:$gw_port/realtime/v1/websocket?apikey=$anon&vsn=1.0.0"

printf '%-12s %-11s %10s %12s %14s %8s %8s %10s\n' subscribers load changes/s deliveries/s delivered/sent p50_ms p99_ms writer_tps
for n in $SUBSCRIBERS; do
  for load in max "$RATE/s"; do
    if [ "$load" = max ]; then
      args=(-c "$WRITERS" -j 2 -T "$DURATION")
    else
      args=(-c 1 -R "$RATE" -T "$DURATION")
    fi
    result=$(node --experimental-websocket bench/realtime.mjs "$ws" "$n" -- \
      pgbench -n -U postgres -f "$work/insert.sql" "${args[@]}" bench 2>>"$work/client.log")
    node -e '
      const r = JSON.parse(process.argv[1])
      const row = [r.subscribers, process.argv[2], r.changes_per_s, r.deliveries_per_s,
        `${r.delivered}/${r.expected}`, r.p50_ms, r.p99_ms, Math.round(r.writer_tps)]
      console.log(row.map((v, i) => String(v).padEnd([12, 11, 10, 12, 14, 8, 8, 10][i])).join(" "))
    ' "$result" "$load"
  done
done
if [ -s "$work/client.log" ]; then
  echo "== client messages"
  sort "$work/client.log" | uniq -c | head -n 20
fi
echo "== gateway warnings and errors"
grep -E 'WARN|ERROR' "$work/gateway.log" | cut -c29-200 | sort | uniq -c | sort -rn | head -n 10 || true
