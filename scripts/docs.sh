#!/usr/bin/env bash
# Builds the book under docs/ with VitePress (into docs/.vitepress/dist), which
# fails on a link to a page that does not exist. Installs the docs' npm packages
# first (npm ci, from docs/package-lock.json) when they are missing or older
# than the lock file.
set -euo pipefail
cd "$(dirname "$0")/../docs"
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules ]; then
  npm ci --no-audit --no-fund --loglevel=error
fi
npm run --silent build
