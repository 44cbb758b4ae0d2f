#!/usr/bin/env bash
# The REST benchmark (scenarios of performance.md §5), in one run:
# a throw-away PostgreSQL cluster with bench/data.sql, the gateway (release
# build) and PostgREST 12.0.2 on it, then per scenario and per connection
# count: wrk against the gateway, wrk against PostgREST, and pgbench running
# the best equivalent SQL (bench/pgbench/). It prints requests/s, p50 and p99,
# the gateway's CPU time per request, and its ratios to PostgREST and to
# pgbench.
#
#   bench/run.sh                       3 s per measurement, 1 s warm-up
#   DURATION=10 WARMUP=3 bench/run.sh  performance.md's settings
#   SCENARIOS="s1 s2" CONNECTIONS="8" bench/run.sh
#   GATEWAY_WORKERS=1 bench/run.sh     the gateway on one worker thread
#   GATEWAY_WORKERS=1 GHCRTS=-N1 bench/run.sh   and PostgREST on one core
#
# Everything listens on 127.0.0.1 and is removed at the end. Not run by CI.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

DURATION=${DURATION:-3}
WARMUP=${WARMUP:-1}
SCENARIOS=${SCENARIOS:-"s1 s2 s3 s3u s4 bulk rpc csv"}
CONNECTIONS=${CONNECTIONS:-"8 64"}
POOL=${POOL:-8}
THREADS=${THREADS:-2}

. bench/lib.sh
need wrk "install it with: apt-get install -y wrk"
need pgbench "install PostgreSQL's client programs (Debian: postgresql)"
need psql "install PostgreSQL's client programs (Debian: postgresql)"
need openssl "install it with: apt-get install -y openssl"

echo "== building the gateway (release) and fetching PostgREST 12.0.2"
cargo build --release --locked -p gateway -q
postgrest=$(scripts/postgrest.sh)
gateway=$root/target/release/gateway

bench_workdir rest
echo "== PostgreSQL (shared_buffers=256MB, fsync on)"
bench_cluster
gw_port=$(free_port)

exp=$(($(date +%s) + 86400))
anon=$(jwt "{\"role\":\"anon\",\"iss\":\"supabase\",\"exp\":$exp}")
user=$(jwt "{\"sub\":\"7d3c9a52-3b41-4f0e-9d0c-4a8f1f2b6c11\",\"role\":\"authenticated\",\"aud\":\"authenticated\",\"exp\":$exp}")

RUST_LOG=warn "$gateway" serve --database-url "postgres://authenticator@127.0.0.1:$pg_port/bench" \
  --jwt-secret "$secret" --listen "127.0.0.1:$gw_port" --pool-size "$POOL" --sql-root "$root" \
  >"$work/gateway.log" 2>&1 &
gw_pid=$!
pids+=($gw_pid)
start_postgrest "$postgrest" "$POOL"
echo "== gateway on 127.0.0.1:$gw_port, PostgREST 12.0.2 on 127.0.0.1:$pr_port (pools of $POOL)"
wait_for "http://127.0.0.1:$gw_port/rest/v1/brands?limit=1"
wait_for "http://127.0.0.1:$pr_port/brands?limit=1"

# wrk_run <scenario> <base url> <path prefix> <connections> <seconds>
#   -> "rps p50 p99 non2xx errors requests"
# The scenarios that write (run as a signed-in user; the data is reset after each).
writes() { [ "$1" = s4 ] || [ "$1" = bulk ]; }

wrk_run() {
  local token=$anon
  writes "$1" && token=$user
  SCENARIO=$1 BASE=$3 APIKEY=$anon TOKEN=$token PREFIX="$(basename "$2" | tr -c 'a-z0-9' '-')$RANDOM" \
    wrk -t"$THREADS" -c"$4" -d"$5"s -s bench/wrk/scenario.lua "$2" 2>&1 | awk '/^RESULT/ {print $2, $3, $4, $5, $6, $7}'
}

# pgbench_run <scenario> <connections> <seconds> -> "tps latency-average-ms transactions"
pgbench_run() {
  local role=bench_anon
  writes "$1" && role=bench_user
  pgbench -n -M prepared -U "$role" -c "$2" -j "$THREADS" -T "$3" -f "bench/pgbench/$1.sql" bench 2>&1 |
    awk '/^tps = / {tps=$3} /^latency average/ {lat=$4} /actually processed/ {n=$NF} END {print tps, lat, n}'
}

# pgbench_session_run: the same hand-written SQL as pgbench_run, but as the
# gateway runs a request: connected as `authenticator`, the request's
# settings (search path, the role's statement timeout, role, claims, method,
# path, headers, read only for reads) set transaction-locally by one
# statement, then the scenario's statement, both in one pipeline with one
# Sync, so one implicit transaction (the limit the gateway's SQL is held to,
# with what RLS semantics require). With a third argument, the SQL of that file instead
# (bench/pgbench/gateway/: the gateway's own statement). Prints what
# pgbench_run prints.
pgbench_session_run() {
  local role=anon timeout=3s claims="{\"role\":\"anon\",\"iss\":\"supabase\",\"exp\":$exp}" method=GET read_only=on
  if writes "$1"; then
    role=authenticated timeout=8s method=POST read_only=off
    claims="{\"sub\":\"7d3c9a52-3b41-4f0e-9d0c-4a8f1f2b6c11\",\"role\":\"authenticated\",\"aud\":\"authenticated\",\"exp\":$exp}"
  fi
  local sql=${4:-bench/pgbench/$1.sql}
  local script=$work/$1-session-$(basename "$(dirname "$sql")").sql
  {
    grep '^\\set' "$sql"
    echo '\startpipeline'
    echo "select set_config('search_path', '\"public\", \"extensions\"', true), set_config('statement_timeout', '$timeout', true)," \
      "set_config('role', '$role', true), set_config('request.jwt.claims', '$claims', true)," \
      "set_config('request.method', '$method', true), set_config('request.path', '/products', true)," \
      "set_config('request.headers', '{\"accept\":\"application/json\",\"host\":\"127.0.0.1\"}', true)," \
      "set_config('transaction_read_only', '$read_only', true);"
    grep -v '^\\set' "$sql" | grep -v '^--'
    echo '\endpipeline'
  } >"$script"
  pgbench -n -M prepared -U authenticator -c "$2" -j "$THREADS" -T "$3" -f "$script" bench 2>&1 |
    awk '/^tps = / {tps=$3} /^latency average/ {lat=$4} /actually processed/ {n=$NF} END {print tps, lat, n}'
}

# After a write scenario: back to the 2,000 products (performance.md §4.7).
reset() {
  psql -q -U postgres -d bench -c "delete from public.products where id > 2000" -c "vacuum analyze public.products"
}

# PostgreSQL's CPU: the postmaster, its live children, and the children it
# has reaped (pgbench's backends end with their connections).
pg_ticks() {
  local postmaster
  postmaster=$(head -n 1 "$work/pg/postmaster.pid")
  { awk '{print $14 + $15 + $16 + $17}' "/proc/$postmaster/stat"
    for child in $(ps -o pid= --ppid "$postmaster"); do
      # A child may end between ps and awk (autovacuum's workers do).
      awk '{print $14 + $15}' "/proc/$child/stat" 2>/dev/null || true
    done; } | awk '{t += $1} END {print t + 0}'
}

describe() {
  case $1 in
    s1) echo "S1 store listing: select=*,brands(*), count=exact, 20 rows at offsets 0-180" ;;
    s2) echo "S2 one product with its brand, Accept: vnd.pgrst.object" ;;
    s3) echo "S3 brand filter: brands!inner(name,slug)&brands.slug=eq.brand-N, 20 rows" ;;
    s3u) echo "S3 unordered: brands!inner(name)&brands.name=eq.Brand N&is_active=eq.true, 20 rows, no order" ;;
    s4) echo "S4 insert, return=representation, user JWT under an RLS insert policy" ;;
    bulk) echo "bulk insert of 100 rows in one body, return=minimal, user JWT under the RLS insert policy" ;;
    csv) echo "csv: 100 rows of six columns, order=id, Accept: text/csv" ;;
    rpc) echo "rpc: POST /rpc/products_between (a stable SQL function, setof products) with order=id&limit=20" ;;
  esac
}

idle=$(idle_percent)
# Linux's autogroups share CPU time between sessions first, and pg_ctl starts
# PostgreSQL in a session of its own: on S1 that alone made the gateway's p99
# at 8 connections 60-350 ms instead of about 5 (docs/benchmarks.md).
autogroup=$(cat /proc/sys/kernel/sched_autogroup_enabled 2>/dev/null || echo "n/a")
echo "== $(date -u +%FT%TZ), $(nproc) cores ${idle}% idle before the run;" \
  "${DURATION}s per measurement after ${WARMUP}s warm-up; wrk -t$THREADS; sched_autogroup_enabled $autogroup"
# Both servers read their runtime's size from the environment: the gateway
# GATEWAY_WORKERS (--workers), PostgREST's GHC runtime GHCRTS (its own
# default is -N, a thread per core).
echo "== gateway workers: ${GATEWAY_WORKERS:-one per core}; PostgREST's GHCRTS: ${GHCRTS:-unset (-N -I0 -qg)}"
printf '\n%-4s %5s | %9s %8s %8s %6s %6s | %9s %8s %8s %6s | %9s %8s %6s | %9s %6s %6s | %7s %7s %7s %7s | %s\n' \
  scen conns gw_rps gw_p50 gw_p99 gw_us gw_pg pgrst_rps pr_p50 pr_p99 pr_us pgbench lat_avg pgb_pg pgb_sess pgs_pg pgg_pg \
  vs_pgrst vs_pgb vs_pgbs us_pgrst non2xx
for scenario in $SCENARIOS; do
  echo "-- $(describe "$scenario")"
  for c in $CONNECTIONS; do
    wrk_run "$scenario" "http://127.0.0.1:$gw_port" /rest/v1 "$c" "$WARMUP" >/dev/null
    ticks=$(cpu_ticks "$gw_pid")
    pg0=$(pg_ticks)
    read -r g_rps g_p50 g_p99 g_bad g_err g_n <<<"$(wrk_run "$scenario" "http://127.0.0.1:$gw_port" /rest/v1 "$c" "$DURATION")"
    g_us=$(per_request_us $(($(cpu_ticks "$gw_pid") - ticks)) "${g_n:-0}")
    g_pg=$(per_request_us $(($(pg_ticks) - pg0)) "${g_n:-0}")
    writes "$scenario" && reset
    wrk_run "$scenario" "http://127.0.0.1:$pr_port" "" "$c" "$WARMUP" >/dev/null
    ticks=$(cpu_ticks "$pr_pid")
    read -r p_rps p_p50 p_p99 p_bad p_err p_n <<<"$(wrk_run "$scenario" "http://127.0.0.1:$pr_port" "" "$c" "$DURATION")"
    p_us=$(per_request_us $(($(cpu_ticks "$pr_pid") - ticks)) "${p_n:-0}")
    writes "$scenario" && reset
    pg0=$(pg_ticks)
    read -r b_tps b_lat b_n <<<"$(pgbench_run "$scenario" "$c" "$DURATION")"
    b_pg=$(per_request_us $(($(pg_ticks) - pg0)) "${b_n:-0}")
    writes "$scenario" && reset
    pg0=$(pg_ticks)
    read -r s_tps _ s_n <<<"$(pgbench_session_run "$scenario" "$c" "$DURATION")"
    s_pg=$(per_request_us $(($(pg_ticks) - pg0)) "${s_n:-0}")
    writes "$scenario" && reset
    o_pg=-
    if [ -f "bench/pgbench/gateway/$scenario.sql" ]; then
      pg0=$(pg_ticks)
      read -r _ _ o_n <<<"$(pgbench_session_run "$scenario" "$c" "$DURATION" "bench/pgbench/gateway/$scenario.sql")"
      o_pg=$(per_request_us $(($(pg_ticks) - pg0)) "${o_n:-0}")
    fi
    printf '%-4s %5s | %9.0f %6.2fms %6.2fms %6s %6s | %9.0f %6.2fms %6.2fms %6s | %9.0f %6.2fms %6s | %9.0f %6s %6s | %7s %7s %7s %7s | gw %s/%s, pgrst %s/%s\n' \
      "$scenario" "$c" "${g_rps:-0}" "${g_p50:-0}" "${g_p99:-0}" "$g_us" "$g_pg" "${p_rps:-0}" "${p_p50:-0}" "${p_p99:-0}" "$p_us" \
      "${b_tps:-0}" "${b_lat:-0}" "$b_pg" "${s_tps:-0}" "$s_pg" "$o_pg" \
      "$(ratio "$g_rps" "$p_rps")" "$(ratio "$g_rps" "$b_tps")" "$(ratio "$g_rps" "$s_tps")" "$(ratio "$g_us" "$p_us")" \
      "$g_bad" "$g_err" "$p_bad" "$p_err"
  done
done
echo
echo "gw_us, pr_us = the gateway's and PostgREST's CPU time per request (user + system), in microseconds;"
echo "us_pgrst = gw_us / pr_us (target <= 0.15);"
echo "gw_pg and pgb_pg = PostgreSQL's CPU time per gateway request and per pgbench transaction"
echo "pgb_sess, pgs_pg = pgbench's tps and PostgreSQL's CPU per transaction for the same SQL run as the gateway"
echo "runs a request (as authenticator, the request's settings and the statement in one pipeline);"
echo "pgg_pg = the same for the gateway's own statement (bench/pgbench/gateway/): what its SQL costs PostgreSQL;"
echo "gw_pg - pgg_pg is what reaching PostgreSQL one request at a time costs it (a wake-up per request);"
echo "the SQL target is gw_pg <= 1.2 x pgs_pg on S1-S3"
echo "vs_pgrst = gateway rps / PostgREST rps (target >= 2); vs_pgb = gateway rps / pgbench tps; vs_pgbs = gateway rps / pgb_sess"
echo "(target >= 0.8 on S1, >= 0.5 on S2-S4); non2xx = non-2xx responses / socket errors."
