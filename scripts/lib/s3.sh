# shellcheck shell=bash
# versitygw: an S3-compatible server over a local directory, built from source through the Go module proxy into the
# cache. Only the tests (test/support/own-s3.ts) and `DOCUMENT_STORE=s3` experiments use it; it is never started
# here. Needs Go >= 1.24 (`go` on PATH or /usr/local/go/bin). Why this route: docs/operators/tooling.md.

VERSITYGW_VERSION=v1.8.0
VERSITYGW_MODULE=github.com/versity/versitygw/cmd/versitygw

ensure_s3_server() {
  step "S3-compatible server (versitygw $VERSITYGW_VERSION)"
  local dir="$CACHE_DIR/versitygw-$VERSITYGW_VERSION"
  if [[ -x $dir/versitygw ]]; then
    info "already built: $dir/versitygw"
  else
    local go
    go=$(command -v go || echo /usr/local/go/bin/go)
    [[ -x $go ]] || die "Go is needed to build versitygw (install Go >= 1.24, or put it on PATH)"
    info "go install $VERSITYGW_MODULE@$VERSITYGW_VERSION (a few minutes, once)"
    mkdir -p "$dir"
    # Into a temporary GOBIN, then renamed: an interrupted build never leaves a binary that looks complete.
    rm -rf "$dir/.build"
    GOBIN="$dir/.build" GOFLAGS=-trimpath "$go" install "$VERSITYGW_MODULE@$VERSITYGW_VERSION"
    mv "$dir/.build/versitygw" "$dir/versitygw"
    rm -rf "$dir/.build"
  fi
  mkdir -p "$CACHE_DIR/bin"
  ln -sfn "$dir/versitygw" "$CACHE_DIR/bin/versitygw"
  info "$CACHE_DIR/bin/versitygw"
}
