#!/usr/bin/env bash
# Runs one compiled entry point, e.g. `bash scripts/compiled.sh api/server` runs `node dist/api/server.js`, after
# `npm run build`: tsc's incremental build recompiles only what changed since dist/ was written (a few seconds when
# nothing did), so the processes never run stale code and never need tsx at run time. Runs on the project's Node.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here/.."
# shellcheck source=lib/common.sh
source "$here/lib/common.sh"
require_project_node
entry="${1:?usage: compiled.sh <entry without .ts, e.g. api/server> [args...]}"
shift
node_modules/.bin/tsc -p tsconfig.build.json
exec node "dist/$entry.js" "$@"
