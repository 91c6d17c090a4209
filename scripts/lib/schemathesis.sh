# shellcheck shell=bash
# Schemathesis (the property-based OpenAPI fuzzer behind `npm run fuzz` and test/fuzz/), from a pinned PyPI
# release in its own cache venv, apart from the Temporal one so neither install can disturb the other.
# Needs python3-venv (bootstrap's apt step). Idempotent: a re-run only checks the installed version.

SCHEMATHESIS_VERSION=4.32.5
SCHEMATHESIS_VENV="$CACHE_DIR/fuzz-venv"

schemathesis_pinned() {
  "$SCHEMATHESIS_VENV/bin/python" - "$SCHEMATHESIS_VERSION" <<'PY' 2>/dev/null
import sys
from importlib.metadata import version
sys.exit(0 if version("schemathesis") == sys.argv[1] else 1)
PY
}

ensure_schemathesis() {
  step "Schemathesis $SCHEMATHESIS_VERSION"
  if [[ ! -x $SCHEMATHESIS_VENV/bin/python ]]; then
    info "creating venv $SCHEMATHESIS_VENV"
    python3 -m venv "$SCHEMATHESIS_VENV"
  fi
  if schemathesis_pinned; then
    info "already installed in $SCHEMATHESIS_VENV"
  else
    info "pip install schemathesis==$SCHEMATHESIS_VERSION"
    "$SCHEMATHESIS_VENV/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION"
  fi
  "$SCHEMATHESIS_VENV/bin/st" --version >/dev/null || die "$SCHEMATHESIS_VENV/bin/st does not run"
  mkdir -p "$CACHE_DIR/bin"
  ln -sfn "$SCHEMATHESIS_VENV/bin/st" "$CACHE_DIR/bin/schemathesis"
  info "$CACHE_DIR/bin/schemathesis"
}
