# shellcheck shell=bash
# The project's one runtime: Node.js 24 LTS (docs/operators/runtime.md says why this line). When the machine's own
# `node` is not on that line, the pinned release is unpacked into the cache from the npm registry (the official
# per-platform binary is published there as `node-linux-<arch>`; npm itself as `npm`) and put first on PATH, so
# every script, npm, the CLI, the workers and the tests run on it. Sourced by every script that runs Node.

NODE_LINE=24
NODE_VERSION=24.21.0 # the newest 24.x in the registry when pinned
NPM_VERSION=11.21.2 # npm 11 is the major Node 24 ships with; the newest 11.x when pinned

node_arch() {
  case $(uname -m) in
  x86_64) echo x64 ;;
  aarch64 | arm64) echo arm64 ;;
  *) die "no Node.js binary package for $(uname -m)" ;;
  esac
}

NODE_HOME="$CACHE_DIR/node-v$NODE_VERSION"

node_major_of() { "$1" -p 'process.versions.node.split(".")[0]' 2>/dev/null; }

# The machine's ~/.npmrc may name `nodedir` (node-gyp's headers of the machine's own Node): wrong for ours, and npm 11
# warns "Unknown user config" on every call. npm then reads a copy without it, kept in the cache, and the same setting
# passed down as an environment variable is dropped.
use_filtered_npmrc() {
  # The machine's npm running `npm start` passes the same setting on to our scripts as an environment variable.
  unset npm_config_nodedir NPM_CONFIG_NODEDIR
  local own="$CACHE_DIR/npmrc" user=${NPM_CONFIG_USERCONFIG:-$HOME/.npmrc}
  [[ $user != "$own" && -f $user ]] || return 0
  grep -Ev '^[[:space:]]*nodedir[[:space:]]*=' "$user" >"$own.$$" || true
  mv "$own.$$" "$own"
  export NPM_CONFIG_USERCONFIG=$own
}

# Puts the project's Node first on PATH: the cached one when it is there, else the machine's own when it is already
# on the project's line. Returns non-zero when neither is (ensure_node installs it). Cheap: no network, no install.
use_project_node() {
  if [[ -x $NODE_HOME/bin/node && -x $NODE_HOME/bin/npm ]]; then
    case ":$PATH:" in *":$NODE_HOME/bin:"*) ;; *) export PATH="$NODE_HOME/bin:$PATH" ;; esac
    use_filtered_npmrc
    return 0
  fi
  local system
  system=$(command -v node) || return 1
  [[ $(node_major_of "$system") == "$NODE_LINE" ]] || return 1
  use_filtered_npmrc
}

# Unpacks one registry package's tarball into DIR (its `package/` prefix stripped). Usage: unpack_npm_package SPEC DIR
unpack_npm_package() {
  local spec=$1 dir=$2 tmp
  tmp=$(mktemp -d)
  # `npm pack` only downloads; it runs under whatever node is at hand (any version can fetch a tarball).
  (cd "$tmp" && npm pack --silent "$spec" >/dev/null) || die "could not fetch $spec from the npm registry"
  mkdir -p "$dir"
  tar -xzf "$tmp"/*.tgz -C "$dir" --strip-components=1
  rm -rf "$tmp"
}

ensure_node() {
  step "Node.js $NODE_LINE LTS"
  if use_project_node; then
    info "node $(node -p process.versions.node) ($(command -v node)), npm $(npm --version)"
    return
  fi
  command -v npm >/dev/null 2>&1 ||
    die "neither Node.js $NODE_LINE nor npm found: install any Node.js with npm once (e.g. Debian's nodejs and npm), the bootstrap then installs Node.js $NODE_VERSION itself"
  info "installing node $NODE_VERSION and npm $NPM_VERSION into $NODE_HOME (machine's node: $(node -v 2>/dev/null || echo none))"
  # Into a temporary directory, then renamed: an interrupted install never leaves a runtime that looks complete.
  local tmp="$NODE_HOME.partial"
  rm -rf "$tmp"
  unpack_npm_package "node-linux-$(node_arch)@$NODE_VERSION" "$tmp"
  unpack_npm_package "npm@$NPM_VERSION" "$tmp/lib/node_modules/npm"
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$tmp/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$tmp/bin/npx"
  "$tmp/bin/node" --version >/dev/null || die "$tmp/bin/node does not run on this machine"
  rm -rf "$NODE_HOME"
  mv "$tmp" "$NODE_HOME"
  use_project_node || die "node $NODE_VERSION installed but not usable"
  info "node $(node -p process.versions.node), npm $(npm --version)"
}

# For scripts that run Node without the bootstrap (compiled.sh, the CLI): the project's Node or a clear error.
require_project_node() {
  use_project_node || die "Node.js $NODE_LINE is not installed for this project yet: run 'npm run bootstrap' (or npm start / npm test) once"
}

lock_hash() { { sha256sum package-lock.json && node -p process.version; } | sha256sum | cut -d' ' -f1; }

# node_modules installed by other means (e.g. by hand) counts as fresh when npm's hidden lockfile lists every
# non-optional package of package-lock.json at the same version; avoids reinstalling a good tree.
node_modules_matches_lock() {
  [[ -f node_modules/.package-lock.json ]] || return 1
  node -e '
    const want = require("./package-lock.json").packages;
    const have = require("./node_modules/.package-lock.json").packages;
    for (const [path, pkg] of Object.entries(want)) {
      if (!path || pkg.optional) continue;
      if (have[path]?.version !== pkg.version) process.exit(1);
    }' 2>/dev/null
}

ensure_npm_deps() {
  step "npm dependencies"
  local want have=''
  want=$(lock_hash)
  [[ -f node_modules/.lock-hash ]] && have=$(<node_modules/.lock-hash)
  if [[ $have == "$want" ]]; then
    info "node_modules matches package-lock.json"
    return
  fi
  if [[ -z $have ]] && node_modules_matches_lock; then
    info "node_modules already matches package-lock.json (recording its hash)"
  else
    # npm install, not npm ci: the registries reachable here lack some other platforms' optional packages (e.g.
    # @swc/core-darwin-*), so the lock file cannot list them and npm ci refuses it; npm install installs exactly the
    # locked versions all the same and leaves package-lock.json unchanged. The hash covers the Node version too, so a
    # runtime change reinstalls (native packages are chosen per runtime).
    info "running npm install (locked versions)"
    npm install --no-audit --no-fund
  fi
  printf '%s\n' "$want" >node_modules/.lock-hash
}
