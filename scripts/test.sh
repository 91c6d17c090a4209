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

# The tests' own servers (scripts/lib/postgres.sh, redis.sh), never the development stack's: PostgreSQL clusters on
# 5433 and up (`tests`, `tests2`, …: the outbox horizon is per server, so each test process side by side gets one and
# nobody's transactions hold back another's events) and Redis on 6380. Each test process copies its server's
# migrated template database into its own and takes a Redis database of its own (test/support/test-slot.ts).
# Overridable, e.g. for a second checkout with its own servers.
export TEST_TEMPLATE_DATABASE_URL=${TEST_TEMPLATE_DATABASE_URL:-postgres://client_api:client_api@127.0.0.1:5433/client_api_test}
export TEST_POSTGRES_SERVERS=${TEST_POSTGRES_SERVERS:-4}
export TEST_REDIS_SERVER_URL=${TEST_REDIS_SERVER_URL:-redis://127.0.0.1:6380}
export TEMPORAL_CLI_PATH="$cache/bin/temporal"
export TEMPORAL_TEST_SERVER_PATH="$cache/bin/temporal-test-server"
export CHROMIUM_PATH=/usr/bin/chromium
export APP_ENV=test # the public development webhook key is allowed in tests

# Test files named (`npm test -- test/integration/x.test.ts`): those alone, in one process, as named.
if [[ " $* " == *".test.ts"* ]]; then
  echo '==> mocha'
  exec npx mocha "$@"
fi

# The whole suite in two phases (test/schedule.txt): first every file but the serial ones, in parallel worker
# processes (mocha --parallel), each with its own database, Redis database, mail sink, servers and ports
# (test/support/hooks.ts), the longest files started first; then the serial files, one at a time, alone on the
# machine. Both phases run whatever the first gave; the last line is the whole suite's count.
jobs=${TEST_JOBS:-3}
section() { awk -v want="[$1]" '/^\[/ { on = ($0 == want); next } on && NF && !/^#/' test/schedule.txt; }
mapfile -t first < <(section first)
mapfile -t serial < <(section serial)
mapfile -t parallel < <(
  printf '%s\n' "${first[@]}"
  find test -name '*.test.ts' | sort | grep -vxF -f <(printf '%s\n' "${first[@]}" "${serial[@]}")
)
summary=$(mktemp)
# The suite's production profile (test/support/production-profile.ts: `stagetest`, ports from 18400) stops with the
# suite rather than running on beside whatever comes next; its state stays, so the next run's start is quick.
stop_suite_profile() {
  echo '==> stopping the suite’s production profile (stagetest)'
  STAGE_NAME=stagetest STAGE_PORT_BASE=18400 bash scripts/stage.sh stop >/dev/null 2>&1 || true
}
trap 'rm -f "$summary"; stop_suite_profile' EXIT
export TEST_SUMMARY_FILE=$summary
status=0
echo "==> mocha: ${#parallel[@]} files in $jobs parallel workers"
npx mocha --parallel --jobs "$jobs" "$@" -- "${parallel[@]}" || status=$?
echo "==> mocha: ${#serial[@]} serial files, one at a time"
npx mocha "$@" -- "${serial[@]}" || status=$?
awk '{ p += $1; f += $2; s += $3 } END { printf "%d passed, %d failed%s\n", p, f, (s ? sprintf(", %d skipped", s) : "") }' "$summary"
exit "$status"
