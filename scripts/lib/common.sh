# shellcheck shell=bash
# Shared helpers for the project's shell scripts: step output, cache paths, root rights.

CACHE_DIR="${CLIENT_API_CACHE:-$HOME/.cache/client-public-api}"
RUN_DIR="$CACHE_DIR/run"

step() { printf '==> %s\n' "$*"; }
info() { printf '    %s\n' "$*"; }
die() {
  printf 'error: %s\n' "$*" >&2
  exit 1
}

# True when we can act as root: we are root, or sudo exists (it may ask for a password).
have_root() { [[ $EUID -eq 0 ]] || command -v sudo >/dev/null 2>&1; }

as_root() {
  if [[ $EUID -eq 0 ]]; then "$@"; else sudo "$@"; fi
}

# Run a command as the `postgres` OS user (peer authentication as the database superuser).
# cd / first: psql warns when it cannot read the caller's working directory.
as_postgres() {
  if [[ $EUID -eq 0 ]]; then
    (cd / && runuser -u postgres -- "$@")
  else
    (cd / && sudo -u postgres "$@")
  fi
}

# Poll a command until it succeeds, instead of sleeping a fixed time. Usage: wait_for SECONDS DESCRIPTION CMD...
wait_for() {
  local seconds=$1 what=$2
  shift 2
  local deadline=$((SECONDS + seconds))
  until "$@" >/dev/null 2>&1; do
    ((SECONDS < deadline)) || die "$what did not come up within ${seconds}s"
    sleep 0.2
  done
}

# Services this bootstrap run started, one per line, so `npm start` stops only those on exit.
STARTED_FILE="${CLIENT_API_STARTED_FILE:-$RUN_DIR/bootstrap-started}"
record_started() { printf '%s\n' "$*" >>"$STARTED_FILE"; }

# The project's Node.js (use_project_node, require_project_node, ensure_node): every script that sources this file
# can put it first on PATH.
# shellcheck source=node.sh
source "$(dirname "${BASH_SOURCE[0]}")/node.sh"
