# shellcheck shell=bash
# The production profile's steps (scripts/stage.sh): its settings, secrets, local CA, PostgreSQL cluster, Redis,
# Temporal schema and namespaces, the supervisor, and stopping it all. Every step is idempotent and says what it does.

# Every setting, port and path of the profile, exported: supervisord and the config files in ops/stage/ read them.
stage_settings() {
  export STAGE_NAME=${STAGE_NAME:-stage}
  [[ $STAGE_NAME =~ ^[a-z][a-z0-9]*$ ]] || die "STAGE_NAME must be lower-case letters and digits: $STAGE_NAME"
  export STAGE_ROOT=$PWD
  export STAGE_STATE_DIR=${STAGE_STATE_DIR:-${XDG_STATE_HOME:-$HOME/.local/state}/client-public-api/$STAGE_NAME}
  export STAGE_SECRETS_DIR=$STAGE_STATE_DIR/secrets STAGE_PKI_DIR=$STAGE_STATE_DIR/pki
  export STAGE_LOG_DIR=$STAGE_STATE_DIR/logs STAGE_RUN_DIR=$STAGE_STATE_DIR/run
  export STAGE_BIN_DIR=$CACHE_DIR/bin
  export STAGE_SUPERVISOR_CONF=$STAGE_ROOT/ops/stage/supervisord.conf
  export STAGE_TEMPORAL_DYNAMIC_CONFIG=$STAGE_ROOT/ops/temporal-dynamic-config.yaml
  STAGE_NODE=$(command -v node || true)
  export STAGE_NODE
  local b=${STAGE_PORT_BASE:-8400}
  export STAGE_PORT_BASE=$b
  # Loopback ports, from the base: the apps, the Web UI and the metrics (+0…+9), Temporal (+10…+19), Redis and mail
  # (+20…+22), PostgreSQL (+30); what the proxy publishes: https (+43…+45) and their http redirects (+80…+82).
  export STAGE_API_PRODUCTION_PORT=$b STAGE_API_SANDBOX_PORT=$((b + 1)) STAGE_TEMPORAL_UI_PORT=$((b + 2))
  export STAGE_API_PRODUCTION_METRICS_PORT=$((b + 5)) STAGE_API_SANDBOX_METRICS_PORT=$((b + 6))
  export STAGE_WORKER_WEBHOOKS_METRICS_PORT=$((b + 7)) STAGE_WORKER_LIFECYCLE_METRICS_PORT=$((b + 8))
  export STAGE_WORKER_SANDBOX_METRICS_PORT=$((b + 9)) STAGE_WORKER_PLACEMENTS_METRICS_PORT=$((b + 3))
  export STAGE_TEMPORAL_PORT=$((b + 10)) STAGE_TEMPORAL_HTTP_PORT=$((b + 11)) STAGE_TEMPORAL_HISTORY_PORT=$((b + 12))
  export STAGE_TEMPORAL_MATCHING_PORT=$((b + 13)) STAGE_TEMPORAL_WORKER_PORT=$((b + 14))
  export STAGE_TEMPORAL_FRONTEND_MEMBERSHIP_PORT=$((b + 15)) STAGE_TEMPORAL_HISTORY_MEMBERSHIP_PORT=$((b + 16))
  export STAGE_TEMPORAL_MATCHING_MEMBERSHIP_PORT=$((b + 17)) STAGE_TEMPORAL_WORKER_MEMBERSHIP_PORT=$((b + 18))
  export STAGE_TEMPORAL_METRICS_PORT=$((b + 19))
  export STAGE_REDIS_PORT=$((b + 20)) STAGE_SMTP_PORT=$((b + 21)) STAGE_MAIL_WEB_PORT=$((b + 22))
  export STAGE_POSTGRES_PORT=$((b + 30))
  export STAGE_HTTPS_PRODUCTION_PORT=$((b + 43)) STAGE_HTTPS_SANDBOX_PORT=$((b + 44))
  export STAGE_HTTPS_TEMPORAL_UI_PORT=$((b + 45))
  export STAGE_HTTP_PRODUCTION_PORT=$((b + 80)) STAGE_HTTP_SANDBOX_PORT=$((b + 81))
  export STAGE_HTTP_TEMPORAL_UI_PORT=$((b + 82))
  # The production host's payments: none online (unset) or stripe, its secret key and webhook secret read from the
  # secrets directory (stripe-secret-key, stripe-webhook-secret), the publishable key and an API origin other than
  # api.stripe.com (a test suite's stand-in) from here. `test` is refused by the API itself with APP_ENV=production.
  export STAGE_PAYMENT_PROCESSOR=${STAGE_PAYMENT_PROCESSOR:-}
  export STAGE_STRIPE_PUBLISHABLE_KEY=${STAGE_STRIPE_PUBLISHABLE_KEY:-} STAGE_STRIPE_API_URL=${STAGE_STRIPE_API_URL:-}
  case $STAGE_PAYMENT_PROCESSOR in
  '' | stripe) ;;
  test) die "STAGE_PAYMENT_PROCESSOR=test: the test-mode processor is refused in production configuration (a test card would settle a real debt); use stripe, or leave it unset" ;;
  *) die "STAGE_PAYMENT_PROCESSOR must be stripe or unset: $STAGE_PAYMENT_PROCESSOR" ;;
  esac
  export STAGE_API_PROCESSES=${STAGE_API_PROCESSES:-2}
  export STAGE_TEMPORAL_UI_URL=https://localhost:$STAGE_HTTPS_TEMPORAL_UI_PORT

  # The apps' environment (docs/operators/configuration.md): production, and only what production would set.
  export APP_ENV=production NODE_ENV=production HOST=127.0.0.1 LOG_LEVEL=info LOG_FORMAT=json
  export API_PROCESSES=$STAGE_API_PROCESSES
  export PRODUCTION_BASE_URL=https://localhost:$STAGE_HTTPS_PRODUCTION_PORT
  export SANDBOX_BASE_URL=https://localhost:$STAGE_HTTPS_SANDBOX_PORT
  export TEMPORAL_UI_URL=$STAGE_TEMPORAL_UI_URL
  export TEMPORAL_ADDRESS=127.0.0.1:$STAGE_TEMPORAL_PORT
  export PRODUCTION_TEMPORAL_NAMESPACE=client-api-production SANDBOX_TEMPORAL_NAMESPACE=client-api-sandbox
  # The proxy connects from loopback: its X-Forwarded-For and X-Forwarded-Proto are believed, nobody else's.
  export TRUSTED_PROXIES=127.0.0.1,::1
  export SMTP_URL=${STAGE_SMTP_URL:-smtp://127.0.0.1:$STAGE_SMTP_PORT}
  export MAIL_FROM='Client console <console@localhost>'
  export NOTIFICATIONS_MAIL_FROM='Account notifications <notifications@localhost>'
  export DOCUMENT_DIR=$STAGE_STATE_DIR/documents
  export WEBHOOK_ALLOW_HOSTS=${STAGE_WEBHOOK_ALLOW_HOSTS:-}
  # Webhook receivers and the SDK's https calls trust the profile's local CA as well as the public ones.
  export NODE_EXTRA_CA_CERTS=$STAGE_PKI_DIR/ca.crt
}

# The variables supervisord (and so every process it runs) gets: these and nothing else of the caller's environment,
# so a variable of the shell that started the profile (a test's, a developer's) never reaches production processes.
stage_process_env() {
  local name
  printf '%s\n' "PATH=$(dirname "$STAGE_NODE"):/usr/local/bin:/usr/bin:/bin" "HOME=$HOME" "LANG=C.UTF-8"
  for name in $(compgen -e | grep -E '^STAGE_'); do printf '%s=%s\n' "$name" "${!name}"; done
  for name in APP_ENV NODE_ENV HOST LOG_LEVEL LOG_FORMAT API_PROCESSES PRODUCTION_BASE_URL SANDBOX_BASE_URL \
    TEMPORAL_UI_URL TEMPORAL_ADDRESS PRODUCTION_TEMPORAL_NAMESPACE SANDBOX_TEMPORAL_NAMESPACE TRUSTED_PROXIES \
    SMTP_URL MAIL_FROM NOTIFICATIONS_MAIL_FROM DOCUMENT_DIR WEBHOOK_ALLOW_HOSTS NODE_EXTRA_CA_CERTS; do
    printf '%s=%s\n' "$name" "${!name}"
  done
}

# Secrets: generated once, each in a file of its own (0600) in a directory only this user can open (0700).
ensure_stage_secrets() {
  step "secrets in $STAGE_SECRETS_DIR"
  mkdir -p "$STAGE_STATE_DIR" "$STAGE_LOG_DIR" "$STAGE_RUN_DIR" "$DOCUMENT_DIR"
  (umask 077 && mkdir -p "$STAGE_SECRETS_DIR")
  chmod 0700 "$STAGE_SECRETS_DIR"
  local name made=()
  for name in webhook-secret-key app-db-password temporal-db-password redis-password; do
    [[ -s $STAGE_SECRETS_DIR/$name ]] && continue
    # URL-safe passwords (they go into connection URLs); the webhook key is 32 random bytes in base64.
    if [[ $name == webhook-secret-key ]]; then openssl rand -base64 32; else openssl rand -hex 24; fi |
      (umask 077 && cat >"$STAGE_SECRETS_DIR/$name.tmp")
    mv "$STAGE_SECRETS_DIR/$name.tmp" "$STAGE_SECRETS_DIR/$name"
    made+=("$name")
  done
  chmod 0600 "$STAGE_SECRETS_DIR"/*
  if ((${#made[@]})); then info "generated ${made[*]}"; else info "already present"; fi
  if [[ $STAGE_PAYMENT_PROCESSOR == stripe ]]; then
    for name in stripe-secret-key stripe-webhook-secret; do
      [[ -s $STAGE_SECRETS_DIR/$name ]] || die "STAGE_PAYMENT_PROCESSOR=stripe: put your Stripe ${name#stripe-} into $STAGE_SECRETS_DIR/$name (mode 0600)"
    done
    [[ -n $STAGE_STRIPE_PUBLISHABLE_KEY ]] || die "STAGE_PAYMENT_PROCESSOR=stripe needs STAGE_STRIPE_PUBLISHABLE_KEY (pk_…)"
    info "Stripe's secret key and webhook secret present"
  fi
}

# A local CA (ten years) and the proxy's certificate for localhost, 127.0.0.1 and ::1 (renewed within 30 days of its
# end). Browsers and clients trust the profile by trusting ca.crt.
ensure_stage_pki() {
  step "local CA and the proxy's certificate in $STAGE_PKI_DIR"
  (umask 077 && mkdir -p "$STAGE_PKI_DIR")
  local dir=$STAGE_PKI_DIR
  if [[ ! -s $dir/ca.crt || ! -s $dir/ca.key ]]; then
    info "creating the local CA"
    (umask 077 && openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 3650 \
      -keyout "$dir/ca.key" -out "$dir/ca.crt" -subj "/O=Client Public API/CN=Production profile local CA ($STAGE_NAME)" \
      -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign 2>/dev/null)
    rm -f "$dir/server.crt"
  fi
  if [[ -s $dir/server.crt ]] && openssl x509 -checkend 2592000 -noout -in "$dir/server.crt" >/dev/null; then
    info "present (CA: $dir/ca.crt; certificate valid until $(openssl x509 -enddate -noout -in "$dir/server.crt" | cut -d= -f2))"
    return
  fi
  info "issuing the certificate for localhost, 127.0.0.1 and ::1"
  (umask 077 && openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$dir/server.key" \
    -out "$dir/server.csr" -subj /CN=localhost 2>/dev/null)
  openssl x509 -req -in "$dir/server.csr" -CA "$dir/ca.crt" -CAkey "$dir/ca.key" -CAcreateserial -days 397 \
    -out "$dir/server.crt" -extfile <(printf '%s\n' 'subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1' \
      'basicConstraints=critical,CA:FALSE' 'keyUsage=critical,digitalSignature' 'extendedKeyUsage=serverAuth') 2>/dev/null
  rm -f "$dir/server.csr"
}

# Connections the profile's PostgreSQL takes, as docker-compose.yml's `postgres` does: the Temporal server's pools
# (four services, each up to 24) and every app process's (two API processes per mode, three workers whose pools grow
# with their activity slots) outgrow the default 100 under a burst.
STAGE_MAX_CONNECTIONS=300
STAGE_POSTGRES_SETTINGS="max_connections = $STAGE_MAX_CONNECTIONS"

# The profile's own PostgreSQL cluster (named after the profile), with the application's and Temporal's roles, their
# passwords from the secrets, and their databases.
ensure_stage_postgres() {
  local cluster=$STAGE_NAME port=$STAGE_POSTGRES_PORT
  step "PostgreSQL cluster $cluster on $PG_HOST:$port"
  have_root || die "the profile's PostgreSQL cluster needs the postgres superuser (root or sudo)"
  if pg_answering "$port"; then info "already answering"; fi
  pg_start_cluster "$cluster" "$port" "PostgreSQL ($cluster)" "$STAGE_POSTGRES_SETTINGS"
  # max_connections takes a restart: a cluster started before it was set is restarted once.
  local have
  have=$(as_postgres psql -p "$port" -tAXc 'show max_connections')
  if [[ $have != "$STAGE_MAX_CONNECTIONS" ]]; then
    info "restarting cluster $cluster for max_connections = $STAGE_MAX_CONNECTIONS (was $have)"
    as_root pg_ctlcluster "$(pg_cluster_version "$cluster")" "$cluster" restart 8>&- 9>&-
    wait_for 60 "PostgreSQL ($cluster)" pg_answering "$port"
  fi
  # The passwords go in on standard input, never on a command line.
  as_postgres psql -p "$port" -v ON_ERROR_STOP=1 -qX <<SQL
\set app_pw '$(<"$STAGE_SECRETS_DIR/app-db-password")'
\set temporal_pw '$(<"$STAGE_SECRETS_DIR/temporal-db-password")'
SELECT format('CREATE ROLE %I LOGIN', r) FROM unnest(array['client_api', 'temporal']) r
  WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = r) \gexec
ALTER ROLE client_api PASSWORD :'app_pw';
ALTER ROLE temporal PASSWORD :'temporal_pw';
SELECT format('CREATE DATABASE %I OWNER client_api', d) FROM unnest(array['client_api_production', 'client_api_sandbox']) d
  WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = d) \gexec
SELECT format('CREATE DATABASE %I OWNER temporal', d) FROM unnest(array['temporal', 'temporal_visibility']) d
  WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = d) \gexec
SQL
  info "roles client_api and temporal; databases client_api_production, client_api_sandbox, temporal, temporal_visibility"
}

stage_redis_answering() { [[ $(REDISCLI_AUTH=$(<"$STAGE_SECRETS_DIR/redis-password") redis-cli -p "$STAGE_REDIS_PORT" ping 2>/dev/null) == PONG ]]; }

# Redis with the append-only file on and a password, its config (0600: it holds the password) in the state directory.
ensure_stage_redis() {
  step "Redis (AOF on) on 127.0.0.1:$STAGE_REDIS_PORT"
  if stage_redis_answering; then
    info "already answering"
    return
  fi
  local dir=$STAGE_STATE_DIR/redis conf=$STAGE_STATE_DIR/redis/redis.conf
  mkdir -p "$dir"
  (umask 077 && cat >"$conf") <<CONF
# Written by scripts/stage.sh: the production profile's Redis.
bind 127.0.0.1
port $STAGE_REDIS_PORT
daemonize yes
dir $dir
pidfile $STAGE_RUN_DIR/redis.pid
logfile $STAGE_LOG_DIR/redis.log
appendonly yes
appendfsync everysec
requirepass $(<"$STAGE_SECRETS_DIR/redis-password")
CONF
  redis-server "$conf" 8>&- 9>&-
  wait_for 30 "Redis (profile)" stage_redis_answering
  info "started (data and append-only file: $dir)"
}

# Temporal's two schemas, by its own SQL tool: set up at 0.0 on a new database, then brought to this server's version.
ensure_stage_temporal_schema() {
  step "Temporal schema (temporal, temporal_visibility) by temporal-sql-tool"
  local db dir args
  # SQL_PASSWORD: the tool reads the password from the environment, not the command line.
  temporal_sql() {
    SQL_PASSWORD=$(<"$STAGE_SECRETS_DIR/temporal-db-password") "$STAGE_BIN_DIR/temporal-sql-tool" "${args[@]}" "$@" \
      >>"$STAGE_LOG_DIR/temporal-schema.log" 2>&1
  }
  for db in temporal:temporal temporal_visibility:visibility; do
    dir="$TEMPORAL_SERVER_DIR/schema/postgresql/v12/${db##*:}/versioned"
    args=(--plugin postgres12 --ep 127.0.0.1 -p "$STAGE_POSTGRES_PORT" -u temporal --db "${db%%:*}")
    if ! temporal_sql update-schema -d "$dir"; then
      info "${db%%:*}: new database, setting up at 0.0"
      temporal_sql setup-schema -v 0.0
      temporal_sql update-schema -d "$dir" ||
        die "temporal-sql-tool failed on ${db%%:*} (log: $STAGE_LOG_DIR/temporal-schema.log)"
    fi
    info "${db%%:*}: at the newest version in $dir"
  done
}

ensure_stage_migrations() {
  local mode pw
  pw=$(<"$STAGE_SECRETS_DIR/app-db-password")
  for mode in production sandbox; do
    step "migrations on client_api_$mode"
    DATABASE_URL="postgres://client_api:$pw@127.0.0.1:$STAGE_POSTGRES_PORT/client_api_$mode" APP_ENV=production \
      "$STAGE_NODE" dist/scripts/migrate.js up | awk 'NR == 1 { print "    " $0 }'
  done
}

stage_supervisor_running() { supervisorctl -c "$STAGE_SUPERVISOR_CONF" pid >/dev/null 2>&1; }

# supervisord with the platform (proxy, Temporal, Web UI, mail relay); the apps wait for the namespaces.
start_stage_platform() {
  step "supervisor (ops/stage/supervisord.conf): proxy, Temporal server, Web UI$([[ -z ${STAGE_SMTP_URL:-} ]] && echo ', mail relay')"
  # A supervisor started from another checkout runs that checkout's configuration and build: stop it first.
  if stage_supervisor_running && [[ $(cat "$STAGE_RUN_DIR/root" 2>/dev/null) != "$STAGE_ROOT" ]]; then
    info "running from $(cat "$STAGE_RUN_DIR/root" 2>/dev/null || echo 'another checkout'): stopping it"
    stop_stage_supervisor
  fi
  # Supervisor hands its processes the environment it was started with, and the proxy and the Temporal server read
  # their files once (the dynamic configuration's cache sizes too): different settings or a changed file (a
  # deployment's new haproxy.cfg) need a new one.
  local settings
  settings=$({
    stage_process_env
    cat "$STAGE_SUPERVISOR_CONF" "$STAGE_ROOT/ops/haproxy.cfg" "$STAGE_ROOT/ops/stage/temporal.yaml" \
      "$STAGE_TEMPORAL_DYNAMIC_CONFIG"
  } | sha256sum | cut -d' ' -f1)
  if stage_supervisor_running && [[ $(cat "$STAGE_RUN_DIR/settings" 2>/dev/null) != "$settings" ]]; then
    info "started with other settings or files: stopping it"
    stop_stage_supervisor
  fi
  if stage_supervisor_running; then
    info "already running (pid $(supervisorctl -c "$STAGE_SUPERVISOR_CONF" pid))"
  else
    mapfile -t process_env < <(stage_process_env)
    env -i "${process_env[@]}" supervisord -c "$STAGE_SUPERVISOR_CONF" 8>&- 9>&-
    printf '%s\n' "$STAGE_ROOT" >"$STAGE_RUN_DIR/root"
    printf '%s\n' "$settings" >"$STAGE_RUN_DIR/settings"
    wait_for 30 supervisord stage_supervisor_running
  fi
  [[ -z ${STAGE_SMTP_URL:-} ]] && supervisorctl -c "$STAGE_SUPERVISOR_CONF" start mail-relay >/dev/null
  info "waiting for the Temporal server on $TEMPORAL_ADDRESS"
  wait_for 120 "the Temporal server" "$STAGE_BIN_DIR/temporal" operator cluster health --address "$TEMPORAL_ADDRESS"
}

# The two namespaces and every custom search attribute, as an operator registers them on SQL visibility.
ensure_stage_namespaces() {
  local ns attributes existing name missing
  attributes=$("$STAGE_NODE" -e 'process.stdout.write(require("./dist/core/temporal/names.js").SEARCH_ATTRIBUTES.join(" "))')
  for ns in "$PRODUCTION_TEMPORAL_NAMESPACE" "$SANDBOX_TEMPORAL_NAMESPACE"; do
    step "Temporal namespace $ns and its search attributes ($attributes)"
    if "$STAGE_BIN_DIR/temporal" operator namespace describe -n "$ns" --address "$TEMPORAL_ADDRESS" >/dev/null 2>&1; then
      info "namespace present"
    else
      "$STAGE_BIN_DIR/temporal" operator namespace create -n "$ns" --retention 30d --address "$TEMPORAL_ADDRESS" >/dev/null
      info "namespace created (retention 30 days)"
    fi
    # A new namespace takes a few seconds to reach every service: list until it answers.
    wait_for 60 "namespace $ns" "$STAGE_BIN_DIR/temporal" operator search-attribute list -n "$ns" --address "$TEMPORAL_ADDRESS"
    existing=$("$STAGE_BIN_DIR/temporal" operator search-attribute list -n "$ns" --address "$TEMPORAL_ADDRESS" -o json)
    missing=()
    for name in $attributes; do
      grep -q "\"$name\"" <<<"$existing" || missing+=("$name")
    done
    if ((${#missing[@]} == 0)); then
      info "search attributes present"
      continue
    fi
    # One attribute a call: given several names at once, this CLI and server register only some of them on SQL
    # visibility, and say nothing of the rest (seen with Temporal 1.32 and CLI 1.9).
    for name in "${missing[@]}"; do
      "$STAGE_BIN_DIR/temporal" operator search-attribute create -n "$ns" --type Keyword --name "$name" \
        --address "$TEMPORAL_ADDRESS" >/dev/null
    done
    wait_for 60 "the search attributes of $ns" stage_search_attributes_registered "$ns" $attributes
    info "registered ${missing[*]} (Keyword)"
  done
}

# True when every named search attribute is listed for the namespace. Usage: stage_search_attributes_registered NS NAME...
stage_search_attributes_registered() {
  local ns=$1 listed name
  shift
  listed=$("$STAGE_BIN_DIR/temporal" operator search-attribute list -n "$ns" --address "$TEMPORAL_ADDRESS" -o json) || return 1
  for name in "$@"; do grep -q "\"$name\"" <<<"$listed" || return 1; done
}

stage_https_answers() { curl -fsS --cacert "$STAGE_PKI_DIR/ca.crt" -o /dev/null "$1"; }

start_stage_apps() {
  step "the apps: api-production and api-sandbox ($STAGE_API_PROCESSES processes each), worker-webhooks, worker-lifecycle, worker-placements, worker-sandbox"
  # Restarted when already running, so they run this build (dist/), as after a deployment.
  supervisorctl -c "$STAGE_SUPERVISOR_CONF" restart 'apps:*' | sed 's/^/    /'
  info "waiting for each host through the proxy"
  wait_for 90 "the production host" stage_https_answers "$PRODUCTION_BASE_URL/healthz"
  wait_for 90 "the sandbox host" stage_https_answers "$SANDBOX_BASE_URL/healthz"
  wait_for 60 "the Temporal Web UI" stage_https_answers "$STAGE_TEMPORAL_UI_URL/"
}

stage_env_lines() {
  printf '%s\n' "STAGE_STATE_DIR=$STAGE_STATE_DIR" "STAGE_PKI_DIR=$STAGE_PKI_DIR" "STAGE_LOG_DIR=$STAGE_LOG_DIR" \
    "STAGE_SECRETS_DIR=$STAGE_SECRETS_DIR" \
    "STAGE_SUPERVISOR_CONF=$STAGE_SUPERVISOR_CONF" "PRODUCTION_BASE_URL=$PRODUCTION_BASE_URL" \
    "SANDBOX_BASE_URL=$SANDBOX_BASE_URL" "TEMPORAL_UI_URL=$STAGE_TEMPORAL_UI_URL" "TEMPORAL_ADDRESS=$TEMPORAL_ADDRESS" \
    "HTTP_PRODUCTION_URL=http://localhost:$STAGE_HTTP_PRODUCTION_PORT" \
    "MAIL_INBOX_URL=http://127.0.0.1:$STAGE_MAIL_WEB_PORT" "POSTGRES_PORT=$STAGE_POSTGRES_PORT" \
    "REDIS_PORT=$STAGE_REDIS_PORT"
}

stage_summary() {
  info "production host   $PRODUCTION_BASE_URL   (console: $PRODUCTION_BASE_URL/console)"
  info "sandbox host      $SANDBOX_BASE_URL"
  info "Temporal Web UI   $STAGE_TEMPORAL_UI_URL"
  [[ -z ${STAGE_SMTP_URL:-} ]] && info "mail relay inbox  http://127.0.0.1:$STAGE_MAIL_WEB_PORT (maildev: the profile's named SMTP relay)"
  info "trust the local CA: $STAGE_PKI_DIR/ca.crt (curl --cacert, or import it into a browser)"
  info "secrets: $STAGE_SECRETS_DIR   logs: $STAGE_LOG_DIR"
  info "processes: scripts/stage.sh status | scripts/stage.sh ctl restart api-production | scripts/stage.sh stop"
}

# Stops supervisor and, draining them, every process it runs.
stop_stage_supervisor() {
  stage_supervisor_running || return 0
  local pid
  pid=$(supervisorctl -c "$STAGE_SUPERVISOR_CONF" pid)
  supervisorctl -c "$STAGE_SUPERVISOR_CONF" shutdown >/dev/null
  while kill -0 "$pid" 2>/dev/null; do sleep 0.2; done
  info "supervisor and its processes stopped"
}

stop_stage() {
  step "stopping the production profile '$STAGE_NAME'"
  stop_stage_supervisor
  if [[ -s $STAGE_SECRETS_DIR/redis-password ]] && stage_redis_answering; then
    REDISCLI_AUTH=$(<"$STAGE_SECRETS_DIR/redis-password") redis-cli -p "$STAGE_REDIS_PORT" shutdown >/dev/null 2>&1 || true
    info "Redis stopped (its append-only file stays)"
  fi
  local ver
  ver=$(pg_cluster_version "$STAGE_NAME")
  if [[ -n $ver ]] && pg_answering "$STAGE_POSTGRES_PORT"; then
    as_root pg_ctlcluster "$ver" "$STAGE_NAME" stop
    info "PostgreSQL cluster $ver/$STAGE_NAME stopped"
  fi
}

# Stops the instance and deletes all of it: its PostgreSQL cluster (every database: the apps', Temporal's), its state
# directory (secrets, certificates, Redis, documents, logs). The next start sets up a new one from nothing. For a bench
# or a soak that must not meet an earlier run's work (its retries, its timers), and for an operator starting over.
destroy_stage() {
  stop_stage
  step "deleting the production profile '$STAGE_NAME'"
  local ver
  ver=$(pg_cluster_version "$STAGE_NAME")
  if [[ -n $ver ]]; then
    as_root pg_dropcluster "$ver" "$STAGE_NAME"
    info "PostgreSQL cluster $ver/$STAGE_NAME deleted"
  fi
  rm -rf "$STAGE_STATE_DIR"
  info "state directory $STAGE_STATE_DIR deleted"
}
