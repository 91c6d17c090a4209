# shellcheck shell=bash
# PostgreSQL: Debian cluster on 127.0.0.1:5432, the application role and one database per mode plus tests.

PG_HOST=127.0.0.1
PG_PORT=5432
PG_APP_ROLE=client_api
PG_APP_PASSWORD=client_api # development-only credentials, same as the defaults in core/config.ts
PG_DATABASES=(client_api_production client_api_sandbox client_api_test)

pg_answering() { pg_isready -q -h "$PG_HOST" -p "$PG_PORT"; }

# Version of the newest installed server that has a `main` cluster; empty when there is none.
pg_main_version() { pg_lsclusters -h 2>/dev/null | awk '$2 == "main" { print $1 }' | sort -V | tail -n1; }

pg_newest_installed() { find /usr/lib/postgresql -mindepth 1 -maxdepth 1 -printf '%f\n' | sort -V | tail -n1; }

# Our settings go in a conf.d drop-in (Debian's postgresql.conf includes conf.d), written only when it differs.
pg_ensure_conf() {
  local ver=$1 file="/etc/postgresql/$1/main/conf.d/client-public-api.conf"
  local want="# Written by client-public-api scripts/bootstrap.sh: loopback only, fixed port.
listen_addresses = '$PG_HOST'
port = $PG_PORT"
  [[ -f $file && $(<"$file") == "$want" ]] && return
  info "writing $file (listen_addresses = '$PG_HOST', port = $PG_PORT)"
  printf '%s\n' "$want" | as_root tee "$file" >/dev/null
}

# Password logins from 127.0.0.1 (Debian's default pg_hba.conf already has this line).
pg_ensure_hba() {
  local ver=$1 hba="/etc/postgresql/$1/main/pg_hba.conf"
  if as_root grep -Eq '^host\s+all\s+all\s+127\.0\.0\.1/32\s+(md5|scram-sha-256)' "$hba"; then return; fi
  info "allowing password logins from 127.0.0.1 in $hba"
  printf 'host all all 127.0.0.1/32 scram-sha-256\n' | as_root tee -a "$hba" >/dev/null
  pg_answering && as_root pg_ctlcluster "$ver" main reload
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

# True when the role logs in with its password and owns every database (fast path of a re-run).
pg_app_ready() {
  local list
  list=$(printf "'%s'," "${PG_DATABASES[@]}")
  local sql="select (select rolcreatedb from pg_roles where rolname = current_user)
    and (select count(*) from pg_database where datname in (${list%,}) and datdba = (select oid from pg_roles where rolname = current_user)) = ${#PG_DATABASES[@]}"
  [[ $(PGPASSWORD=$PG_APP_PASSWORD psql -h "$PG_HOST" -p "$PG_PORT" -U "$PG_APP_ROLE" -d postgres -tAXc "$sql" 2>/dev/null) == t ]]
}

ensure_pg_role_and_databases() {
  step "PostgreSQL role $PG_APP_ROLE and databases ${PG_DATABASES[*]}"
  if pg_app_ready; then
    info "already present"
    return
  fi
  have_root || die "creating the role and databases needs the postgres superuser (root or sudo)"
  local ver
  ver=$(pg_main_version)
  [[ -n $ver ]] && pg_ensure_hba "$ver"
  local arr
  arr=$(printf "'%s'," "${PG_DATABASES[@]}")
  as_postgres psql -p "$PG_PORT" -v ON_ERROR_STOP=1 -qX <<SQL
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
  pg_app_ready || die "role $PG_APP_ROLE still cannot log in on $PG_HOST:$PG_PORT with its password (check pg_hba.conf)"
  info "created"
}
