#!/usr/bin/env bash
# The embedded default's tail latency: the gateway started with no
# database URL runs its own PostgreSQL. Linux's autogroups share CPU time
# between sessions first, and `pg_ctl start` puts the server in a session of
# its own; the gateway starts `postgres` in its own session instead
# (docs/operating.md, docs/benchmarks.md). This script measures, in one run,
# on the same cluster and data (bench/data.sql) and the same release build:
#   embedded  the gateway's own start (the server in the gateway's session);
#   pg_ctl    the same cluster started by `pg_ctl start` (a session of its
#             own), the gateway connected to its socket by --database-url.
# per scenario (S1, S3 of bench/run.sh) at 8 connections: requests/s, p50, p99.
#
#   bench/embedded.sh                    5 s per measurement, 1 s warm-up
#   DURATION=10 WARMUP=3 bench/embedded.sh
#
# Listens on 127.0.0.1 only; everything is removed at the end. Not run by CI.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
DURATION=${DURATION:-5}
WARMUP=${WARMUP:-1}
SCENARIOS=${SCENARIOS:-"s1 s3"}
CONNECTIONS=${CONNECTIONS:-8}
command -v wrk >/dev/null || { echo "bench: wrk is missing; apt-get install -y wrk" >&2; exit 1; }

echo "== building the gateway (release)"
cargo build --release --locked -p gateway -q
gateway=$root/target/release/gateway
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
work=$(mktemp -d /tmp/gateway-embedded-bench.XXXXXX)
chmod 755 "$work"
as_pg=()
[ "$(id -u)" = 0 ] && as_pg=(runuser -u postgres --)
gw_pid=
bindir=
stop_gateway() {
  [ -n "$gw_pid" ] && { kill -INT "$gw_pid" 2>/dev/null || true; wait "$gw_pid" 2>/dev/null || true; }
  gw_pid=
}
cleanup() {
  stop_gateway
  if [ -d "$work/.data/postgres" ]; then
    [ -n "$bindir" ] && "${as_pg[@]}" "$bindir/pg_ctl" -D "$(readlink -f "$work/.data/postgres")" -m immediate stop >/dev/null 2>&1 || true
    link=$(readlink "$work/.data/postgres" 2>/dev/null || true)
    [ -n "$link" ] && rm -rf "$link"
  fi
  rm -rf "$work"
}
trap cleanup EXIT

# serve [extra args...]: starts the gateway and waits for its banner.
serve() {
  RUST_LOG=warn "$gateway" serve --data-dir "$work/.data" --sql-root "$root" --listen "127.0.0.1:$port" "$@" \
    >"$work/banner" 2>"$work/gateway.log" &
  gw_pid=$!
  for _ in $(seq 600); do
    grep -q 'service_role key:' "$work/banner" && return 0
    kill -0 "$gw_pid" 2>/dev/null || break
    sleep 0.1
  done
  echo "bench: the gateway did not start" >&2; cat "$work/gateway.log" >&2; exit 1
}

echo "== the embedded default on 127.0.0.1:$port, with bench/data.sql"
serve
anon=$(awk '/anon key:/ {print $3}' "$work/banner")
pgdata=$(readlink -f "$work/.data/postgres")
bindir=$(dirname "$(readlink -f "/proc/$(head -n 1 "$pgdata/postmaster.pid")/exe")")
socket=$(sed -n 5p "$pgdata/postmaster.pid")
psql "postgresql:///postgres?host=$socket&user=postgres" -q -v ON_ERROR_STOP=1 -o /dev/null \
  -f bench/data.sql -c "notify pgrst, 'reload schema'"
sleep 1

measure() {
  for scenario in $SCENARIOS; do
    for c in $CONNECTIONS; do
      run() {
        SCENARIO=$scenario BASE=/rest/v1 APIKEY=$anon TOKEN=$anon PREFIX=e$RANDOM \
          wrk -t2 -c"$c" -d"$1"s -s bench/wrk/scenario.lua "http://127.0.0.1:$port" 2>&1 |
          awk '/^RESULT/ {print $2, $3, $4}'
      }
      run "$WARMUP" >/dev/null
      read -r rps p50 p99 <<<"$(run "$DURATION")"
      printf '%-9s %-4s %5s | %9s %8s %9s\n' "$1" "$scenario" "$c" "$rps" "${p50}ms" "${p99}ms"
    done
  done
}
printf '\n%-9s %-4s %5s | %9s %8s %9s\n' start scen conns rps p50 p99
measure embedded
stop_gateway

# The same cluster, started as before: by pg_ctl, in a session of its own.
"${as_pg[@]}" "$bindir/pg_ctl" -D "$pgdata" -l "$pgdata/server.log" -w \
  -o "-k $socket -c listen_addresses= -c unix_socket_permissions=0700 -p 5432" start >/dev/null
secret=$(cat "$work/.data/jwt_secret")
serve --database-url "postgresql:///postgres?host=$socket&user=authenticator" --jwt-secret "$secret"
measure pg_ctl
echo
echo "embedded = the gateway's own start; pg_ctl = the same cluster in a session of its own (as the gateway used to start it)"
