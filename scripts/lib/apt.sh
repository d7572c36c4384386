# Sourced by the scripts: apt_ensure PKG... installs the Debian packages that
# are missing (apt-get update at most once per machine boot).
apt_ensure() {
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
  if [ ! -e /tmp/.emcp-apt-updated ]; then
    $sudo apt-get update -qq && touch /tmp/.emcp-apt-updated
  fi
  echo "apt: installing ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
}
