#!/usr/bin/env bash
# `npm run bench`: bring up the real services (idempotent), make sure the bench database exists and is migrated (its
# list tenants of up to 1,000,000 rows are kept there between runs), then run every benchmark scenario.
# BENCH_QUICK=1 runs on the test database instead, with small data.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here/.."
# shellcheck source=lib/common.sh
source "$here/lib/common.sh"
bash scripts/bootstrap.sh --with-tests
require_project_node
# The processes under test use the public development webhook key, as the tests do: nothing here is production.
export APP_ENV="${APP_ENV:-test}"
if [[ "${BENCH_QUICK:-}" != 1 ]]; then
  export BENCH_DATABASE_URL=${BENCH_DATABASE_URL:-postgres://client_api:client_api@127.0.0.1:5433/client_api_bench}
  server_url="${BENCH_DATABASE_URL%/*}/postgres"
  name="${BENCH_DATABASE_URL##*/}"
  if [[ -z "$(psql "$server_url" -Atc "select 1 from pg_database where datname = '$name'")" ]]; then
    psql "$server_url" -qc "create database \"$name\""
  fi
  DATABASE_URL="$BENCH_DATABASE_URL" npx tsx scripts/migrate.ts
fi
exec node --import tsx test/bench/run.ts "$@"
