# shellcheck shell=bash
# PostgreSQL: the Debian cluster `main` on 127.0.0.1:5432 with the application role and one database per mode, and a
# second cluster `tests` on 127.0.0.1:5433 with the same role and the tests' database. The tests have a server of
# their own because the outbox horizon is per server: a transaction open in `npm start`'s databases (a consumer
# catching up a backlog) would otherwise hold back the tests' consumers on the same server (docs/operators/operations.md).

PG_HOST=127.0.0.1
PG_PORT=5432
PG_APP_ROLE=client_api
PG_APP_PASSWORD=client_api # development-only credentials, same as the defaults in core/config.ts
PG_DATABASES=(client_api_production client_api_sandbox)
# The tests' servers: `tests` on 5433, `tests2` on 5434, … one per test process running side by side (test/support/
# test-slot.ts), because the outbox horizon is per server: a transaction open in one test process's database would
# otherwise hide new events from every other's. Each holds the migrated template database.
PG_TESTS_SERVERS=4
PG_TESTS_PORT=5433
PG_TESTS_DATABASES=(client_api_test)

pg_answering() { pg_isready -q -h "$PG_HOST" -p "${1:-$PG_PORT}"; }
# Usage: pg_tests_cluster N (1-based): its name; pg_tests_port N: its port.
pg_tests_cluster() { if (($1 == 1)); then echo tests; else echo "tests$1"; fi; }
pg_tests_port() { echo $((PG_TESTS_PORT + $1 - 1)); }

# Version of the newest installed server that has a `main` cluster; empty when there is none.
pg_main_version() { pg_lsclusters -h 2>/dev/null | awk '$2 == "main" { print $1 }' | sort -V | tail -n1; }

pg_newest_installed() { find /usr/lib/postgresql -mindepth 1 -maxdepth 1 -printf '%f\n' | sort -V | tail -n1; }

# Our settings go in a conf.d drop-in (Debian's postgresql.conf includes conf.d), written only when it differs.
# Usage: pg_ensure_conf VERSION [CLUSTER PORT [EXTRA_SETTINGS]] (default: main on PG_PORT).
pg_ensure_conf() {
  local ver=$1 cluster=${2:-main} port=${3:-$PG_PORT} extra=${4:-}
  local file="/etc/postgresql/$ver/$cluster/conf.d/client-public-api.conf"
  local want="# Written by client-public-api scripts/bootstrap.sh: loopback only, fixed port.
listen_addresses = '$PG_HOST'
port = $port"
  [[ -n $extra ]] && want+=$'\n'"$extra"
  [[ -f $file && $(<"$file") == "$want" ]] && return
  info "writing $file (listen_addresses = '$PG_HOST', port = $port)"
  as_root mkdir -p "$(dirname "$file")"
  printf '%s\n' "$want" | as_root tee "$file" >/dev/null
}

# Password logins from 127.0.0.1 (Debian's default pg_hba.conf already has this line).
# Usage: pg_ensure_hba VERSION [CLUSTER PORT] (default: main on PG_PORT).
pg_ensure_hba() {
  local ver=$1 cluster=${2:-main} port=${3:-$PG_PORT}
  local hba="/etc/postgresql/$ver/$cluster/pg_hba.conf"
  if as_root grep -Eq '^host\s+all\s+all\s+127\.0\.0\.1/32\s+(md5|scram-sha-256)' "$hba"; then return; fi
  info "allowing password logins from 127.0.0.1 in $hba"
  printf 'host all all 127.0.0.1/32 scram-sha-256\n' | as_root tee -a "$hba" >/dev/null
  pg_answering "$port" && as_root pg_ctlcluster "$ver" "$cluster" reload
}

ensure_postgres() {
  step "PostgreSQL on $PG_HOST:$PG_PORT"
  if pg_answering; then
    info "already answering"
    return
  fi
  have_root || die "PostgreSQL is not running and starting it needs root; run: sudo pg_ctlcluster <version> main start"
  local ver
  ver=$(pg_main_version)
  if [[ -z $ver ]]; then
    ver=$(pg_newest_installed)
    [[ -n $ver ]] || die "no PostgreSQL server installed; run: apt-get install -y postgresql"
    info "creating cluster $ver/main"
    as_root pg_createcluster "$ver" main
  fi
  pg_ensure_conf "$ver"
  pg_ensure_hba "$ver"
  info "starting cluster $ver/main"
  as_root pg_ctlcluster "$ver" main start 9>&- # the server must not inherit the bootstrap lock
  wait_for 60 PostgreSQL pg_answering
  record_started "postgres $ver main"
}

# Version of a cluster; empty when there is none. Usage: pg_cluster_version NAME
pg_cluster_version() { pg_lsclusters -h 2>/dev/null | awk -v c="$1" '$2 == c { print $1 }' | sort -V | tail -n1; }

# One of the tests' own clusters, created on first use with the server version of `main`. Not recorded as started by
# this run: `npm start` stopping on exit must not take the tests' servers away from a test run beside it.
# Usage: ensure_postgres_tests N
ensure_postgres_tests() {
  local cluster port
  cluster=$(pg_tests_cluster "$1")
  port=$(pg_tests_port "$1")
  step "PostgreSQL for tests on $PG_HOST:$port (cluster $cluster)"
  if pg_answering "$port"; then
    info "already answering"
    return
  fi
  have_root || die "the tests' PostgreSQL cluster is not running and starting it needs root; run: sudo pg_ctlcluster <version> $cluster start"
  pg_start_cluster "$cluster" "$port" "PostgreSQL (tests)"
}

# Creates (with the server version of `main`, or the newest installed) and starts a cluster of its own: loopback, its
# port, password logins, and any extra settings (a running cluster whose settings need a restart is restarted by the
# caller). Usage: pg_start_cluster NAME PORT DESCRIPTION [EXTRA_SETTINGS]
pg_start_cluster() {
  local cluster=$1 port=$2 what=$3 extra=${4:-} ver
  ver=$(pg_cluster_version "$cluster")
  if [[ -z $ver ]]; then
    ver=$(pg_main_version)
    [[ -n $ver ]] || ver=$(pg_newest_installed)
    [[ -n $ver ]] || die "no PostgreSQL server installed; run: apt-get install -y postgresql"
    info "creating cluster $ver/$cluster on port $port"
    as_root pg_createcluster "$ver" "$cluster" --port "$port" >/dev/null
  fi
  pg_ensure_conf "$ver" "$cluster" "$port" "$extra"
  pg_ensure_hba "$ver" "$cluster" "$port"
  pg_answering "$port" && return
  info "starting cluster $ver/$cluster"
  as_root pg_ctlcluster "$ver" "$cluster" start 8>&- 9>&- # the server must inherit no lock of the scripts
  wait_for 60 "$what" pg_answering "$port"
}

# True when the role logs in with its password and owns every database (fast path of a re-run).
# Usage: pg_app_ready PORT DATABASE...
pg_app_ready() {
  local port=$1 list
  shift
  list=$(printf "'%s'," "$@")
  local sql="select (select rolcreatedb from pg_roles where rolname = current_user)
    and (select count(*) from pg_database where datname in (${list%,}) and datdba = (select oid from pg_roles where rolname = current_user)) = $#"
  [[ $(PGPASSWORD=$PG_APP_PASSWORD psql -h "$PG_HOST" -p "$port" -U "$PG_APP_ROLE" -d postgres -tAXc "$sql" 2>/dev/null) == t ]]
}

# The role and the databases it owns on one cluster. Usage: pg_ensure_role_and_databases CLUSTER PORT DATABASE...
pg_ensure_role_and_databases() {
  local cluster=$1 port=$2
  shift 2
  step "PostgreSQL role $PG_APP_ROLE and databases $* on port $port"
  if pg_app_ready "$port" "$@"; then
    info "already present"
    return
  fi
  have_root || die "creating the role and databases needs the postgres superuser (root or sudo)"
  local ver
  ver=$(pg_lsclusters -h 2>/dev/null | awk -v c="$cluster" '$2 == c { print $1 }' | sort -V | tail -n1)
  [[ -n $ver ]] && pg_ensure_hba "$ver" "$cluster" "$port"
  local arr
  arr=$(printf "'%s'," "$@")
  as_postgres psql -p "$port" -v ON_ERROR_STOP=1 -qX <<SQL
DO \$\$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '$PG_APP_ROLE') THEN
    CREATE ROLE $PG_APP_ROLE LOGIN CREATEDB PASSWORD '$PG_APP_PASSWORD';
  ELSE
    ALTER ROLE $PG_APP_ROLE LOGIN CREATEDB PASSWORD '$PG_APP_PASSWORD';
  END IF;
END \$\$;
SELECT format('CREATE DATABASE %I OWNER $PG_APP_ROLE', d) FROM unnest(array[${arr%,}]) d
  WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = d) \gexec
SELECT format('ALTER DATABASE %I OWNER TO $PG_APP_ROLE', d) FROM unnest(array[${arr%,}]) d \gexec
SQL
  pg_app_ready "$port" "$@" || die "role $PG_APP_ROLE still cannot log in on $PG_HOST:$port with its password (check pg_hba.conf)"
  info "created"
}

ensure_pg_role_and_databases() { pg_ensure_role_and_databases main "$PG_PORT" "${PG_DATABASES[@]}"; }
# Usage: ensure_pg_tests_role_and_databases N
ensure_pg_tests_role_and_databases() {
  pg_ensure_role_and_databases "$(pg_tests_cluster "$1")" "$(pg_tests_port "$1")" "${PG_TESTS_DATABASES[@]}"
}
