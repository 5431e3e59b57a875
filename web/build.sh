#!/usr/bin/env bash
# Builds the viewer into web/dist (npm ci first when node_modules is missing).
set -euo pipefail
cd "$(dirname "$0")"
if [ ! -d node_modules/chessground ] || [ ! -d node_modules/esbuild ] || [ ! -d node_modules/chess.js ] || [ ! -d node_modules/flag-icons ]; then
  npm ci --no-audit --no-fund
fi
npm run --silent build
