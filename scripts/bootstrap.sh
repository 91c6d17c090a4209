#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# Idempotent set-up. Without arguments, what running the stack needs (`npm start`): Node.js 24 and the npm
# dependencies, PostgreSQL, Redis, the Temporal CLI (dev server), the databases and their migrations. With
# --with-tests (`npm test`, the bench, fuzzing, chaos) also what only the tests use: Chromium, the time-skipping test
# server, Schemathesis, the S3-compatible server and the tests' own PostgreSQL clusters and Redis server. With
# --with-stage (`npm run stage`, the production profile) also HAProxy, supervisor and the real Temporal server and Web UI
# built from source; --with-tests includes those (the tests run the profile). A re-run only checks.
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
# shellcheck source=lib/temporal-server.sh
source "$here/lib/temporal-server.sh"

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
with_stage=false
case ${1:-} in
--with-tests) with_tests=true with_stage=true ;;
--with-stage) with_stage=true ;;
'') ;;
*) die "usage: bootstrap.sh [--with-tests | --with-stage]" ;;
esac

started=$SECONDS
# The Debian packages install in the background while Node.js, the npm dependencies and the compiled build are set
# up: on a fresh machine these are the longest steps, and they use different registries. The packages' output is
# printed when they are done.
packages=(postgresql redis-server python3-venv)
$with_tests && packages+=(chromium)
$with_stage && packages+=(haproxy supervisor)
apt_log="$RUN_DIR/bootstrap-apt.log"
ensure_apt_packages "${packages[@]}" >"$apt_log" 2>&1 9>&- &
apt_pid=$!
# The production profile's Temporal server and Web UI compile from source (minutes, once): beside the rest too.
temporal_log="$RUN_DIR/bootstrap-temporal-server.log"
if $with_stage; then
  ensure_temporal_server >"$temporal_log" 2>&1 9>&- &
  temporal_pid=$!
fi
ensure_node
ensure_npm_deps
step "compiled build (tsc -p tsconfig.build.json, incremental)"
node_modules/.bin/tsc -p tsconfig.build.json
apt_status=0
wait "$apt_pid" || apt_status=$?
cat "$apt_log"
((apt_status == 0)) || die "the Debian packages could not be installed (above)"
if $with_tests; then
  ensure_temporal_binaries --with-test-server
  ensure_schemathesis
  ensure_s3_server
else
  ensure_temporal_binaries
fi
if $with_stage; then
  temporal_status=0
  wait "$temporal_pid" || temporal_status=$?
  cat "$temporal_log"
  ((temporal_status == 0)) || die "the Temporal server could not be built (above)"
fi
ensure_postgres
ensure_redis
ensure_pg_role_and_databases
run_migrations "$PG_PORT" "${PG_DATABASES[@]}"
if $with_tests; then
  ensure_redis_tests
  for ((n = 1; n <= PG_TESTS_SERVERS; n++)); do
    ensure_postgres_tests "$n"
    ensure_pg_tests_role_and_databases "$n"
    run_migrations "$(pg_tests_port "$n")" "${PG_TESTS_DATABASES[@]}"
  done
fi
step "bootstrap done in $((SECONDS - started))s (cache: $CACHE_DIR)"
