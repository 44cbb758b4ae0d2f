#!/usr/bin/env bash
# S5 (login) and S6 (token refresh) of performance.md §5, in one run on this
# machine, against a release gateway on the embedded default with rate limits
# off:
#   S5  logins/s with users hashed at bcrypt cost 10, as a share of the bcrypt-10
#       verification ceiling measured in the same run (target >= 0.9); and the p99
#       of a pooled database round trip (GET /ready) alone and during a storm of
#       50 concurrent logins (target: at most 2x).
#   S6  refresh-token grants/s, each connection rotating its own session's
#       token, as a share of pgbench running the same transaction (target >= 0.5).
# Usage: bench/auth.sh   (DURATION=10s; GATEWAY_BIN=... skips the release build)
set -euo pipefail
cd "$(dirname "$0")/.."

DURATION=${DURATION:-10s}
SECONDS_RUN=${DURATION%s}
if [ -z "${GATEWAY_BIN:-}" ]; then
  cargo build --release --locked -q -p gateway --bin gateway && cargo build --release --locked -q -p gateway-auth --example bcrypt_ceiling
  GATEWAY_BIN=target/release/gateway
fi
CEILING_BIN=${CEILING_BIN:-$(dirname "$GATEWAY_BIN")/examples/bcrypt_ceiling}

work=$(mktemp -d)
AUTH_RATE_LIMIT_SIGN_IN_SIGN_UPS=0 AUTH_RATE_LIMIT_TOKEN_REFRESH=0 GATEWAY_POOL_SIZE=8 RUST_LOG=warn \
  "$GATEWAY_BIN" serve --data-dir "$work/.data" --listen 127.0.0.1:0 >"$work/banner" 2>"$work/gateway.log" &
gateway=$!
cleanup() {
  kill -INT "$gateway" 2>/dev/null && wait "$gateway" || true
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
URL=$(awk '/API URL:/ {print $3}' "$work/banner")
ANON_KEY=$(awk '/anon key:/ {print $3}' "$work/banner")
SERVICE_ROLE_KEY=$(awk '/service_role key:/ {print $3}' "$work/banner")
export ANON_KEY

auth_post() { # path, key, body
  curl -sf -X POST "$URL/auth/v1$1" -H "apikey: $ANON_KEY" -H "authorization: Bearer $2" \
    -H 'content-type: application/json' -d "$3"
}
rps() { awk '/Requests\/sec/ {print $2}' "$1"; }
failures() { awk '/Non-2xx/ {n += $NF} /Socket errors/ {for (i = 4; i <= NF; i += 2) n += $i} END {print n + 0}' "$1"; }
p99_ms() {
  awk '$1 == "99%" { v = $2
    if (v ~ /us$/) { sub(/us$/, "", v); v /= 1000 } else if (v ~ /ms$/) { sub(/ms$/, "", v) }
    else if (v ~ /s$/) { sub(/s$/, "", v); v *= 1000 }
    printf "%.1f", v }' "$1"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }

echo "== seeding 8 users (bcrypt cost 10)"
for i in $(seq 0 7); do
  auth_post /admin/users "$SERVICE_ROLE_KEY" \
    "{\"email\":\"bench-$i@example.com\",\"password\":\"bench-password\",\"email_confirm\":true}" >/dev/null
done

echo "== S5: bcrypt-10 ceiling"
ceiling=$("$CEILING_BIN" "$SECONDS_RUN")
echo "== S5: logins, 8 connections"
wrk -t2 -c8 -d"$DURATION" --timeout 10s --latency -s bench/login.lua "$URL" >"$work/login"
echo "== S5: /ready alone, then during a 50-login storm"
wrk -t1 -c4 -d"$DURATION" --latency "$URL/ready" >"$work/ready-alone"
wrk -t2 -c50 -d"$DURATION" --timeout 30s -s bench/login.lua "$URL" >"$work/storm" &
storm=$!
sleep 1
wrk -t1 -c4 -d"$DURATION" --latency "$URL/ready" >"$work/ready-storm"
wait "$storm"

echo "== S6: refreshes, 8 connections each rotating its own session"
tokens=()
for i in $(seq 0 7); do
  session=$(auth_post "/token?grant_type=password" "$ANON_KEY" \
    "{\"email\":\"bench-$i@example.com\",\"password\":\"bench-password\"}")
  tokens+=("$(echo "$session" | sed -E 's/.*"refresh_token":"([^"]+)".*/\1/')")
done
REFRESH_TOKENS=$(IFS=,; echo "${tokens[*]}") wrk -t8 -c8 -d"$DURATION" --latency -s bench/refresh.lua "$URL" >"$work/refresh"

echo "== S6: pgbench of the refresh transaction, 8 clients"
pidfile=$(find -L "$work/.data" -name postmaster.pid | head -n 1)
socket_dir=$(sed -n 5p "$pidfile")
port=$(sed -n 4p "$pidfile")
pgbench_bin=$(ls /usr/lib/postgresql/*/bin/pgbench 2>/dev/null | tail -n 1)
pgbench_bin=${pgbench_bin:-pgbench}
psql -q -h "$socket_dir" -p "$port" -U postgres -d postgres -c \
  "create table bench_sessions as select row_number() over (order by created_at desc) as n, id, user_id
     from (select * from auth.sessions order by created_at desc limit 8) s"
"$pgbench_bin" -n -c 8 -j 2 -T "$SECONDS_RUN" -f bench/refresh.sql -h "$socket_dir" -p "$port" -U postgres postgres \
  >"$work/pgbench" 2>&1
pg_tps=$(awk '/^tps/ {print $3; exit}' "$work/pgbench")

echo
echo "scenario                      result        limit        ratio   target   p99"
printf "S5 login (c=8)                %8s/s   %8s/s    %5s   >= 0.9   %s ms  (failures: %s)\n" \
  "$(rps "$work/login")" "$ceiling" "$(ratio "$(rps "$work/login")" "$ceiling")" "$(p99_ms "$work/login")" \
  "$(failures "$work/login")"
printf "S5 /ready p99 during storm    %8s ms  %8s ms    %5s   <= 2.0   (storm: %s logins/s, failures: %s)\n" \
  "$(p99_ms "$work/ready-storm")" "$(p99_ms "$work/ready-alone")" \
  "$(ratio "$(p99_ms "$work/ready-storm")" "$(p99_ms "$work/ready-alone")")" "$(rps "$work/storm")" \
  "$(failures "$work/storm")"
printf "S6 refresh (c=8)              %8s/s   %8s/s    %5s   >= 0.5   %s ms  (failures: %s)\n" \
  "$(rps "$work/refresh")" "$pg_tps" "$(ratio "$(rps "$work/refresh")" "$pg_tps")" "$(p99_ms "$work/refresh")" \
  "$(failures "$work/refresh")"
