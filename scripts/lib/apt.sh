# shellcheck shell=bash
# Debian packages: install only the missing ones, with root rights when we have them.

apt_missing() {
  local pkg
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || printf '%s\n' "$pkg"
  done
}

ensure_apt_packages() {
  step "Debian packages: $*"
  command -v dpkg-query >/dev/null 2>&1 || die "this script expects Debian 12 (dpkg/apt); install by hand: $*"
  local missing
  mapfile -t missing < <(apt_missing "$@")
  if ((${#missing[@]} == 0)); then
    info "already installed"
    return
  fi
  have_root || die "missing packages: ${missing[*]}. As root run: apt-get install -y ${missing[*]}"
  info "installing ${missing[*]}"
  # Package lists may be missing (fresh container) or stale (their versions gone from the mirror): refresh them
  # whenever something has to be installed.
  as_root apt-get update
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
}
