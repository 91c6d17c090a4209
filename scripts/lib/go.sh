# shellcheck shell=bash
# Building a Go command from source through the Go module proxy into the cache, once (versitygw: s3.sh; Temporal's
# server, SQL tool and Web UI: temporal-server.sh). Needs Go >= 1.24 (`go` on PATH or /usr/local/go/bin).

# Usage: go_build_once DIR BINARY MODULE/PACKAGE@VERSION [TOOLCHAIN] — `go install` into a temporary GOBIN, then
# renamed to DIR/BINARY: an interrupted build never leaves a binary that looks complete. TOOLCHAIN (e.g. go1.26.10)
# is fetched by the go command through the same proxy when the module needs a newer Go than the one installed.
go_build_once() {
  local dir=$1 name=$2 package=$3 toolchain=${4:-local} built go
  if [[ -x $dir/$name ]]; then
    info "already built: $dir/$name"
    return
  fi
  go=$(command -v go || echo /usr/local/go/bin/go)
  [[ -x $go ]] || die "Go is needed to build $package (install Go >= 1.24, or put it on PATH)"
  info "go install $package (minutes on 2 cores, once)"
  mkdir -p "$dir"
  rm -rf "$dir/.build"
  GOTOOLCHAIN=$toolchain GOBIN="$dir/.build" GOFLAGS=-trimpath "$go" install "$package"
  built=$(find "$dir/.build" -maxdepth 1 -type f -perm -u+x | head -n1)
  [[ -n $built ]] || die "go install $package left no binary"
  mv "$built" "$dir/$name"
  rm -rf "$dir/.build"
}
