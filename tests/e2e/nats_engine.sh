#!/usr/bin/env bash
# Engine evaluations over NATS to edge relays, with a real nats-server and
# Stockfish (see nats_e2e.py: engine). Run by ctest as: bash nats_engine.sh /path/to/chessrelay
set -euo pipefail
exec python3 "$(dirname "$0")/nats_e2e.py" "${1:?usage: nats_engine.sh /path/to/chessrelay}" engine
