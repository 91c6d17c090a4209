#!/usr/bin/env bash
# README command 1 (`npm start`): set up what running needs and is missing, then run the whole stack in the foreground.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here/.."
# shellcheck source=lib/common.sh
source "$here/lib/common.sh"
mkdir -p "$RUN_DIR"
# The bootstrap lists the services it had to start in this file; dev.ts stops exactly those on exit.
export CLIENT_API_STARTED_FILE="$RUN_DIR/started-by-start.$$"
trap 'rm -f "$CLIENT_API_STARTED_FILE"' EXIT # only if the bootstrap fails; dev.ts reads and removes it
bash scripts/bootstrap.sh
trap - EXIT
require_project_node
exec bash scripts/compiled.sh scripts/dev
