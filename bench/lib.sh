# What the benchmarks share, sourced by them (never run alone): checks for
# the tools they need, a throw-away PostgreSQL cluster on 127.0.0.1 with the
# gateway's migrations and bench/data.sql, its clean-up, and signed tokens.
#
#   . bench/lib.sh
#   need wrk "install it with: apt-get install -y wrk"
#   bench_workdir metrics                 # $work, $pids, the clean-up trap
#   bench_cluster "-c wal_level=logical"  # $pg_port, $PGHOST/$PGPORT, database bench
#   anon=$(jwt '{"role":"anon"}')
#   start_postgrest "$postgrest" 8        # $pr_port, $pr_pid: PostgREST 12.0.2 beside it
#   wait_for "http://127.0.0.1:$pr_port/brands?limit=1"
#   cpu_ticks "$pid"; per_request_us "$ticks" "$requests"; ratio "$a" "$b"; idle_percent
#
# It expects `root` (the checkout) and `gateway` (the binary) to be set, and
# uses the JWT secret every benchmark signs with.

secret=bench-secret-with-at-least-32-characters

need() { command -v "$1" >/dev/null || { echo "bench: $1 is missing; $2" >&2; exit 1; }; }

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# PostgreSQL's server programs: pg_config's, else Debian's newest, else PATH's.
bindir=$( (command -v pg_config >/dev/null && pg_config --bindir) || true)
[ -x "$bindir/initdb" ] || bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -x "$bindir/initdb" ] || bindir=$(dirname "$(command -v initdb 2>/dev/null || echo /nonexistent/initdb)")
[ -x "$bindir/initdb" ] || { echo "bench: initdb not found" >&2; exit 1; }

# bench_workdir <name>: a directory PostgreSQL may write to (it refuses to run
# as root, so as root the cluster runs as `postgres`), the list of processes
# to stop, and a trap that stops them and the cluster and removes it all.
# A benchmark that needs more at exit defines `bench_cleanup_extra`.
bench_workdir() {
  work=$(mktemp -d "/tmp/gateway-bench-$1.XXXXXX")
  as_pg=()
  if [ "$(id -u)" = 0 ]; then
    chown postgres: "$work"
    as_pg=(runuser -u postgres --)
  fi
  pids=()
  trap bench_cleanup EXIT
}
bench_cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  if declare -F bench_cleanup_extra >/dev/null; then bench_cleanup_extra; fi
  "${as_pg[@]}" "$bindir/pg_ctl" -D "$work/pg" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$work"
}

# bench_cluster [server options]: a cluster in $work/pg (shared_buffers=256MB,
# fsync on), the database `bench` migrated by the gateway and filled by
# bench/data.sql (50 brands, 2,000 products, the benchmark roles).
bench_cluster() {
  pg_port=$(free_port)
  "${as_pg[@]}" "$bindir/initdb" -D "$work/pg" -U postgres --auth=trust -E UTF8 >/dev/null
  "${as_pg[@]}" "$bindir/pg_ctl" -D "$work/pg" -l "$work/pg.log" -w \
    -o "-c listen_addresses=127.0.0.1 -p $pg_port -k $work -c shared_buffers=256MB -c max_connections=300 ${1:-}" \
    start >/dev/null
  export PGHOST=127.0.0.1 PGPORT=$pg_port
  psql -q -U postgres -d postgres -c "create database bench"
  RUST_LOG=warn "$gateway" migrate --database-url "postgres://postgres@127.0.0.1:$pg_port/bench" \
    --jwt-secret "$secret" --sql-root "$root" >/dev/null
  psql -q -U postgres -d bench -v ON_ERROR_STOP=1 -o /dev/null -f "$root/bench/data.sql"
}

b64url() { openssl base64 -A | tr '+/' '-_' | tr -d '='; }

# jwt <claims JSON>: an HS256 token under the benchmarks' secret.
jwt() {
  local header payload signature
  header=$(printf '{"alg":"HS256","typ":"JWT"}' | b64url)
  payload=$(printf '%s' "$1" | b64url)
  signature=$(printf '%s.%s' "$header" "$payload" | openssl dgst -sha256 -hmac "$secret" -binary | b64url)
  printf '%s.%s.%s' "$header" "$payload" "$signature"
}

# start_postgrest <binary> <pool size>: PostgREST on the cluster's `bench`
# database as `authenticator`, on a free port ($pr_port, $pr_pid).
start_postgrest() {
  pr_port=$(free_port)
  cat >"$work/postgrest.conf" <<CONF
db-uri = "postgres://authenticator@127.0.0.1:$pg_port/bench"
db-schemas = "public"
db-anon-role = "anon"
db-pool = $2
db-max-rows = 1000
jwt-secret = "$secret"
server-host = "127.0.0.1"
server-port = $pr_port
log-level = "crit"
CONF
  "$1" "$work/postgrest.conf" >"$work/postgrest.log" 2>&1 &
  pr_pid=$!
  pids+=($pr_pid)
}

# wait_for <url>: until it answers 200 to the anon key ($anon), or exit.
wait_for() {
  for _ in $(seq 300); do
    [ "$(curl -s -o /dev/null -w '%{http_code}' -H "apikey: $anon" -H "Authorization: Bearer $anon" "$1")" = 200 ] && return 0
    sleep 0.1
  done
  echo "bench: $1 did not answer" >&2; cat "$work"/*.log >&2; exit 1
}

# CPU time (user + system, in clock ticks) a process has used so far, and per
# request in microseconds: a server's own cost, which a busy machine skews
# far less than its throughput.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
hz=$(getconf CLK_TCK)
per_request_us() { awk -v t="$1" -v n="$2" -v hz="$hz" 'BEGIN { if (n > 0) printf "%.0f", t * 1e6 / hz / n; else print "-" }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }

# idle_percent: how idle the machine's CPUs were over one second
# (performance.md §4.7): other work on it skews every figure.
idle_percent() {
  local idle0 total0 idle1 total1
  read -r idle0 total0 < <(awk '/^cpu / {print $5 + $6, $2 + $3 + $4 + $5 + $6 + $7 + $8}' /proc/stat)
  sleep 1
  read -r idle1 total1 < <(awk '/^cpu / {print $5 + $6, $2 + $3 + $4 + $5 + $6 + $7 + $8}' /proc/stat)
  echo $(( 100 * (idle1 - idle0) / (total1 - total0 > 0 ? total1 - total0 : 1) ))
}
