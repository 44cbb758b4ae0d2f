#!/usr/bin/env bash
# The shop's first screen on a phone over slow mobile data: medians
# of cold loads of `/` and `/store` at 360 px in Chromium, with the DevTools
# protocol's throttling (150 ms round trip, 1.6 Mbps, CPU 4x slower), against a
# fresh seeded shop. Prints first contentful paint, largest contentful paint,
# the first product card with its picture, layout shift (CLS) and the bytes by
# kind, beside the targets (1.8 s and 2.5 s); then Lighthouse's mobile preset
# (npm `lighthouse`, installed here into target/bench-tools, on the same
# Chromium) scores performance, accessibility, best practices and SEO of both
# pages. NO_LIGHTHOUSE=1 skips it.
#
#   bench/first-screen.sh               # 5 loads per page, throttled
#   RUNS=9 UNTHROTTLED=1 bench/first-screen.sh
#
# Builds the frontend and the gateway (debug, as the browser tests use it)
# first; GATEWAY_BIN picks another gateway binary (target/release/gateway).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
cargo build -p gateway --quiet
(cd frontend && npm run build --silent >/dev/null)
if [ -z "${NO_LIGHTHOUSE:-}" ]; then
  tools="$root/target/bench-tools"
  if [ ! -x "$tools/node_modules/.bin/lighthouse" ]; then
    mkdir -p "$tools"
    npm install --prefix "$tools" --no-audit --no-fund --loglevel=error lighthouse@13.5.0 >/dev/null
  fi
  export LIGHTHOUSE_BIN="$tools/node_modules/.bin/lighthouse"
fi
cd frontend && exec node scripts/first-screen.mjs
