#!/usr/bin/env bash
# Runs several gateways behind nginx on this host, without Docker or root
# (docs/operating.md, "Scaling out"):
#
#   scripts/scale-out.sh --dir DIR [--gateways N] [--listen ADDR] [--first-port PORT]
#
# DIR holds each gateway's data directory, log and pid (`gateway-<i>.log`,
# `gateway-<i>.pid`) and nginx's configuration, log and pid (`nginx/`). The
# gateways listen on 127.0.0.1:PORT, PORT+1, ... (default 54331); nginx on
# ADDR (default 127.0.0.1:54321) with deploy/nginx/gateway.conf.
#
# The parts the gateways share come from the environment, as for one gateway
# (docs/configuration.md):
#   DATABASE_URL        required: one PostgreSQL (the authenticator role);
#   DATABASE_ADMIN_URL  when set, `gateway migrate` runs once with it first;
#   JWT_SECRET          required: the same on every gateway;
#   STORAGE_S3_*        required (STORAGE_S3_BUCKET at least): one store;
#   GATEWAY_BIN         the gateway binary (default target/release/gateway);
#   NGINX               nginx (default: nginx on PATH, else /usr/sbin/nginx);
#   NGINX_USER          run as root, nginx runs as this user (default nobody).
# Any other variable (AUTH_TRUSTED_PROXIES, GATEWAY_POOL_SIZE...) reaches
# every gateway. It runs in the foreground: Ctrl-C or SIGTERM stops nginx,
# then drains and stops the gateways.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)

dir= gateways=2 listen=127.0.0.1:54321 first_port=54331
while [ $# -gt 0 ]; do
  case "$1" in
    --dir) dir=$2; shift 2 ;;
    --gateways) gateways=$2; shift 2 ;;
    --listen) listen=$2; shift 2 ;;
    --first-port) first_port=$2; shift 2 ;;
    *) echo "scale-out: unknown argument $1" >&2; exit 2 ;;
  esac
done
fail() { echo "scale-out: $*" >&2; exit 1; }
[ -n "$dir" ] || fail "--dir is required"
[ -n "${DATABASE_URL:-}" ] || fail "set DATABASE_URL: every gateway uses the same PostgreSQL"
[ -n "${JWT_SECRET:-}" ] || fail "set JWT_SECRET: every gateway signs and verifies with the same secret"
# Local disk is one host's: the gateways could not read each other's files.
[ -n "${STORAGE_S3_BUCKET:-}" ] || fail "set STORAGE_S3_BUCKET (and STORAGE_S3_*): the gateways share one S3 store"
bin=${GATEWAY_BIN:-$repo/target/release/gateway}
[ -x "$bin" ] || fail "$bin is missing: cargo build --release, or set GATEWAY_BIN"
nginx=${NGINX:-$(command -v nginx || echo /usr/sbin/nginx)}
[ -x "$nginx" ] || fail "nginx is missing: apt-get install nginx"
mkdir -p "$dir/nginx/temp"
dir=$(cd "$dir" && pwd)

pids=()
stop() {
  trap - INT TERM EXIT
  # nginx first (SIGQUIT: it finishes the requests it has), then the
  # gateways drain theirs (SIGTERM).
  [ -f "$dir/nginx/nginx.pid" ] && kill -QUIT "$(cat "$dir/nginx/nginx.pid")" 2>/dev/null || true
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap stop INT TERM EXIT

# Answers 200 on GET /health at host:port?
healthy() {
  local answer
  # The braces keep the redirection of stderr to this line (on `exec` alone
  # it would last for the whole script).
  { exec 3<>"/dev/tcp/${1%:*}/${1##*:}"; } 2>/dev/null || return 1
  printf 'GET /health HTTP/1.1\r\nhost: %s\r\nconnection: close\r\n\r\n' "$1" >&3
  read -r -t 5 answer <&3 || answer=
  exec 3<&-
  [[ $answer == "HTTP/1.1 200"* ]]
}

wait_healthy() {
  local what=$1 address=$2 pid=$3 log=$4
  for _ in $(seq 600); do
    healthy "$address" && return 0
    kill -0 "$pid" 2>/dev/null || { cat "$log" >&2; fail "$what exited"; }
    sleep 0.1
  done
  cat "$log" >&2
  fail "$what did not answer on $address"
}

# Migrations once, before any gateway starts: the gateways get no admin URL,
# so they never race to migrate.
if [ -n "${DATABASE_ADMIN_URL:-}" ]; then
  "$bin" migrate >"$dir/migrate.log" 2>&1 || { cat "$dir/migrate.log" >&2; fail "gateway migrate failed"; }
fi

# On SIGTERM a gateway goes on serving the connections nginx keeps open for
# this long, closing each with its answer, so that nginx never sends a
# request down a connection as it closes (docs/operating.md).
export GATEWAY_DRAIN_DELAY=${GATEWAY_DRAIN_DELAY:-2s}

upstreams=
for i in $(seq "$gateways"); do
  address=127.0.0.1:$((first_port + i - 1))
  # One at a time: the first start makes the API keys the others read.
  env -u DATABASE_ADMIN_URL GATEWAY_LISTEN="$address" GATEWAY_DATA_DIR="$dir/gateway-$i" \
    "$bin" serve >"$dir/gateway-$i.banner" 2>"$dir/gateway-$i.log" &
  pids+=($!)
  echo $! >"$dir/gateway-$i.pid"
  wait_healthy "gateway $i" "$address" $! "$dir/gateway-$i.log"
  upstreams+="    server $address max_fails=1 fail_timeout=5s;"$'\n'
done

# deploy/nginx/gateway.conf with this run's addresses, inside a main
# configuration whose pid, logs and temporary files are under DIR.
awk -v upstreams="$upstreams" -v listen="$listen" '
  /^upstream gateway \{/ { inside = 1 }
  inside && /^[[:space:]]*server [^;]*;/ { if (!done) { printf "%s", upstreams; done = 1 } next }
  inside && /^\}/ { inside = 0 }
  /^[[:space:]]*listen [^;]*;/ { sub(/listen [^;]*;/, "listen " listen ";") }
  { print }
' "$repo/deploy/nginx/gateway.conf" >"$dir/nginx/gateway.conf"
cat >"$dir/nginx/nginx.conf" <<CONF
worker_processes 1;
pid $dir/nginx/nginx.pid;
error_log $dir/nginx/error.log warn;
events { worker_connections 1024; }
http {
    access_log $dir/nginx/access.log;
    client_body_temp_path $dir/nginx/temp/body;
    proxy_temp_path $dir/nginx/temp/proxy;
    fastcgi_temp_path $dir/nginx/temp/fastcgi;
    uwsgi_temp_path $dir/nginx/temp/uwsgi;
    scgi_temp_path $dir/nginx/temp/scgi;
    include $dir/nginx/gateway.conf;
}
CONF
# nginx needs no privilege here (a port above 1024, its files under DIR):
# run as root, it is run as NGINX_USER (default nobody), which owns DIR/nginx
# and must be able to reach it.
as_nginx_user=()
if [ "$(id -u)" = 0 ]; then
  user=${NGINX_USER:-nobody}
  touch "$dir/nginx/error.log" "$dir/nginx/access.log"
  chown -R "$user:$(id -gn "$user")" "$dir/nginx"
  runuser -u "$user" -- test -r "$dir/nginx/nginx.conf" \
    || fail "$user cannot read $dir/nginx: let it enter every folder above it (chmod o+x), or set NGINX_USER"
  as_nginx_user=(setpriv --reuid="$user" --regid="$(id -g "$user")" --init-groups)
fi
"${as_nginx_user[@]}" "$nginx" -p "$dir/nginx" -e "$dir/nginx/error.log" -c "$dir/nginx/nginx.conf" \
  -g 'daemon off;' 2>>"$dir/nginx/error.log" &
nginx_pid=$!
pids+=("$nginx_pid")
wait_healthy nginx "$listen" "$nginx_pid" "$dir/nginx/error.log"

echo "scale-out is serving on http://$listen"
for i in $(seq "$gateways"); do
  echo "  gateway $i:        http://127.0.0.1:$((first_port + i - 1)) (pid $(cat "$dir/gateway-$i.pid"), log $dir/gateway-$i.log)"
done
# The keys, as the first gateway printed them.
grep -E '^  (publishable|secret|anon|service_role) key:' "$dir/gateway-1.banner" || true
echo "ready"
wait "$nginx_pid"
