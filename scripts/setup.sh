#!/usr/bin/env bash
# Installs what the project needs and this machine lacks, then builds nothing:
#   - PostgreSQL's server programs (Debian's `postgresql` package) when no
#     initdb can be found where the gateway looks for one;
#   - Node.js and npm, and the npm packages of the client tests and of the
#     type-level tests (tests/types);
#   - Deno, which runs the Edge Functions, from npm (`tools/deno`: the `deno`
#     package brings the `@deno/linux-x64-glibc` binary);
#   - Debian's Chromium, which the browser tests drive (playwright-core
#     downloads no browser of its own), and the frontend's npm packages;
#   - Debian's nginx, the load balancer of the scale-out test (the test runs
#     it unprivileged with a configuration of its own; no service is started);
#   - s3s-fs from crates.io, the S3-compatible server of the scale-out and
#     S3 backup tests, built into cargo's bin folder (about 5 minutes of CPU
#     once).
# Safe to run again: it only installs what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"
  elif command -v sudo >/dev/null; then sudo "$@"
  else echo "setup: root is needed to run: $*" >&2; exit 1
  fi
}

apt_updated=
apt_install() {
  if [ -z "$apt_updated" ]; then as_root apt-get update -qq; apt_updated=1; fi
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@"
}

# The same places the gateway searches (gateway/src/embedded.rs).
has_postgres_server() {
  command -v initdb >/dev/null && return 0
  command -v pg_config >/dev/null && [ -x "$(pg_config --bindir)/initdb" ] && return 0
  compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null
}

has_postgres_server || apt_install postgresql
command -v cargo >/dev/null || { echo "setup: cargo is missing; install Rust from https://rustup.rs" >&2; exit 1; }
command -v npm >/dev/null || apt_install nodejs npm
# The S3 client's TLS links the system OpenSSL (openssl-sys finds it through pkg-config).
{ command -v pkg-config >/dev/null && pkg-config --exists openssl; } || apt_install libssl-dev pkg-config
# SAML single sign-on (gateway-auth, through samael) links the system's
# libxmlsec1 and libxml2; samael's build makes its bindings with bindgen,
# which needs libclang.
{ pkg-config --exists xmlsec1 libxml-2.0 && compgen -G '/usr/lib/llvm-*/lib/libclang.so*' >/dev/null; } \
  || apt_install libxmlsec1-dev libxml2-dev libclang-dev
# The storage tests run against an S3-compatible server: moto in server mode.
if ! python3 -c 'import moto.server' 2>/dev/null; then
  command -v python3 >/dev/null || apt_install python3 python3-pip
  python3 -m pip install --quiet 'moto[server]==5.2.1' 2>/dev/null \
    || python3 -m pip install --quiet --break-system-packages 'moto[server]==5.2.1'
fi
# The S3 protocol's tests drive /storage/v1/s3 with boto3, the AWS CLI (both
# PyPI) and rclone (Debian) (gateway/tests/s3_protocol.rs, tests/s3/).
if ! python3 -c 'import boto3' 2>/dev/null || ! command -v aws >/dev/null; then
  python3 -m pip install --quiet 'boto3>=1.34' awscli 2>/dev/null \
    || python3 -m pip install --quiet --break-system-packages 'boto3>=1.34' awscli
fi
command -v rclone >/dev/null || apt_install rclone

[ -x /usr/sbin/nginx ] || command -v nginx >/dev/null || apt_install nginx
# 0.14.1 is the newest s3s-fs that builds with the stable Rust of this
# project's machines (later ones need a newer rustc). Cargo's own bin folder,
# outside the checkout, so that a fresh clone on this machine reuses it.
if ! command -v s3s-fs >/dev/null && [ ! -x "${CARGO_HOME:-$HOME/.cargo}/bin/s3s-fs" ]; then
  cargo install s3s-fs --version 0.14.1 --locked --features binary --quiet
fi

# A font too, or a fresh machine's screenshots show boxes for letters.
[ -x /usr/bin/chromium ] || apt_install chromium fonts-dejavu-core

if [ ! -d tests/client/node_modules ] || [ tests/client/package-lock.json -nt tests/client/node_modules ]; then
  (cd tests/client && npm ci --no-audit --no-fund --loglevel=error)
fi
if [ ! -d tests/types/node_modules ] || [ tests/types/package-lock.json -nt tests/types/node_modules ]; then
  (cd tests/types && npm ci --no-audit --no-fund --loglevel=error)
fi
if [ ! -x tools/deno/node_modules/@deno/linux-x64-glibc/deno ] || [ tools/deno/package-lock.json -nt tools/deno/node_modules ]; then
  (cd tools/deno && npm ci --no-audit --no-fund --loglevel=error)
fi
if [ -f frontend/package.json ] \
  && { [ ! -d frontend/node_modules ] || [ frontend/package-lock.json -nt frontend/node_modules ]; }; then
  (cd frontend && npm ci --no-audit --no-fund --loglevel=error)
fi
