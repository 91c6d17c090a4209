#!/usr/bin/env bash
# `npm run fuzz`: a long property-based fuzzing run of the whole OpenAPI surface (Schemathesis, stateful) against a
# real API process on the test database, Redis index and a Temporal dev server (test/fuzz/fuzz-stack.ts).
#   FUZZ_SECONDS (default 600) bounds the run, FUZZ_SEED (default 1) fixes the generation; the JUnit report lands in
#   schemathesis-report/. `bash scripts/fuzz.sh --install-only` only installs the pinned Schemathesis (idempotent).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here/.."
# shellcheck source=lib/common.sh
source "$here/lib/common.sh"
# shellcheck source=lib/schemathesis.sh
source "$here/lib/schemathesis.sh"

if [[ ${1:-} == --install-only ]]; then
  ensure_schemathesis
  exit 0
fi

bash scripts/bootstrap.sh --with-tests # services, migrations, the Temporal binaries and Schemathesis

require_project_node
export TEMPORAL_CLI_PATH="$CACHE_DIR/bin/temporal"
step "fuzzing for ${FUZZ_SECONDS:-600}s, seed ${FUZZ_SEED:-1}"
exec npx tsx test/fuzz/long-run.ts
