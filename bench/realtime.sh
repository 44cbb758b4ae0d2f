#!/usr/bin/env bash
# The Realtime benchmark: a throw-away PostgreSQL cluster (wal_level=logical)
# and the gateway (release build) on it, in two parts (PARTS="changes fanout"
# by default).
#
# changes: the change feed. First the rate PostgreSQL commits single-row
# inserts alone (pgbench, nobody subscribed, so no reader runs), then for each
# subscriber count, over WebSockets from bench/realtime.mjs:
#   - throughput: pgbench inserting as fast as it can (WRITERS connections),
#     changes per second delivered end to end (every change to every
#     subscriber) and the p50/p99 latency from commit to client;
#   - latency at a low rate: pgbench throttled to RATE inserts per second.
#
# fanout: broadcast to FANOUT subscribers (one socket and channel each), with
# bench/wsfanout's client holding the sockets:
#   - the physical limit: wsfanout's bare tokio WebSocket server, in the same
#     run, with one sender broadcasting as fast as the subscribers take it;
#   - the gateway the same way, then at half its own rate (p50/p99);
#   - broadcast from the database (`realtime.send` from pgbench), as fast as
#     SENDERS connections (8) send and at the same half rate;
#   - postgres_changes at RATE inserts a second to FANOUT subscribers of a
#     table under RLS, signed in as USERS distinct users (1 and FANOUT).
#
#   bench/realtime.sh                           5 s per measurement
#   DURATION=10 SUBSCRIBERS="1 100" QUEUED=1024 bench/realtime.sh
#   PARTS=fanout FANOUT=1000 USERS="1 1000" bench/realtime.sh
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
PARTS=${PARTS:-"changes fanout"}
FANOUT=${FANOUT:-1000}
SENDERS=${SENDERS:-8}
USERS=${USERS:-"1 $FANOUT"}

# need, free_port, bindir, secret, jwt (bench/lib.sh).
. bench/lib.sh
need pgbench "install PostgreSQL's client programs (Debian: postgresql)"
need psql "install PostgreSQL's client programs (Debian: postgresql)"
need node "install Node.js 20 or later"

echo "== building the gateway and bench/wsfanout (release)"
cargo build --release --locked -p gateway -p wsfanout -q
gateway=$root/target/release/gateway
wsfanout=$root/target/release/wsfanout
# A socket per subscriber, on both ends of loopback.
ulimit -n "$(ulimit -Hn)"
echo "== machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load average $(cut -d' ' -f1-3 /proc/loadavg)"

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
RUST_LOG=${RUST_LOG:-warn} REALTIME_MAX_JOINS_PER_SECOND=10000 REALTIME_MAX_CONCURRENT_USERS=100000 \
  REALTIME_MAX_EVENTS_PER_SECOND=10000000 REALTIME_MAX_QUEUED_MESSAGES=$QUEUED "$gateway" serve \
  --database-url "postgres://authenticator@127.0.0.1:$pg_port/bench" \
  --database-admin-url "postgres://postgres@127.0.0.1:$pg_port/bench" \
  --jwt-secret "$secret" --listen "127.0.0.1:$gw_port" --sql-root "$root" >"$work/gateway.log" 2>&1 &
pids+=($!)
for _ in $(seq 300); do
  curl -s -o /dev/null "http://127.0.0.1:$gw_port/health" && break
  sleep 0.1
done
ws="ws://127.0.0.1:$gw_port/realtime/v1/websocket?apikey=$anon&vsn=1.0.0"

case " $PARTS " in *" fanout "*)
fanout_row() { # label json
  node -e '
    const r = JSON.parse(process.argv[2])
    const row = [process.argv[1], r.subscribers, r.messages_per_s, r.deliveries_per_s,
      `${r.delivered}/${r.expected}`, r.p50_ms, r.p99_ms]
    console.log(row.map((v, i) => String(v).padEnd([34, 12, 11, 13, 22, 9, 9][i])).join(" "))
  ' "$1" "$2"
}
field() { node -e 'console.log(JSON.parse(process.argv[1])[process.argv[2]])' "$2" "$1"; }
client() { "$wsfanout" client --subscribers "$FANOUT" "$@" 2>>"$work/client.log"; }

bare_port=$(free_port)
"$wsfanout" server --listen "127.0.0.1:$bare_port" 2>>"$work/client.log" &
pids+=($!)
sleep 0.5
echo "== fanout: 1 sender, $FANOUT subscribers (one socket each), ${DURATION}s a row; load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-34s %-12s %-11s %-13s %-22s %-9s %-9s\n' what subscribers messages/s deliveries/s delivered/expected p50_ms p99_ms
bare=$(client --url "ws://127.0.0.1:$bare_port/" --send max --duration "$DURATION")
fanout_row "bare tokio server, as fast as taken" "$bare"
gw=$(client --url "$ws" --send max --duration "$DURATION")
fanout_row "gateway, as fast as taken" "$gw"
half=$(node -e 'console.log(Math.max(1, Math.floor(process.argv[1] / 2)))' "$(field messages_per_s "$gw")")
gw_half=$(client --url "$ws" --send "$half" --duration "$DURATION")
fanout_row "gateway at half: $half/s" "$gw_half"

cat >"$work/send.sql" <<'SQL'
select realtime.send(jsonb_build_object('t', (extract(epoch from clock_timestamp()) * 1000000)::bigint), 'e', 'fanout', false);
SQL
# Each realtime.send is a transaction whose commit notifies the gateways'
# bus (PostgreSQL serializes the commits of notifying transactions). First
# what PostgreSQL does alone, with nobody listening.
echo "   PostgreSQL alone: realtime.send from $SENDERS connections, nobody listening: $(pgbench -n -U postgres -f "$work/send.sql" -c "$SENDERS" -j 2 -T "$DURATION" bench | awk '/^tps = / {printf "%d", $3}') sends/s"
db=$(client --url "$ws" -- pgbench -n -U postgres -f "$work/send.sql" -c "$SENDERS" -j 2 -T "$DURATION" bench)
fanout_row "realtime.send, $SENDERS connections" "$db"
db_half=$(client --url "$ws" -- pgbench -n -U postgres -f "$work/send.sql" -c 4 -j 2 -R "$half" -T "$DURATION" bench)
fanout_row "realtime.send at $half/s" "$db_half"

node -e '
  const [bare, gw, half, db, dbHalf] = process.argv.slice(1).map((t) => JSON.parse(t))
  const r = (a, b) => (b ? (a / b).toFixed(2) : "n/a")
  console.log(`   gateway / bare server, deliveries per second: ${r(gw.deliveries_per_s, bare.deliveries_per_s)} (target at least 0.7)`)
  console.log(`   gateway at half its rate, p99: ${half.p99_ms} ms (target under 100)`)
  console.log(`   realtime.send / client broadcast: deliveries per second ${r(db.deliveries_per_s, gw.deliveries_per_s)}, p99 at half ${r(dbHalf.p99_ms, half.p99_ms)}x (target within 1.5x)`)
' "$bare" "$gw" "$gw_half" "$db" "$db_half"

psql -q -U postgres -d bench -v ON_ERROR_STOP=1 <<'SQL'
create table public.bench_rls (id bigserial primary key, owner uuid not null, body text not null);
alter table public.bench_rls enable row level security;
create policy "signed-in users read every row" on public.bench_rls for select to authenticated using (true);
grant select on public.bench_rls to authenticated;
alter publication supabase_realtime add table public.bench_rls;
SQL
echo "insert into public.bench_rls (owner, body) values (gen_random_uuid(), 'a change of about sixty bytes of text, as a row would be');" \
  >"$work/insert-rls.sql"
echo "== postgres_changes under RLS: $RATE inserts/s for ${DURATION}s to $FANOUT subscribers (one socket each); load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-34s %-12s %-11s %-13s %-22s %-9s %-9s\n' what subscribers changes/s deliveries/s delivered/expected p50_ms p99_ms
for users in $USERS; do
  : >"$work/tokens"
  for n in $(seq "$users"); do
    jwt "{\"role\":\"authenticated\",\"sub\":\"00000000-0000-4000-8000-$(printf %012d "$n")\",\"iss\":\"supabase\",\"exp\":$(($(date +%s) + 86400))}" >>"$work/tokens"
    echo >>"$work/tokens"
  done
  rls=$(client --url "$ws" --listen changes --table bench_rls --tokens "$work/tokens" -- \
    pgbench -n -U postgres -f "$work/insert-rls.sql" -c 1 -R "$RATE" -T "$DURATION" bench)
  fanout_row "$users distinct users" "$rls"
done
echo "   target: p99 under 200 ms"
esac

case " $PARTS " in *" changes "*)
echo "== changes: the feed to SUBSCRIBERS channels (100 a socket), no RLS"
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
esac

if [ -s "$work/client.log" ]; then
  echo "== client messages"
  sort "$work/client.log" | uniq -c | head -n 20
fi
echo "== gateway warnings and errors"
grep -E 'WARN|ERROR' "$work/gateway.log" | cut -c29-200 | sort | uniq -c | sort -rn | head -n 10 || true
