#!/usr/bin/env bash
# Starts one of the production profile's processes (ops/stage/supervisord.conf) with its secrets, read from the
# profile's secrets directory (mode 0700, each file 0600) at every start: they live in no config file, no command
# line and no log. A rotated secret is picked up by restarting the process (docs/operators/production-profile.md).
# Usage: stage-exec.sh app|temporal COMMAND... — `app` gets the apps' secrets, `temporal` the Temporal server's only.
set -euo pipefail

role=$1
shift
secrets=${STAGE_SECRETS_DIR:?STAGE_SECRETS_DIR is set by scripts/stage.sh}
secret() { tr -d '\n' <"$secrets/$1"; }

case $role in
temporal)
  TEMPORAL_DB_PASSWORD=$(secret temporal-db-password)
  export TEMPORAL_DB_PASSWORD
  ;;
app)
  db_password=$(secret app-db-password)
  db="postgres://client_api:$db_password@127.0.0.1:$STAGE_POSTGRES_PORT"
  export PRODUCTION_DATABASE_URL="$db/client_api_production" SANDBOX_DATABASE_URL="$db/client_api_sandbox"
  case ${API_MODE:-} in
  production) export DATABASE_URL=$PRODUCTION_DATABASE_URL ;;
  sandbox) export DATABASE_URL=$SANDBOX_DATABASE_URL ;;
  esac
  REDIS_URL="redis://:$(secret redis-password)@127.0.0.1:$STAGE_REDIS_PORT"
  WEBHOOK_SECRET_KEY=$(secret webhook-secret-key)
  export REDIS_URL WEBHOOK_SECRET_KEY
  # Stripe's two secrets, where the operator put them (STAGE_PAYMENT_PROCESSOR=stripe).
  if [[ -s $secrets/stripe-secret-key ]]; then
    STRIPE_SECRET_KEY=$(secret stripe-secret-key) STRIPE_WEBHOOK_SECRET=$(secret stripe-webhook-secret)
    export STRIPE_SECRET_KEY STRIPE_WEBHOOK_SECRET
  fi
  # During a rotation only: the key being retired still opens what it sealed.
  if [[ -s $secrets/webhook-secret-key-previous ]]; then
    WEBHOOK_SECRET_KEY_PREVIOUS=$(secret webhook-secret-key-previous)
    export WEBHOOK_SECRET_KEY_PREVIOUS
  fi
  ;;
*)
  echo "usage: stage-exec.sh app|temporal COMMAND..." >&2
  exit 64
  ;;
esac
exec "$@"
