#!/usr/bin/env bash
# `npm run soak`: install what is missing (idempotent), then run the realistic mix for SOAK_MINUTES (default 30) at
# half the measured maximum on a stack of its own (test/soak/run.ts), and print the verdicts and where the charts are.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here/.."
# shellcheck source=lib/common.sh
source "$here/lib/common.sh"
bash scripts/bootstrap.sh --with-tests
require_project_node
# The processes under test use the public development webhook key, as the tests and the bench do.
export APP_ENV="${APP_ENV:-test}"
exec node --import tsx test/soak/run.ts "$@"
