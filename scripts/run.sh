#!/usr/bin/env bash
# Sets up, builds and serves everything on the embedded default: a private
# PostgreSQL cluster and local file storage under ./.data. Extra arguments go to
# `gateway serve` (see `gateway serve --help`). Ctrl-C stops it all.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cargo build --release --locked -p gateway
exec target/release/gateway serve "$@"
