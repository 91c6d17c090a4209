# shellcheck shell=bash
# The production profile's Temporal: the real server (go.temporal.io/server, SQL persistence on PostgreSQL), its SQL
# schema tool and the Web UI server (github.com/temporalio/ui-server), each built once from source through the Go
# module proxy into the cache, as versitygw is (s3.sh). The schema files the tool applies are copied from the
# server's module next to the binaries, so a cleaned Go module cache does not break a later set-up.
# The versions are docker-compose.yml's images' (test/integration/docker-compose.test.ts checks they agree).
# Why this route: docs/operators/production-profile.md.

# shellcheck source=go.sh
source "$(dirname "${BASH_SOURCE[0]}")/go.sh"

TEMPORAL_SERVER_VERSION=v1.32.2
# The newest UI whose dependencies the module proxy serves here: 2.58.x needs go.temporal.io/api v1.64.0 and 2.56.3
# labstack/echo v4.16.1, which it refuses (403); 2.56.0 uses api v1.63.5 (the server's own) and echo v4.15.4.
TEMPORAL_UI_VERSION=v2.56.0
# Both modules need a newer Go than Debian's or /usr/local/go may be: the go command fetches that toolchain through
# the same module proxy (golang.org/toolchain), checksum-verified.
TEMPORAL_GO_TOOLCHAIN=go1.26.10
TEMPORAL_SERVER_DIR="$CACHE_DIR/temporal-server-$TEMPORAL_SERVER_VERSION"
TEMPORAL_UI_DIR="$CACHE_DIR/temporal-ui-$TEMPORAL_UI_VERSION"

ensure_temporal_server() {
  step "Temporal server $TEMPORAL_SERVER_VERSION (SQL persistence), its schema tool, and the Web UI $TEMPORAL_UI_VERSION"
  go_build_once "$TEMPORAL_SERVER_DIR" temporal-server "go.temporal.io/server/cmd/server@$TEMPORAL_SERVER_VERSION" "$TEMPORAL_GO_TOOLCHAIN"
  go_build_once "$TEMPORAL_SERVER_DIR" temporal-sql-tool "go.temporal.io/server/cmd/tools/sql@$TEMPORAL_SERVER_VERSION" "$TEMPORAL_GO_TOOLCHAIN"
  go_build_once "$TEMPORAL_UI_DIR" temporal-ui-server "github.com/temporalio/ui-server/v2/cmd/server@$TEMPORAL_UI_VERSION" "$TEMPORAL_GO_TOOLCHAIN"
  if [[ ! -d $TEMPORAL_SERVER_DIR/schema/postgresql/v12 ]]; then
    local go module
    go=$(command -v go || echo /usr/local/go/bin/go)
    module=$(GOTOOLCHAIN=$TEMPORAL_GO_TOOLCHAIN GOFLAGS=-mod=mod "$go" mod download -json \
      "go.temporal.io/server@$TEMPORAL_SERVER_VERSION" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
    [[ -d $module/schema/postgresql/v12 ]] || die "no PostgreSQL schema in go.temporal.io/server@$TEMPORAL_SERVER_VERSION"
    info "copying the PostgreSQL schema from $module"
    rm -rf "$TEMPORAL_SERVER_DIR/schema.tmp"
    mkdir -p "$TEMPORAL_SERVER_DIR/schema.tmp/postgresql"
    cp -r "$module/schema/postgresql/v12" "$TEMPORAL_SERVER_DIR/schema.tmp/postgresql/"
    chmod -R u+w "$TEMPORAL_SERVER_DIR/schema.tmp"
    mv "$TEMPORAL_SERVER_DIR/schema.tmp" "$TEMPORAL_SERVER_DIR/schema"
  fi
  mkdir -p "$CACHE_DIR/bin"
  ln -sfn "$TEMPORAL_SERVER_DIR/temporal-server" "$CACHE_DIR/bin/temporal-server"
  ln -sfn "$TEMPORAL_SERVER_DIR/temporal-sql-tool" "$CACHE_DIR/bin/temporal-sql-tool"
  ln -sfn "$TEMPORAL_UI_DIR/temporal-ui-server" "$CACHE_DIR/bin/temporal-ui-server"
  info "$CACHE_DIR/bin/{temporal-server,temporal-sql-tool,temporal-ui-server}"
}
