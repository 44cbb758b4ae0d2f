#!/usr/bin/env bash
# What metrics cost: S2 of bench/run.sh (one product with its brand) against
# two gateways on one database, one with `--metrics-listen` (every request
# counted and timed, `/metrics` scraped every second meanwhile as Prometheus
# would) and one without, in alternating rounds so that the machine's drift
# falls on both. Prints each round, the medians, the ratio on/off of
# requests/s (the target is at least 0.97) and of CPU time per request.
#
#   bench/metrics.sh                          5 rounds of 5 s, 64 connections
#   ROUNDS=9 DURATION=10 bench/metrics.sh     steadier figures
#   PROFILE=debug ROUNDS=1 DURATION=2 bench/metrics.sh   checks the script only
#
# Everything listens on 127.0.0.1 and is removed at the end. Not run by CI.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

ROUNDS=${ROUNDS:-5}
DURATION=${DURATION:-5}
WARMUP=${WARMUP:-1}
CONNECTIONS=${CONNECTIONS:-64}
POOL=${POOL:-8}
THREADS=${THREADS:-2}
PROFILE=${PROFILE:-release}

. bench/lib.sh
need wrk "install it with: apt-get install -y wrk"
need psql "install PostgreSQL's client programs (Debian: postgresql)"
need openssl "install it with: apt-get install -y openssl"
need curl "install it with: apt-get install -y curl"

echo "== building the gateway ($PROFILE)"
if [ "$PROFILE" = release ]; then
  cargo build --release --locked -p gateway -q
else
  cargo build --locked -p gateway -q
fi
gateway=$root/target/$PROFILE/gateway

bench_workdir metrics
echo "== PostgreSQL"
bench_cluster
off_port=$(free_port)
on_port=$(free_port)
admin_port=$(free_port)

anon=$(jwt "{\"role\":\"anon\",\"iss\":\"supabase\",\"exp\":$(($(date +%s) + 86400))}")

serve() { # serve <port> <log> [flags...]
  local port=$1 log=$2
  shift 2
  RUST_LOG=warn "$gateway" serve --database-url "postgres://authenticator@127.0.0.1:$pg_port/bench" \
    --jwt-secret "$secret" --listen "127.0.0.1:$port" --pool-size "$POOL" --sql-root "$root" \
    --data-dir "$work/data-$port" "$@" >"$log" 2>&1 &
  pids+=($!)
}
# Not in a command substitution: its subshell would keep the pid from
# `bench_cleanup`, and the gateways would outlive the script.
serve "$off_port" "$work/off.log"
off_pid=${pids[-1]}
serve "$on_port" "$work/on.log" --metrics-listen "127.0.0.1:$admin_port"
on_pid=${pids[-1]}

wait_for "http://127.0.0.1:$off_port/rest/v1/brands?limit=1"
wait_for "http://127.0.0.1:$on_port/rest/v1/brands?limit=1"
wait_for "http://127.0.0.1:$admin_port/metrics"

# wrk_s2 <port> <seconds> -> "rps p50 p99 non2xx errors requests"
wrk_s2() {
  SCENARIO=s2 BASE=/rest/v1 APIKEY=$anon TOKEN=$anon PREFIX="m$RANDOM" \
    wrk -t"$THREADS" -c"$CONNECTIONS" -d"$2"s -s bench/wrk/scenario.lua "http://127.0.0.1:$1" 2>&1 |
    awk '/^RESULT/ {print $2, $3, $4, $5, $6, $7}'
}
median() { sort -g | awk '{v[NR] = $1} END {if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

# measure <port> <pid> -> "rps us_per_request p99 non2xx"
measure() {
  wrk_s2 "$1" "$WARMUP" >/dev/null
  local ticks rps p99 bad n
  ticks=$(cpu_ticks "$2")
  read -r rps _ p99 bad _ n <<<"$(wrk_s2 "$1" "$DURATION")"
  echo "${rps:-0} $(per_request_us $(($(cpu_ticks "$2") - ticks)) "${n:-0}") ${p99:-0} ${bad:-0}"
}

# A scraper, as Prometheus is, for the whole run.
( while sleep 1; do curl -s -o /dev/null "http://127.0.0.1:$admin_port/metrics" || true; done ) &
pids+=($!)

echo "== S2, $CONNECTIONS connections, $ROUNDS rounds of ${DURATION}s (after ${WARMUP}s warm-up), pools of $POOL"
printf '%5s | %9s %7s %8s %6s | %9s %7s %8s %6s\n' round off_rps off_us off_p99 non2xx on_rps on_us on_p99 non2xx
: >"$work/off" && : >"$work/on"
for round in $(seq "$ROUNDS"); do
  # Alternate which goes first, so neither always gets the warmer machine.
  if [ $((round % 2)) = 1 ]; then
    read -r o_rps o_us o_p99 o_bad <<<"$(measure "$off_port" "$off_pid")"
    read -r m_rps m_us m_p99 m_bad <<<"$(measure "$on_port" "$on_pid")"
  else
    read -r m_rps m_us m_p99 m_bad <<<"$(measure "$on_port" "$on_pid")"
    read -r o_rps o_us o_p99 o_bad <<<"$(measure "$off_port" "$off_pid")"
  fi
  echo "$o_rps $o_us" >>"$work/off"
  echo "$m_rps $m_us" >>"$work/on"
  printf '%5s | %9.0f %7s %6.2fms %6s | %9.0f %7s %6.2fms %6s\n' \
    "$round" "$o_rps" "$o_us" "$o_p99" "$o_bad" "$m_rps" "$m_us" "$m_p99" "$m_bad"
done
off_rps=$(cut -d' ' -f1 "$work/off" | median)
on_rps=$(cut -d' ' -f1 "$work/on" | median)
off_us=$(cut -d' ' -f2 "$work/off" | median)
on_us=$(cut -d' ' -f2 "$work/on" | median)
echo
echo "medians: off $off_rps req/s, ${off_us} us CPU per request; on $on_rps req/s, ${on_us} us CPU per request"
awk -v on="$on_rps" -v off="$off_rps" -v onu="$on_us" -v offu="$off_us" 'BEGIN {
  r = off > 0 ? on / off : 0
  verdict = "NOT met"
  if (r >= 0.97) verdict = "met"
  cpu = 0
  if (offu > 0) cpu = onu / offu
  printf "throughput on/off: %.3f (target >= 0.97: %s); CPU per request on/off: %.3f\n", r, verdict, cpu
}'
series=$(curl -s "http://127.0.0.1:$admin_port/metrics" | grep -c '^gateway_http_requests_total' || true)
echo "the metered gateway exported $series request series"
