#!/usr/bin/env bash
# Runs one compiled entry point, e.g. `bash scripts/compiled.sh api/server` runs `node dist/api/server.js`, after
# `npm run build`: tsc's incremental build recompiles only what changed since dist/ was written (a few seconds when
# nothing did), so the processes never run stale code and never need tsx at run time.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
entry="${1:?usage: compiled.sh <entry without .ts, e.g. api/server> [args...]}"
shift
node_modules/.bin/tsc -p tsconfig.build.json
exec node "dist/$entry.js" "$@"
