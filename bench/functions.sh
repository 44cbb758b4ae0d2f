#!/usr/bin/env bash
# The Edge Functions benchmark, in one run:
#   1. a `hello` function through the gateway (/functions/v1/hello, its JWT
#      checked) against the same file served by bare `deno serve`: requests/s,
#      p50 and p99, and their ratio (target >= 0.8 of bare Deno), with the CPU
#      each request costs in every process (deno, the gateway, the function's
#      deno, wrk) and the ratio that CPU accounts for;
#   2. cold start: from a request to a function with no process to its
#      answer, N times (the function's file is touched in between, so the
#      gateway lets its process go): median and worst (target 300 ms);
#   3. REST's S2 (bench/run.sh) against a gateway with no functions and one
#      serving functions (hello warm), on one database: requests/s and p99,
#      means of ROUNDS (3) rounds that alternate the two.
#
#   bench/functions.sh                          3 s per measurement, 1 s warm-up
#   DURATION=10 WARMUP=3 CONNECTIONS="8 64" COLD=20 bench/functions.sh
#   GATEWAY=target/debug/gateway bench/functions.sh    a build at hand
#
# Everything listens on 127.0.0.1 and is removed at the end. Not run by CI.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

DURATION=${DURATION:-3}
WARMUP=${WARMUP:-1}
CONNECTIONS=${CONNECTIONS:-"8 64"}
THREADS=${THREADS:-2}
COLD=${COLD:-10}
ROUNDS=${ROUNDS:-3}
POOL=${POOL:-8}

# need, free_port, bindir, secret, jwt, wait_for, ratio, idle_percent, hz (bench/lib.sh).
. bench/lib.sh
need wrk "install it with: apt-get install -y wrk"
need psql "install PostgreSQL's client programs (Debian: postgresql)"
need openssl "install it with: apt-get install -y openssl"
need curl "install it with: apt-get install -y curl"
deno=$root/tools/deno/node_modules/@deno/linux-x64-glibc/deno
[ -x "$deno" ] || { echo "bench: no deno at $deno (scripts/setup.sh installs it)" >&2; exit 1; }

if [ -z "${GATEWAY:-}" ]; then
  echo "== building the gateway (release)"
  cargo build --release --locked -p gateway -q
  GATEWAY=$root/target/release/gateway
fi
gateway=$(realpath "$GATEWAY")

pg_port=$(free_port)
fn_port=$(free_port)
plain_port=$(free_port)
deno_port=$(free_port)

work=$(mktemp -d /tmp/gateway-bench-functions.XXXXXX)
chmod 755 "$work"
as_pg=()
if [ "$(id -u)" = 0 ]; then
  mkdir "$work/pg" && chown postgres: "$work/pg"
  as_pg=(runuser -u postgres --)
fi
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  "${as_pg[@]}" "$bindir/pg_ctl" -D "$work/pg" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

# The function: a default export of `fetch`, which `deno serve` runs as it is
# and the gateway runs as Edge Runtime runs a `Deno.serve` handler.
mkdir -p "$work/supabase/functions/hello"
cat >"$work/supabase/functions/hello/index.ts" <<'TS'
export default {
  fetch: () => new Response("Hello World", { headers: { "content-type": "text/plain" } }),
};
TS

echo "== PostgreSQL on 127.0.0.1:$pg_port"
"${as_pg[@]}" "$bindir/initdb" -D "$work/pg" -U postgres --auth=trust -E UTF8 >/dev/null
"${as_pg[@]}" "$bindir/pg_ctl" -D "$work/pg" -l "$work/pg/log" -w \
  -o "-c listen_addresses=127.0.0.1 -p $pg_port -k $work/pg -c shared_buffers=256MB -c max_connections=300" \
  start >/dev/null
export PGHOST=127.0.0.1 PGPORT=$pg_port
psql -q -U postgres -d postgres -c "create database bench"
RUST_LOG=warn "$gateway" migrate --database-url "postgres://postgres@127.0.0.1:$pg_port/bench" \
  --jwt-secret "$secret" --sql-root "$root" >/dev/null
psql -q -U postgres -d bench -v ON_ERROR_STOP=1 -o /dev/null -f bench/data.sql

exp=$(($(date +%s) + 86400))
anon=$(jwt "{\"role\":\"anon\",\"iss\":\"supabase\",\"exp\":$exp}")

serve() { # <port> <log> [flags...]
  local port=$1 log=$2
  shift 2
  RUST_LOG=warn "$gateway" serve --database-url "postgres://authenticator@127.0.0.1:$pg_port/bench" \
    --jwt-secret "$secret" --listen "127.0.0.1:$port" --pool-size "$POOL" --sql-root "$root" \
    --data-dir "$work/data-$port" "$@" >"$work/$log" 2>&1 &
  pids+=($!)
}
serve "$fn_port" gateway-functions.log --functions-dir "$work/supabase/functions" --functions-deno "$deno"
fn_gateway=$!
serve "$plain_port" gateway-plain.log
plain_gateway=$!
DENO_DIR=$work/deno-cache DENO_NO_UPDATE_CHECK=1 NO_COLOR=1 \
  "$deno" serve --quiet --no-config --host 127.0.0.1 --port "$deno_port" "$work/supabase/functions/hello/index.ts" \
  >"$work/deno.log" 2>&1 &
bare_deno=$!
pids+=($bare_deno)

# nginx (when installed) in front of the bare Deno: what the best-known proxy
# costs on this machine, so the gateway's relay is judged against a peer as
# well as against no relay at all.
nginx_port=
if command -v nginx >/dev/null; then
  nginx_port=$(free_port)
  mkdir -p "$work/nginx/logs"
  cat >"$work/nginx/nginx.conf" <<EOF
worker_processes 2;
pid $work/nginx/nginx.pid;
error_log $work/nginx/logs/error.log crit;
events { worker_connections 1024; }
http {
  access_log off;
  upstream deno { server 127.0.0.1:$deno_port; keepalive 32; }
  server {
    listen 127.0.0.1:$nginx_port;
    location / {
      proxy_pass http://deno;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_buffering off;
    }
  }
}
EOF
  nginx -p "$work/nginx" -e "$work/nginx/logs/error.log" -c "$work/nginx/nginx.conf" -g 'daemon off;' &
  nginx_master=$!
  pids+=($nginx_master)
fi

wait_for "http://127.0.0.1:$plain_port/rest/v1/brands?limit=1"
wait_for "http://127.0.0.1:$fn_port/rest/v1/brands?limit=1"
wait_for "http://127.0.0.1:$deno_port/"
[ -n "$nginx_port" ] && wait_for "http://127.0.0.1:$nginx_port/"

# plain_run <url> <connections> <seconds> -> "rps p50 p99 non2xx errors requests wrk-ticks"
# wrk runs under a shell that prints, once wrk has been reaped, the CPU ticks
# its children used (cutime + cstime of /proc/<shell>/stat): the client's share.
plain_run() {
  APIKEY=$anon TOKEN=$anon THREADS=$THREADS bash -c \
    'wrk -t"$THREADS" -c"$1" -d"$2"s -s bench/wrk/plain.lua "$0" 2>&1; echo "CHILDREN $(ticks_of $$ children)"' \
    "$1" "$2" "$3" | awk '/^RESULT/ {r = $2 " " $3 " " $4 " " $5 " " $6 " " $7} /^CHILDREN/ {c = $2} END {print r, c}'
}
# ticks_of <pid> [children]: the CPU ticks (1/CLK_TCK s) a process used,
# user + system; with "children", those of its reaped children. Fields count
# from the state, after the command name (which may hold spaces).
ticks_of() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || { echo 0; return; }
  echo "${stat##*) }" | awk -v children="${2:-}" '{ print (children == "children") ? $14 + $15 : $12 + $13 }'
}
export -f ticks_of
s2_run() {
  SCENARIO=s2 BASE=/rest/v1 APIKEY=$anon TOKEN=$anon PREFIX=fn$RANDOM \
    wrk -t"$THREADS" -c"$2" -d"$3"s -s bench/wrk/scenario.lua "$1" 2>&1 | awk '/^RESULT/ {print $2, $3, $4, $5, $6, $7}'
}

idle=$(idle_percent)
echo "== $(date -u +%FT%TZ), $(nproc) cores ${idle}% idle before the run; $gateway;" \
  "${DURATION}s per measurement after ${WARMUP}s warm-up; wrk -t$THREADS"

echo
echo "-- cold start: a request to hello with no process for it, to its answer ($COLD times)"
colds=()
for i in $(seq "$COLD"); do
  touch "$work/supabase/functions/hello/index.ts"
  # The gateway looks at a running function's files twice a second.
  sleep 1.2
  t=$(curl -s -o /dev/null -w '%{time_total}' -H "apikey: $anon" -H "Authorization: Bearer $anon" \
    "http://127.0.0.1:$fn_port/functions/v1/hello")
  colds+=("$(awk -v t="$t" 'BEGIN { printf "%.0f", t * 1000 }')")
done
warm=$(curl -s -o /dev/null -w '%{time_total}' -H "apikey: $anon" -H "Authorization: Bearer $anon" \
  "http://127.0.0.1:$fn_port/functions/v1/hello" | awk '{printf "%.1f", $1 * 1000}')
sorted=$(printf '%s\n' "${colds[@]}" | sort -n)
echo "cold start ms: $(echo $sorted | tr '\n' ' ')"
echo "median $(echo "$sorted" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}') ms, worst $(echo "$sorted" | tail -n 1) ms" \
  "(target 300 ms); a warm request then: $warm ms"

echo
printf '%-34s %5s | %9s %8s %8s | %s\n' "target" conns rps p50 p99 "non2xx/errors"
row() { printf '%-34s %5s | %9.0f %6.2fms %6.2fms | %s/%s\n' "$1" "$2" "${3:-0}" "${4:-0}" "${5:-0}" "${6:-0}" "${7:-0}"; }
sum_ticks() { local total=0 pid; for pid in "$@"; do total=$((total + $(ticks_of "$pid"))); done; echo "$total"; }
# The function's Deno processes, which the gateway starts as its children.
workers() { pgrep -P "$fn_gateway" | tr '\n' ' '; }
# us <ticks> <requests>: microseconds of CPU a request.
us() { awk -v t="$1" -v n="$2" -v hz="$hz" 'BEGIN { if (n > 0) printf "%.1f", t * 1e6 / hz / n; else print "-" }'; }
for c in $CONNECTIONS; do
  plain_run "http://127.0.0.1:$deno_port/" "$c" "$WARMUP" >/dev/null
  d0=$(ticks_of "$bare_deno")
  read -r d_rps d_p50 d_p99 d_bad d_err d_n d_wrk <<<"$(plain_run "http://127.0.0.1:$deno_port/" "$c" "$DURATION")"
  d_srv=$(($(ticks_of "$bare_deno") - d0))
  plain_run "http://127.0.0.1:$fn_port/functions/v1/hello" "$c" "$WARMUP" >/dev/null
  # shellcheck disable=SC2046
  read -r g0 w0 <<<"$(ticks_of "$fn_gateway") $(sum_ticks $(workers))"
  read -r g_rps g_p50 g_p99 g_bad g_err g_n g_wrk <<<"$(plain_run "http://127.0.0.1:$fn_port/functions/v1/hello" "$c" "$DURATION")"
  # shellcheck disable=SC2046
  read -r g1 w1 <<<"$(ticks_of "$fn_gateway") $(sum_ticks $(workers))"
  if [ -n "$nginx_port" ]; then
    plain_run "http://127.0.0.1:$nginx_port/" "$c" "$WARMUP" >/dev/null
    # shellcheck disable=SC2046
    read -r n0 nd0 <<<"$(sum_ticks "$nginx_master" $(pgrep -P "$nginx_master")) $(ticks_of "$bare_deno")"
    read -r n_rps n_p50 n_p99 n_bad n_err n_n n_wrk <<<"$(plain_run "http://127.0.0.1:$nginx_port/" "$c" "$DURATION")"
    # shellcheck disable=SC2046
    read -r n1 nd1 <<<"$(sum_ticks "$nginx_master" $(pgrep -P "$nginx_master")) $(ticks_of "$bare_deno")"
  fi
  row "hello, bare deno serve" "$c" "$d_rps" "$d_p50" "$d_p99" "$d_bad" "$d_err"
  if [ -n "$nginx_port" ]; then
    row "hello, nginx -> bare deno" "$c" "$n_rps" "$n_p50" "$n_p99" "$n_bad" "$n_err"
    echo "   nginx / bare deno: $(ratio "$n_rps" "$d_rps");" \
      "CPU a request: nginx $(us $((n1 - n0)) "$n_n") + deno $(us $((nd1 - nd0)) "$n_n") + wrk $(us "$n_wrk" "$n_n") us"
  fi
  row "hello, gateway /functions/v1" "$c" "$g_rps" "$g_p50" "$g_p99" "$g_bad" "$g_err"
  echo "   gateway / bare deno: $(ratio "$g_rps" "$d_rps") (target >= 0.8)${nginx_port:+; gateway / nginx: $(ratio "$g_rps" "$n_rps")}"
  # Both runs keep the two cores busy, so their throughputs stand in the
  # inverse ratio of the CPU each request costs, client included.
  bare_deno_us=$(us "$d_srv" "$d_n"); bare_wrk_us=$(us "$d_wrk" "$d_n")
  gw_us=$(us $((g1 - g0)) "$g_n"); fn_deno_us=$(us $((w1 - w0)) "$g_n"); fn_wrk_us=$(us "$g_wrk" "$g_n")
  echo "   CPU a request: bare = deno ${bare_deno_us} + wrk ${bare_wrk_us} us;" \
    "through the gateway = gateway ${gw_us} + function's deno ${fn_deno_us} + wrk ${fn_wrk_us} us"
  awk -v bd="$bare_deno_us" -v bw="$bare_wrk_us" -v g="$gw_us" -v fd="$fn_deno_us" -v fw="$fn_wrk_us" 'BEGIN {
    printf "   ratio the CPU accounts for: %.2f; the gateway may spend %.1f us a request for 0.8 with this deno and wrk cost\n",
      (bd + bw) / (g + fd + fw), (bd + bw) / 0.8 - fd - fw }'
done
# S2 alternates between the two gateways, ROUNDS times each, the order
# flipped every round, so that neither always runs right after hello's load.
for c in $CONNECTIONS; do
  p_all=() f_all=()
  for round in $(seq "$ROUNDS"); do
    order=(plain fn)
    [ $((round % 2)) = 0 ] && order=(fn plain)
    for which in "${order[@]}"; do
      port=$plain_port
      [ "$which" = fn ] && port=$fn_port
      s2_run "http://127.0.0.1:$port" "$c" "$WARMUP" >/dev/null
      result=$(s2_run "http://127.0.0.1:$port" "$c" "$DURATION")
      if [ "$which" = fn ]; then f_all+=("$result"); else p_all+=("$result"); fi
    done
  done
  # mean <results...>: the mean of each field over the rounds.
  mean() { printf '%s\n' "$@" | awk '{for (i = 1; i <= NF; i++) s[i] += $i} END {for (i = 1; i <= 5; i++) printf "%s ", s[i] / NR}'; }
  read -r p_rps p_p50 p_p99 p_bad p_err <<<"$(mean "${p_all[@]}")"
  read -r f_rps f_p50 f_p99 f_bad f_err <<<"$(mean "${f_all[@]}")"
  row "S2, gateway without functions" "$c" "$p_rps" "$p_p50" "$p_p99" "$p_bad" "$p_err"
  row "S2, gateway serving functions" "$c" "$f_rps" "$f_p50" "$f_p99" "$f_bad" "$f_err"
  echo "   with functions / without: $(ratio "$f_rps" "$p_rps") (target: about 1; means of $ROUNDS alternating rounds)"
done
