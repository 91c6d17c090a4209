# shellcheck shell=bash
# Node.js version check and npm dependencies (installed only when node_modules is missing or stale).

NODE_MIN_MAJOR=20
NODE_MIN_MINOR=19

ensure_node() {
  step "Node.js >= $NODE_MIN_MAJOR.$NODE_MIN_MINOR"
  local how="Install Node.js 20 LTS (>= $NODE_MIN_MAJOR.$NODE_MIN_MINOR), e.g. 'nvm install 20' or the Node.js 20 packages from https://nodejs.org/en/download"
  command -v node >/dev/null 2>&1 || die "node not found. $how"
  local version
  version=$(node -p 'process.versions.node')
  local major=${version%%.*} rest=${version#*.}
  local minor=${rest%%.*}
  if ((major < NODE_MIN_MAJOR || (major == NODE_MIN_MAJOR && minor < NODE_MIN_MINOR))); then
    die "node $version is too old. $how"
  fi
  info "node $version"
}

lock_hash() { sha256sum package-lock.json | cut -d' ' -f1; }

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
  if node_modules_matches_lock; then
    info "node_modules already matches package-lock.json (recording its hash)"
  else
    # npm install, not npm ci: the registries reachable here lack some other platforms' optional packages (e.g.
    # @swc/core-darwin-*), so the lock file cannot list them and npm ci refuses it; npm install installs exactly the
    # locked versions all the same and leaves package-lock.json unchanged.
    info "running npm install (locked versions)"
    npm install --no-audit --no-fund
  fi
  printf '%s\n' "$want" >node_modules/.lock-hash
}
