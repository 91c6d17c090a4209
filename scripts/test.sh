#!/usr/bin/env bash
# README command 2 (`npm test`): set up (reusing running services), typecheck, lint, then the whole mocha suite.
# Extra arguments go to mocha, e.g. `npm test -- --grep healthz`.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here/.."
# shellcheck source=lib/common.sh
source "$here/lib/common.sh"
cache=$CACHE_DIR

bash scripts/bootstrap.sh --with-tests
require_project_node

echo '==> npm run typecheck'
npm run --silent typecheck
echo '==> npm run lint'
npm run --silent lint

# Overridable so that two checkouts can run their suites side by side on their own database and Redis index. By
# default the tests' own PostgreSQL server (cluster `tests` on 5433, scripts/lib/postgres.sh): the outbox horizon is
# per server, so `npm start`'s databases on 5432 cannot hold the tests' consumers back.
export TEST_DATABASE_URL=${TEST_DATABASE_URL:-postgres://client_api:client_api@127.0.0.1:5433/client_api_test}
export TEST_REDIS_URL=${TEST_REDIS_URL:-redis://127.0.0.1:6379/15}
export TEMPORAL_CLI_PATH="$cache/bin/temporal"
export TEMPORAL_TEST_SERVER_PATH="$cache/bin/temporal-test-server"
export CHROMIUM_PATH=/usr/bin/chromium
export APP_ENV=test # the public development webhook key is allowed in tests
# The whole suite unless test files were named (`npm test -- test/integration/x.test.ts`).
if [[ " $* " != *".test.ts"* ]]; then set -- 'test/**/*.test.ts' "$@"; fi
echo '==> mocha'
npx mocha "$@"
