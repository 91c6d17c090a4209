# shellcheck shell=bash
# versitygw: an S3-compatible server over a local directory, built from source through the Go module proxy into the
# cache. Only the tests (test/support/own-s3.ts) and `DOCUMENT_STORE=s3` experiments use it; it is never started
# here (go.sh builds it). Why this route: docs/operators/tooling.md.

# shellcheck source=go.sh
source "$(dirname "${BASH_SOURCE[0]}")/go.sh"

VERSITYGW_VERSION=v1.8.0
VERSITYGW_MODULE=github.com/versity/versitygw/cmd/versitygw

ensure_s3_server() {
  step "S3-compatible server (versitygw $VERSITYGW_VERSION)"
  local dir="$CACHE_DIR/versitygw-$VERSITYGW_VERSION"
  go_build_once "$dir" versitygw "$VERSITYGW_MODULE@$VERSITYGW_VERSION"
  mkdir -p "$CACHE_DIR/bin"
  ln -sfn "$dir/versitygw" "$CACHE_DIR/bin/versitygw"
  info "$CACHE_DIR/bin/versitygw"
}
