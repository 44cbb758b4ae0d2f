#!/usr/bin/env bash
# The floor under the gateway's REST requests: the gateway, PostgREST 12.0.2
# and bench/floor (an HTTP/1 server on the gateway's own parts, hyper,
# tokio-postgres, deadpool-postgres and mimalloc, that sends each request's
# settings and the scenario's statement as the gateway does and does nothing
# else), side by side on one cluster, the two on one worker thread. It prints each
# one's requests/s and CPU time per request, and their ratios to PostgREST's:
# what the parts alone cost is the least any gateway built on them can spend.
#
#   bench/floor.sh                         S1, S2, S4 and rpc, 5 s after 2 s warm-up
#   SCENARIOS="s4" DURATION=10 bench/floor.sh
#
# Everything listens on 127.0.0.1 and is removed at the end. Not run by CI.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

DURATION=${DURATION:-5}
WARMUP=${WARMUP:-2}
SCENARIOS=${SCENARIOS:-"s1 s2 s4 rpc"}
CONNECTIONS=${CONNECTIONS:-8}
POOL=${POOL:-8}
THREADS=${THREADS:-2}

. bench/lib.sh
need wrk "install it with: apt-get install -y wrk"
need psql "install PostgreSQL's client programs (Debian: postgresql)"
need openssl "install it with: apt-get install -y openssl"

echo "== building the gateway and the floor (release) and fetching PostgREST 12.0.2"
cargo build --release --locked -p gateway -p floor -q
postgrest=$(scripts/postgrest.sh)
gateway=$root/target/release/gateway
floor=$root/target/release/floor

bench_workdir floor
bench_cluster
exp=$(($(date +%s) + 86400))
anon=$(jwt "{\"role\":\"anon\",\"iss\":\"supabase\",\"exp\":$exp}")
user=$(jwt "{\"sub\":\"7d3c9a52-3b41-4f0e-9d0c-4a8f1f2b6c11\",\"role\":\"authenticated\",\"aud\":\"authenticated\",\"exp\":$exp}")
database="postgres://authenticator@127.0.0.1:$pg_port/bench"

gw_port=$(free_port)
RUST_LOG=warn "$gateway" serve --database-url "$database" --jwt-secret "$secret" --listen "127.0.0.1:$gw_port" \
  --pool-size "$POOL" --workers 1 --sql-root "$root" >"$work/gateway.log" 2>&1 &
gw_pid=$!
pids+=($gw_pid)
start_postgrest "$postgrest" "$POOL"

wait_for "http://127.0.0.1:$gw_port/rest/v1/brands?limit=1"
wait_for "http://127.0.0.1:$pr_port/brands?limit=1"

writes() { [ "$1" = s4 ]; }
# wrk_run <scenario> <base url> <path prefix> <seconds> -> "rps requests"
wrk_run() {
  local token=$anon
  writes "$1" && token=$user
  SCENARIO=$1 BASE=$3 APIKEY=$anon TOKEN=$token PREFIX="floor-$(basename "$2" | tr -c 'a-z0-9' '-')$RANDOM" \
    wrk -t"$THREADS" -c"$CONNECTIONS" -d"$4"s -s bench/wrk/scenario.lua "$2" 2>&1 | awk '/^RESULT/ {print $2, $7}'
}
reset() { psql -q -U postgres -d bench -c "delete from public.products where id > 2000" -c "vacuum analyze public.products"; }

# measure <scenario> <pid> <url> <prefix> -> "rps us"
measure() {
  wrk_run "$1" "$3" "$4" "$WARMUP" >/dev/null
  local ticks rps n
  ticks=$(cpu_ticks "$2")
  read -r rps n <<<"$(wrk_run "$1" "$3" "$4" "$DURATION")"
  echo "$rps $(per_request_us $(($(cpu_ticks "$2") - ticks)) "${n:-0}")"
  writes "$1" && reset
  return 0
}

idle=$(idle_percent)
echo "== $(date -u +%FT%TZ), $(nproc) cores ${idle}% idle before the run; $CONNECTIONS connections," \
  "${DURATION}s per measurement after ${WARMUP}s warm-up; the gateway and the floor on one worker thread, PostgREST at its default"
printf '\n%-4s | %9s %6s | %9s %6s | %9s %6s | %8s %8s %8s\n' \
  scen floor_rps fl_us gw_rps gw_us pgrst_rps pr_us fl_pgrst gw_pgrst gw_floor
for scenario in $SCENARIOS; do
  fl_port=$(free_port)
  "$floor" --listen "127.0.0.1:$fl_port" --database-url "$database" --scenario "$scenario" \
    --pool-size "$POOL" --workers 1 >"$work/floor.log" 2>&1 &
  fl_pid=$!
  pids+=($fl_pid)
  for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$fl_port/" && break; sleep 0.1; done
  read -r f_rps f_us <<<"$(measure "$scenario" "$fl_pid" "http://127.0.0.1:$fl_port" /rest/v1)"
  kill "$fl_pid"
  read -r g_rps g_us <<<"$(measure "$scenario" "$gw_pid" "http://127.0.0.1:$gw_port" /rest/v1)"
  read -r p_rps p_us <<<"$(measure "$scenario" "$pr_pid" "http://127.0.0.1:$pr_port" "")"
  printf '%-4s | %9.0f %6s | %9.0f %6s | %9.0f %6s | %8s %8s %8s\n' "$scenario" "${f_rps:-0}" "$f_us" \
    "${g_rps:-0}" "$g_us" "${p_rps:-0}" "$p_us" "$(ratio "$f_us" "$p_us")" "$(ratio "$g_us" "$p_us")" "$(ratio "$g_us" "$f_us")"
done
echo
echo "fl_us, gw_us, pr_us = CPU time per request (user + system, microseconds) of the floor, the gateway and PostgREST;"
echo "fl_pgrst = fl_us / pr_us: the least a gateway on these parts spends, against PostgREST (the target is gw_pgrst <= 0.15);"
echo "gw_floor = gw_us / fl_us: what the gateway's own work adds to its parts."
