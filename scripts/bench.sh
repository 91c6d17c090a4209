#!/usr/bin/env bash
# `npm run bench`: bring up the real services (idempotent), then run every benchmark scenario.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
exec node --import tsx test/bench/run.ts "$@"
