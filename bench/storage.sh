#!/usr/bin/env bash
# S7 (200 KB authenticated upload under an RLS insert policy) and S8 (200 KB
# public download) of performance.md §5, in one run on this machine, each as a
# share of the plain-HTTP ceiling for a 200 KB body (a trivial axum handler,
# gateway/examples/http_ceiling.rs) measured in the same run (target >= 0.5).
# S7 is also given against performance.md's limit for it: the smallest of that
# ceiling, the 200 KB file-write rate (gateway/examples/file_ceiling.rs) and
# pgbench running the upload's metadata SQL (bench/pgbench/s7.sql).
# The upload goes to the shop's store-products bucket, whose policy lets signed-in
# users insert under products/; the download reads one such object publicly.
# Then image transformations: a 2 MP JPEG (1600 x 1250) to a 400 px WebP through
# /render/image/public, every request a variant not made before (bench/render.lua; the
# memory cache is off too), so every request transforms,
# beside the decoder, the resizer and the encoder alone on one core
# (gateway/crates/storage/examples/image_ceiling.rs) in the same run, and REST's p99 (a
# one-row select) alone and while the transforms run.
# Then the S3 protocol: 1 MB and 50 MB objects up and down through
# /storage/v1/s3 (boto3), the REST API and plain files (bench/s3.py).
# Usage: bench/storage.sh   (DURATION=10s, CONNECTIONS=8; GATEWAY_BIN=... skips the build;
#        SCENARIOS=transforms or SCENARIOS=s3 runs only that part)
set -euo pipefail
cd "$(dirname "$0")/.."

DURATION=${DURATION:-10s}
CONNECTIONS=${CONNECTIONS:-8}
SCENARIOS=${SCENARIOS:-all}
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk; }
if [ -z "${GATEWAY_BIN:-}" ]; then
  cargo build --release --locked -q -p gateway --bin gateway --example http_ceiling --example file_ceiling
  cargo build --release --locked -q -p gateway-storage --example image_ceiling
  GATEWAY_BIN=target/release/gateway
fi
IMAGE_CEILING_BIN=${IMAGE_CEILING_BIN:-$(dirname "$GATEWAY_BIN")/examples/image_ceiling}
CEILING_BIN=${CEILING_BIN:-$(dirname "$GATEWAY_BIN")/examples/http_ceiling}
FILE_CEILING_BIN=${FILE_CEILING_BIN:-$(dirname "$GATEWAY_BIN")/examples/file_ceiling}
SECONDS_RUN=${DURATION%s}

work=$(mktemp -d)
# The S3 part stores 50 MB objects, the default limit itself: room above it.
AUTH_RATE_LIMIT_SIGN_IN_SIGN_UPS=0 RUST_LOG=warn STORAGE_IMAGE_CACHE_SIZE=0 STORAGE_FILE_SIZE_LIMIT=100MB \
  "$GATEWAY_BIN" serve --data-dir "$work/.data" --listen 127.0.0.1:0 >"$work/banner" 2>"$work/gateway.log" &
gateway=$!
"$CEILING_BIN" 127.0.0.1:0 >"$work/ceiling-address" &
ceiling=$!
cleanup() {
  kill "$ceiling" 2>/dev/null || true
  kill -INT "$gateway" 2>/dev/null && wait "$gateway" || true
  link=$(readlink "$work/.data/postgres" 2>/dev/null || true)
  [ -n "$link" ] && rm -rf "$link"
  rm -rf "$work"
}
trap cleanup EXIT
for _ in $(seq 600); do
  grep -q 'service_role key:' "$work/banner" && [ -s "$work/ceiling-address" ] && break
  kill -0 "$gateway" 2>/dev/null || { cat "$work/gateway.log" >&2; exit 1; }
  sleep 0.1
done
URL=$(awk '/API URL:/ {print $3}' "$work/banner")
ANON_KEY=$(awk '/anon key:/ {print $3}' "$work/banner")
SERVICE_ROLE_KEY=$(awk '/service_role key:/ {print $3}' "$work/banner")
CEILING="http://$(cat "$work/ceiling-address")"

curl -sf -X POST "$URL/auth/v1/admin/users" -H "apikey: $ANON_KEY" -H "authorization: Bearer $SERVICE_ROLE_KEY" \
  -H 'content-type: application/json' \
  -d '{"email":"bench@example.com","password":"bench-password","email_confirm":true}' >/dev/null
SESSION=$(curl -sf -X POST "$URL/auth/v1/token?grant_type=password" -H "apikey: $ANON_KEY" \
  -H 'content-type: application/json' -d '{"email":"bench@example.com","password":"bench-password"}')
STAFF_TOKEN=$(echo "$SESSION" | python3 -c 'import json, sys; print(json.load(sys.stdin)["access_token"])')
STAFF_ID=$(echo "$SESSION" | python3 -c 'import json, sys; print(json.load(sys.stdin)["user"]["id"])')
export STAFF_TOKEN
head -c 204800 /dev/zero | tr '\0' 'x' >"$work/blob"
curl -sf -X POST "$URL/storage/v1/object/store-products/products/bench-public.png" \
  -H "authorization: Bearer $STAFF_TOKEN" -H 'content-type: image/png' --data-binary @"$work/blob" >/dev/null

rps() { awk '/Requests\/sec/ {print $2}' "$1"; }
failures() { awk '/Non-2xx/ {n += $NF} /Socket errors/ {for (i = 4; i <= NF; i += 2) n += $i} END {print n + 0}' "$1"; }
p() { awk -v q="$2" '$1 == q { v = $2
    if (v ~ /us$/) { sub(/us$/, "", v); v /= 1000 } else if (v ~ /ms$/) { sub(/ms$/, "", v) }
    else if (v ~ /s$/) { sub(/s$/, "", v); v *= 1000 }
    printf "%.1f", v }' "$1"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
run() { wrk -t2 -c"$CONNECTIONS" -d"$DURATION" --timeout 10s --latency "$@"; }

transforms() {
  "$IMAGE_CEILING_BIN" --jpeg "$work/photo.jpg"
  curl -sf -X POST "$URL/storage/v1/object/store-products/products/bench-photo.jpg" \
    -H "authorization: Bearer $STAFF_TOKEN" -H 'content-type: image/jpeg' --data-binary @"$work/photo.jpg" >/dev/null
  local render="$URL/storage/v1/render/image/public/store-products/products/bench-photo.jpg?width=400"
  local rest="$URL/rest/v1/products?select=id&limit=1"
  echo "== transforms: steps alone, one core each"
  "$IMAGE_CEILING_BIN" 3 >"$work/image-ceiling"
  echo "== REST alone: one-row select, 2 connections"
  wrk -t1 -c2 -d"$DURATION" --latency -H "apikey: $ANON_KEY" "$rest" >"$work/rest-alone"
  echo "== transforms: 2 MP JPEG -> 400 px WebP, $CONNECTIONS connections, with REST beside"
  wrk -t2 -c"$CONNECTIONS" -d"$DURATION" --timeout 30s --latency -s bench/render.lua "$render" >"$work/render" &
  local storm=$!
  sleep 1
  wrk -t1 -c2 -d"$((SECONDS_RUN - 2))s" --latency -H "apikey: $ANON_KEY" "$rest" >"$work/rest-during"
  wait "$storm"
  local cores
  cores=$(nproc)
  printf '\n%-40s %10s\n' "image step (this machine)" "per second"
  printf '%-40s %10s\n' "transform through the gateway" "$(rps "$work/render")"
  awk -F'\t' -v cores="$cores" '{ printf "%-40s %10.1f   (%.1f x %d cores; %s)\n", $1 " alone, one core", $2, $2 * cores, cores, $3 }' \
    "$work/image-ceiling"
  printf '%-40s %10s %10s\n' "REST one-row select" "p50 ms" "p99 ms"
  printf '%-40s %10s %10s\n' "  alone" "$(p "$work/rest-alone" 50%)" "$(p "$work/rest-alone" 99%)"
  printf '%-40s %10s %10s\n' "  while transforms run" "$(p "$work/rest-during" 50%)" "$(p "$work/rest-during" 99%)"
  echo "(transform failures: $(failures "$work/render"); REST failures: $(failures "$work/rest-during"))"
}
# Upload and download over the S3 protocol (boto3, SigV4) against the REST
# API and against plain file writes and reads, at 1 MB and 50 MB (bench/s3.py).
s3() {
  local keys
  keys=$("$GATEWAY_BIN" storage s3-keys --data-dir "$work/.data" create --description bench)
  curl -sf -X POST "$URL/storage/v1/bucket" -H "apikey: $SERVICE_ROLE_KEY" \
    -H "authorization: Bearer $SERVICE_ROLE_KEY" -H 'content-type: application/json' \
    -d '{"name":"bench-s3","public":false}' >/dev/null
  echo "== S3 protocol against the REST API and the file system"
  python3 bench/s3.py "$URL" "$SERVICE_ROLE_KEY" \
    "$(echo "$keys" | awk -F': ' '/^access key id:/ {print $2}')" \
    "$(echo "$keys" | awk -F': ' '/^secret access key:/ {print $2}')" bench-s3
}
case "$SCENARIOS" in
  transforms) transforms; exit 0 ;;
  s3) s3; exit 0 ;;
esac

echo "== S7 ceiling: 200 KB POST to a trivial handler"
run -s bench/post-blob.lua "$CEILING/blob" >"$work/post-ceiling"
echo "== S7: 200 KB authenticated uploads"
run -s bench/upload.lua "$URL" >"$work/upload"
echo "== S7 limit: 200 KB file writes"
"$FILE_CEILING_BIN" "$work/files" "$SECONDS_RUN" >"$work/file-ceiling"
rm -rf "$work/files"
echo "== S7 limit: pgbench of the upload's metadata SQL, $CONNECTIONS clients"
pidfile=$(find -L "$work/.data" -name postmaster.pid | head -n 1)
socket_dir=$(sed -n 5p "$pidfile")
port=$(sed -n 4p "$pidfile")
pgbench_bin=$(ls /usr/lib/postgresql/*/bin/pgbench 2>/dev/null | tail -n 1)
pgbench_bin=${pgbench_bin:-pgbench}
"$pgbench_bin" -n -M prepared -c "$CONNECTIONS" -j 2 -T "$SECONDS_RUN" -f bench/pgbench/s7.sql \
  -D "claims={\"sub\":\"$STAFF_ID\",\"role\":\"authenticated\"}" -D "sub=$STAFF_ID" \
  -h "$socket_dir" -p "$port" -U postgres postgres >"$work/pgbench" 2>&1 || { cat "$work/pgbench" >&2; exit 1; }
psql -q -h "$socket_dir" -p "$port" -U postgres -d postgres \
  -c "delete from storage.objects where name like 'products/pgbench-%'" -c "vacuum analyze storage.objects"
echo "== S8 ceiling: 200 KB GET from a trivial handler"
run "$CEILING/blob" >"$work/get-ceiling"
echo "== S8: 200 KB public downloads"
run "$URL/storage/v1/object/public/store-products/products/bench-public.png" >"$work/download"

printf '\n%-34s %10s %10s %8s %8s %9s %8s\n' scenario "req/s" ceiling ratio "p50 ms" "p99 ms" failures
for s in "S7 upload 200 KB (RLS insert):upload:post-ceiling" "S8 public download 200 KB:download:get-ceiling"; do
  IFS=: read -r name file base <<<"$s"
  printf '%-34s %10s %10s %8s %8s %9s %8s\n' "$name" "$(rps "$work/$file")" "$(rps "$work/$base")" \
    "$(ratio "$(rps "$work/$file")" "$(rps "$work/$base")")" "$(p "$work/$file" 50%)" "$(p "$work/$file" 99%)" \
    "$(failures "$work/$file")"
done
files=$(cat "$work/file-ceiling")
pg_tps=$(awk '/^tps/ {print $3; exit}' "$work/pgbench")
limit=$(awk -v a="$(rps "$work/post-ceiling")" -v b="$files" -v c="$pg_tps" \
  'BEGIN { m = a; if (b < m) m = b; if (c < m) m = c; printf "%.2f", m }')
printf '%-34s %10s %10s %8s   (limit = min of: HTTP %s, file writes %s/s, pgbench %s tps)\n' \
  "S7 against performance.md's limit" "$(rps "$work/upload")" "$limit" "$(ratio "$(rps "$work/upload")" "$limit")" \
  "$(rps "$work/post-ceiling")" "$files" "$pg_tps"
echo "(target: ratio >= 0.5 of the HTTP ceiling for both; $CONNECTIONS connections, $DURATION each, $(nproc) cores)"
transforms
s3
