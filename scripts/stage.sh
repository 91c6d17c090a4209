#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# The production profile (`npm run stage`, docs/operators/production-profile.md): the whole stack as production runs
# it, on this machine. APP_ENV=production; secrets generated once into a state directory outside the work tree;
# HAProxy terminating TLS (a local CA's certificate) in front of both hosts and the Temporal Web UI; a real Temporal
# server on PostgreSQL; PostgreSQL and Redis (AOF on) of the profile's own; the compiled apps, API_PROCESSES > 1,
# under supervisor, which restarts a process that dies.
#
# Usage: scripts/stage.sh [start [--detach] | stop | destroy | status | ctl ARGS... | cli ARGS... | env]
#   start     set up what is missing, start everything, wait until each host answers through the proxy; in the
#             foreground (Ctrl-C stops it all) unless --detach. Running apps are restarted on this build, as after a
#             deployment (a supervisor started from another checkout is stopped first)
#   stop      stop the apps (draining), the platform, Redis and PostgreSQL of the profile
#   destroy   stop, then delete the instance: its PostgreSQL cluster and its state directory (secrets included)
#   status    supervisor's view of every process
#   ctl       supervisorctl on this profile (restart api-production, tail -f worker-lifecycle, …)
#   cli       the operator CLI (scripts/cli.ts, compiled) against the profile, with its secrets: org create, user
#             invite, key create, secrets reseal, … (`--mode sandbox` for the sandbox's database)
#   env       the profile's URLs and paths as KEY=VALUE lines (what the tests read)
# Settings (environment): STAGE_NAME (stage), STAGE_PORT_BASE (8400), STAGE_STATE_DIR
# (~/.local/state/client-public-api/<name>), STAGE_API_PROCESSES (2), STAGE_SMTP_URL (unset: the profile's own
# maildev is the named relay), STAGE_PAYMENT_PROCESSOR (unset: no online payments; or stripe, with
# STAGE_STRIPE_PUBLISHABLE_KEY, the two secrets in the secrets directory, and STAGE_STRIPE_API_URL for a stand-in),
# STAGE_WEBHOOK_ALLOW_HOSTS (unset; a test suite's own receiver), STAGE_SKIP_BOOTSTRAP=1 (already bootstrapped).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here/.."
# shellcheck source=lib/common.sh
source "$here/lib/common.sh"
# shellcheck source=lib/postgres.sh
source "$here/lib/postgres.sh"
# shellcheck source=lib/temporal-server.sh
source "$here/lib/temporal-server.sh"
# shellcheck source=lib/stage-setup.sh
source "$here/lib/stage-setup.sh"

command=${1:-start}
[[ $# -gt 0 ]] && shift
stage_settings

case $command in
start)
  detach=false
  [[ ${1:-} == --detach ]] && detach=true
  started=$SECONDS
  [[ ${STAGE_SKIP_BOOTSTRAP:-} == 1 ]] || bash scripts/bootstrap.sh --with-stage
  require_project_node
  stage_settings # again: the project's Node.js is on PATH now
  mkdir -p "$STAGE_STATE_DIR"
  exec 8>"$STAGE_STATE_DIR/stage.lock"
  flock -n 8 || die "another scripts/stage.sh is working on $STAGE_STATE_DIR"
  ensure_stage_secrets
  ensure_stage_pki
  ensure_stage_postgres
  ensure_stage_redis
  ensure_stage_temporal_schema
  ensure_stage_migrations
  start_stage_platform
  ensure_stage_namespaces
  start_stage_apps
  step "production profile '$STAGE_NAME' up in $((SECONDS - started))s"
  stage_summary
  if ! $detach; then
    info "in the foreground: Ctrl-C stops everything (or run: scripts/stage.sh stop)"
    trap 'stop_stage; exit 0' INT TERM
    supervisorctl -c "$STAGE_SUPERVISOR_CONF" maintail -f &
    wait $!
  fi
  ;;
stop) stop_stage ;;
destroy) destroy_stage ;;
status) supervisorctl -c "$STAGE_SUPERVISOR_CONF" status ;;
ctl) exec supervisorctl -c "$STAGE_SUPERVISOR_CONF" "$@" ;;
cli)
  require_project_node
  stage_settings
  mode=production
  [[ " $* " == *" --mode sandbox "* || " $* " == *" --mode=sandbox "* ]] && mode=sandbox
  base=$PRODUCTION_BASE_URL
  [[ $mode == sandbox ]] && base=$SANDBOX_BASE_URL
  mapfile -t process_env < <(stage_process_env)
  exec env -i "${process_env[@]}" API_MODE="$mode" PUBLIC_BASE_URL="$base" \
    bash scripts/stage-exec.sh app "$STAGE_NODE" dist/scripts/cli.js "$@"
  ;;
env) stage_env_lines ;;
*) die "usage: scripts/stage.sh [start [--detach] | stop | status | ctl ARGS... | cli ARGS... | env]" ;;
esac
