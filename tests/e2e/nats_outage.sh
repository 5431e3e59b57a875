#!/usr/bin/env bash
# NATS JetStream scale-out end to end with real nats-server processes (see
# nats_e2e.py: outage). Run by ctest as: bash nats_outage.sh /path/to/chessrelay
set -euo pipefail
exec python3 "$(dirname "$0")/nats_e2e.py" "${1:?usage: nats_outage.sh /path/to/chessrelay}" outage
