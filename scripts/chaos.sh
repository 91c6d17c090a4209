#!/usr/bin/env bash
# `npm run chaos`: kill -9 under load, the long form (test/chaos/long-run.ts): CHAOS_ROUNDS rounds (default 5) in
# which the API, each worker, the Temporal dev server, PostgreSQL and Redis of a stack of its own are SIGKILLed and
# restarted one after another under load; prints the counts and fails if anything was lost or doubled.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here/.."
# shellcheck source=lib/common.sh
source "$here/lib/common.sh"

bash scripts/bootstrap.sh --with-tests # the PostgreSQL and Redis binaries, the Temporal CLI
require_project_node
export TEMPORAL_CLI_PATH="$CACHE_DIR/bin/temporal"
export APP_ENV=test # the public development webhook key is allowed
step "chaos: ${CHAOS_ROUNDS:-5} rounds"
exec npx tsx test/chaos/long-run.ts
