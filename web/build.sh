#!/usr/bin/env bash
# Builds the viewer into web/dist (npm ci first when node_modules is missing).
set -euo pipefail
cd "$(dirname "$0")"
if [ ! -d node_modules/chessground ] || [ ! -d node_modules/esbuild ] || [ ! -d node_modules/chess.js ] ||
   [ ! -d node_modules/flag-icons ] || [ ! -d node_modules/svgo ] || [ ! -d node_modules/@resvg/resvg-js ]; then
  npm ci --no-audit --no-fund
fi
npm run --silent build
