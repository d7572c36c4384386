# Sourced by the scripts: apt_ensure PKG... installs the Debian packages that
# are missing (apt-get update at most once per machine boot).
#
# A machine image may ship a package newer than any archive in its apt
# sources (a backport installed from a .deb, say) whose Breaks: refuses what
# we install: the image's qemu-utils 10.0 from bookworm-backports breaks
# bookworm's qemu-system-common 7.2. apt's resolver gives up on that
# ("pkgProblemResolver::Resolve generated breaks"). apt_ensure then names
# each installed package that a Breaks: line blames and that no configured
# archive offers at its installed version, and installs the archive's
# version of it in the same transaction (a downgrade, said on stderr). It
# never removes a package and never touches one an archive still offers.
#
# apt_ensure_retry WHO PKG... is apt_ensure tried six times, 10 s apart
# (another apt client may hold the dpkg lock for a moment); after the last
# failure it says "WHO: cannot install PKG..." on stderr and fails.
apt_ensure_retry() {
  local who=$1 attempt
  shift
  for attempt in 1 2 3 4 5 6; do
    apt_ensure "$@" && return 0
    [ "$attempt" = 6 ] || sleep 10
  done
  echo "$who: cannot install $*" >&2
  return 1
}

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
  local extra=() round sim blamed b
  for round in 1 2 3 4; do
    if sim=$(DEBIAN_FRONTEND=noninteractive $sudo apt-get install -s -y --allow-downgrades \
               "${missing[@]}" "${extra[@]}" 2>&1); then
      DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --allow-downgrades \
        "${missing[@]}" "${extra[@]}" >/dev/null
      return
    fi
    # " qemu-utils : Breaks: qemu-system-common (< 1:8.0+dfsg-5~) but ..."
    mapfile -t blamed < <(printf '%s\n' "$sim" | sed -n 's/^ *\([^ ]*\) : Breaks: .*/\1/p' | sort -u)
    local added=0
    for b in "${blamed[@]}"; do
      _apt_pin_to_archive "$b" "$sim" || continue
      added=1
    done
    if [ "$added" -eq 0 ]; then
      printf '%s\n' "$sim" >&2
      echo "apt: cannot install ${missing[*]}, and no preinstalled package newer than the archives is to blame" >&2
      return 1
    fi
  done
  echo "apt: still unresolved after $round rounds" >&2
  return 1
}

# _apt_pin_to_archive PKG SIMULATION: when PKG is installed at a version that
# no configured archive has, add PKG=<the archive's best version> to the
# caller's extra[] and say so. Fails (adds nothing) otherwise.
_apt_pin_to_archive() {
  local pkg=$1 sim=$2 inst best e
  inst=$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null) || return 1
  [ -n "$inst" ] || return 1
  # madison lists archive versions only (never /var/lib/dpkg/status), best first.
  if apt-cache madison "$pkg" | awk -F'|' '{gsub(/ /,"",$2); print $2}' | grep -qxF "$inst"; then
    return 1
  fi
  best=$(apt-cache madison "$pkg" | awk -F'|' 'NR==1 {gsub(/ /,"",$2); print $2}')
  [ -n "$best" ] || return 1
  for e in "${extra[@]}"; do [ "$e" != "$pkg=$best" ] || return 1; done
  local why
  why=$(printf '%s\n' "$sim" | grep -m1 "^ *$pkg : Breaks: " | sed 's/^ *//')
  echo "apt: $pkg $inst is preinstalled but in no configured archive, and it blocks the install ($why);" \
    "installing the archive's $pkg $best instead (a downgrade)" >&2
  extra+=("$pkg=$best")
}
