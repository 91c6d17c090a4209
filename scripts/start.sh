#!/usr/bin/env bash
# README command 1 (`npm start`): set up what is missing, then run the whole stack in the foreground.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
cache="${CLIENT_API_CACHE:-$HOME/.cache/client-public-api}"
mkdir -p "$cache/run"
# The bootstrap lists the services it had to start in this file; dev.ts stops exactly those on exit.
export CLIENT_API_STARTED_FILE="$cache/run/started-by-start.$$"
trap 'rm -f "$CLIENT_API_STARTED_FILE"' EXIT # only if the bootstrap fails; dev.ts reads and removes it
bash scripts/bootstrap.sh
trap - EXIT
exec bash scripts/compiled.sh scripts/dev
