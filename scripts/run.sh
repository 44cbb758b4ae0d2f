#!/usr/bin/env bash
# Sets up, builds and serves everything on the embedded default: a private
# PostgreSQL cluster and local file storage under ./.data, seeded with the demo
# shop and a staff user whose credentials it prints, and the shop's frontend,
# built into frontend/dist, at /. Extra arguments go to `gateway serve` (see
# `gateway serve --help`). Ctrl-C stops it all.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
if [ -f frontend/package.json ]; then
  (cd frontend && npm run build)
fi
cargo build --release --locked -p gateway
# The shop's settings (config/shop.args): demo data, no public sign-up.
mapfile -t shop < config/shop.args
exec target/release/gateway serve "${shop[@]}" "$@"
