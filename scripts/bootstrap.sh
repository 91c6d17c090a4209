#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# Idempotent set-up. Without arguments, what running the stack needs (`npm start`): Node.js 24 and the npm
# dependencies, PostgreSQL, Redis, the Temporal CLI (dev server), the databases and their migrations. With
# --with-tests (`npm test`, the bench, fuzzing, chaos) also what only the tests use: Chromium, the time-skipping test
# server, Schemathesis, the S3-compatible server and the tests' own PostgreSQL cluster. A re-run only checks.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here/.."
# shellcheck source=lib/common.sh
source "$here/lib/common.sh"
# shellcheck source=lib/apt.sh
source "$here/lib/apt.sh"
# shellcheck source=lib/postgres.sh
source "$here/lib/postgres.sh"
# shellcheck source=lib/redis.sh
source "$here/lib/redis.sh"
# shellcheck source=lib/temporal.sh
source "$here/lib/temporal.sh"
# shellcheck source=lib/schemathesis.sh
source "$here/lib/schemathesis.sh"
# shellcheck source=lib/s3.sh
source "$here/lib/s3.sh"

mkdir -p "$RUN_DIR"
# Two bootstraps at once (e.g. `npm start` and `npm test`) would race to start the same services.
exec 9>"$RUN_DIR/bootstrap.lock"
flock -n 9 || {
  info "another bootstrap is running; waiting for it"
  flock 9
}
: >"$STARTED_FILE"

# Knex runs exactly the files missing from knex_migrations; when the recorded names equal the files on disk,
# starting Node three times would only say "nothing to apply", so skip it (keeps a re-run fast).
migrations_current() {
  local url=$1 on_disk recorded
  on_disk=$(find migrations -maxdepth 1 -name '*.ts' -printf '%f\n' | sort)
  recorded=$(psql "$url" -tAXc 'select name from knex_migrations order by name' 2>/dev/null) || return 1
  [[ $on_disk == "$recorded" ]]
}

# Usage: run_migrations PORT DATABASE...
run_migrations() {
  local port=$1 db url
  shift
  for db in "$@"; do
    step "migrations on $db (port $port)"
    url="postgres://$PG_APP_ROLE:$PG_APP_PASSWORD@$PG_HOST:$port/$db"
    if migrations_current "$url"; then
      info "up to date ($(find migrations -maxdepth 1 -name '*.ts' | wc -l) applied)"
    else
      DATABASE_URL=$url npm run --silent migrate
    fi
  done
}

with_tests=false
case ${1:-} in
--with-tests) with_tests=true ;;
'') ;;
*) die "usage: bootstrap.sh [--with-tests]" ;;
esac

started=$SECONDS
ensure_node
ensure_npm_deps
if $with_tests; then
  ensure_apt_packages postgresql redis-server python3-venv chromium
  ensure_temporal_binaries --with-test-server
  ensure_schemathesis
  ensure_s3_server
else
  ensure_apt_packages postgresql redis-server python3-venv
  ensure_temporal_binaries
fi
ensure_postgres
ensure_redis
ensure_pg_role_and_databases
run_migrations "$PG_PORT" "${PG_DATABASES[@]}"
if $with_tests; then
  ensure_postgres_tests
  ensure_pg_tests_role_and_databases
  run_migrations "$PG_TESTS_PORT" "${PG_TESTS_DATABASES[@]}"
fi
step "bootstrap done in $((SECONDS - started))s (cache: $CACHE_DIR)"
