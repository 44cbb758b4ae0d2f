#!/usr/bin/env bash
# Where the gateway's CPU goes on one REST scenario of bench/run.sh: the
# release gateway runs under callgrind, which counts instructions however
# busy the machine is; its counters are zeroed after a warm-up and dumped
# after a measured wrk run, and the script prints the instructions per
# request in all and by layer (inclusive counts of the functions that begin
# each layer, so a layer includes what it calls).
#
#   bench/profile.sh                 S2, 20 s measured at 8 connections
#   SCENARIO=s1 DURATION=30 bench/profile.sh
#   KEEP=/tmp/s2.out bench/profile.sh   keeps callgrind's output to read with
#                                       callgrind_annotate --inclusive=yes
#   GATEWAY=/tmp/old/gateway bench/profile.sh
#                                    profiles that binary instead of building
#                                    this checkout's (a before/after pair
#                                    without rebuilding the before)
#   FLOOR=1 bench/profile.sh         profiles bench/floor (the gateway's parts
#                                    alone, see bench/floor.sh) on the same
#                                    scenario, to set beside the gateway's count
#   TOOL=perf bench/profile.sh       samples the gateway's time instead (perf,
#                                    cpu-clock, kernel included), runs it at
#                                    full speed, and prints its CPU time per
#                                    request and the hottest symbols
#
# Instructions are not time: callgrind counts a `rep movsb` copy byte by byte,
# so moving a large future weighs far more there than on the CPU.
#
# Everything listens on 127.0.0.1 and is removed at the end. Not run by CI.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
gateway=${GATEWAY:-$root/target/release/gateway}
. bench/lib.sh

SCENARIO=${SCENARIO:-s2}
TOOL=${TOOL:-callgrind}
DURATION=${DURATION:-20}
WARMUP=${WARMUP:-5}
CONNECTIONS=${CONNECTIONS:-8}

if [ "$TOOL" = perf ]; then
  need perf "install it with: apt-get install -y linux-perf"
else
  need valgrind "install it with: apt-get install -y valgrind"
  need callgrind_control "it comes with valgrind"
fi
need wrk "install it with: apt-get install -y wrk"
need psql "install PostgreSQL's client programs (Debian: postgresql)"
need openssl "install it with: apt-get install -y openssl"

if [ -z "${GATEWAY:-}" ]; then
  echo "== building the gateway (release)"
  cargo build --release --locked -p gateway -q
fi
if [ -n "${FLOOR:-}" ]; then
  echo "== building the floor (release)"
  cargo build --release --locked -p floor -q
fi

bench_workdir profile
bench_cluster
gw_port=$(free_port)
exp=$(($(date +%s) + 86400))
anon=$(jwt "{\"role\":\"anon\",\"iss\":\"supabase\",\"exp\":$exp}")
user=$(jwt "{\"sub\":\"7d3c9a52-3b41-4f0e-9d0c-4a8f1f2b6c11\",\"role\":\"authenticated\",\"aud\":\"authenticated\",\"exp\":$exp}")

under=()
[ "$TOOL" = callgrind ] && under=(valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.out")
if [ -n "${FLOOR:-}" ]; then
  echo "== the floor${under:+ under callgrind} on 127.0.0.1:$gw_port"
  "${under[@]}" "$root/target/release/floor" --database-url "postgres://authenticator@127.0.0.1:$pg_port/bench" \
    --listen "127.0.0.1:$gw_port" --pool-size 8 --workers 2 --scenario "$SCENARIO" >"$work/gateway.log" 2>&1 &
else
  echo "== the gateway${under:+ under callgrind} on 127.0.0.1:$gw_port"
  RUST_LOG=warn "${under[@]}" "$gateway" serve --database-url "postgres://authenticator@127.0.0.1:$pg_port/bench" \
    --jwt-secret "$secret" --listen "127.0.0.1:$gw_port" --pool-size 8 --sql-root "$root" \
    >"$work/gateway.log" 2>&1 &
fi
gw_pid=$!
pids+=($gw_pid)
for _ in $(seq 600); do
  code=$(curl -s -o /dev/null -w '%{http_code}' -H "apikey: $anon" "http://127.0.0.1:$gw_port/rest/v1/brands?limit=1" || true)
  [ "$code" = 200 ] || { [ -n "${FLOOR:-}" ] && [ "$code" != 000 ]; } && break
  sleep 0.2
done

wrk_run() { # wrk_run <seconds> -> "rps p50 p99 non2xx errors requests"
  local token=$anon
  case $SCENARIO in s4 | bulk) token=$user ;; esac
  SCENARIO=$SCENARIO BASE=/rest/v1 APIKEY=$anon TOKEN=$token PREFIX="profile$RANDOM" \
    wrk -t2 -c"$CONNECTIONS" -d"$1"s -s bench/wrk/scenario.lua "http://127.0.0.1:$gw_port" 2>&1 |
    awk '/^RESULT/ {print $2, $3, $4, $5, $6, $7}'
}

echo "== $SCENARIO: ${WARMUP}s warm-up, then ${DURATION}s counted at $CONNECTIONS connections"
wrk_run "$WARMUP" >/dev/null
if [ "$TOOL" = perf ]; then
  ticks() { awk '{print $14 + $15}' "/proc/$gw_pid/stat"; }
  t0=$(ticks)
  perf record -q -e cpu-clock -F 4999 -g -p "$gw_pid" -o "$work/perf.data" 2>/dev/null &
  perf_pid=$!
  read -r rps _ _ non2xx errors requests < <(wrk_run "$DURATION")
  kill -INT "$perf_pid"; wait "$perf_pid" 2>/dev/null || true
  t1=$(ticks)
  echo "   $requests requests ($rps/s); the gateway's CPU: $(awk -v t=$((t1 - t0)) -v n="$requests" -v hz="$(getconf CLK_TCK)" \
    'BEGIN {printf "%.1f", t * 1e6 / hz / n}') us per request (user + system, perf's own sampling included)"
  [ -n "${KEEP:-}" ] && cp "$work/perf.data" "$KEEP"
  perf report -i "$work/perf.data" --no-children --sort symbol --percent-limit 0.7 --stdio 2>/dev/null | sed "s/ *-  *- *$//" |
    grep -E '^ +[0-9.]+%' | head -n 40
  exit 0
fi
callgrind_control --zero "$gw_pid" >/dev/null
read -r _ _ _ non2xx errors requests < <(wrk_run "$DURATION")
callgrind_control --dump "$gw_pid" >/dev/null
sleep 1
[ "$non2xx" = 0 ] && [ "$errors" = 0 ] || echo "   warning: $non2xx answers not 2xx, $errors socket errors"
dump=$(ls -t "$work"/callgrind.out.* | head -n 1)
[ -n "${KEEP:-}" ] && cp "$dump" "$KEEP"

# The layers, each by the functions that begin it (a regular expression over
# callgrind's symbol names; the first function of a layer that matches is
# counted, inclusive of what it calls).
callgrind_annotate --inclusive=yes --threshold=100 "$dump" 2>/dev/null >"$work/annotated.txt"
total=$(awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1; exit}' "$work/annotated.txt")
echo "   $requests requests; $(awk -v t="$total" -v n="$requests" 'BEGIN {printf "%.0f", t / n}') instructions per request in all"
layer() { # layer <label> <regex>
  awk -v label="$1" -v re="$2" -v n="$requests" '
    $0 ~ re && !done { gsub(",", "", $1); printf "   %-34s %9.0f\n", label, $1 / n; done = 1 }' "$work/annotated.txt"
}
printf '   %-34s %9s\n' layer "per request (inclusive)"
layer "HTTP/1 connection (hyper)" 'hyper::proto::h1::dispatch::Dispatcher.*poll_catch'
layer "the app: layers, REST" 'gateway_core::server::Tracked<A> as .*call::\{\{closure'
layer "compression negotiation" 'gateway::compress::Compress.*call'
layer "REST service" 'gateway_rest::service::Rest as'
layer "API key" 'gateway_core::caller::admitted'
layer "caller (JWT, request.headers)" 'gateway_core::caller::Caller::keyed'
layer "REST handler" 'gateway_rest::service::serve'
layer "parse" 'gateway_rest::parse::'
layer "plan" 'gateway_rest::plan::'
layer "the statement, pooled and pipelined" 'gateway_rest::execute::run'
layer "the answer's headers" 'gateway_rest::response::Reply'
layer "memory allocator" '(malloc|free|realloc)$'
layer "kernel calls (libc)" '(__libc_sendto|__libc_recv|writev|epoll_wait|__send|__recv)'
