#!/usr/bin/env bash
# NATS JetStream scale-out end to end with real nats-server processes (see
# nats_e2e.py: cluster). Run by ctest as: bash nats_cluster.sh /path/to/chessrelay
set -euo pipefail
exec python3 "$(dirname "$0")/nats_e2e.py" "${1:?usage: nats_cluster.sh /path/to/chessrelay}" cluster
