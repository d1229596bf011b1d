# debian_mirror SUITE: the Debian archive to debootstrap SUITE from, as the machine's own apt knows it.
# $ORACLE_DEBIAN_MIRROR when set; else the source apt is configured with for SUITE itself; else
# another release's source of a Debian archive (a path ending in /debian: a newer host's mirror
# serves older suites too), never a security, updates or backports one. Prints nothing when apt
# names none: the caller says how to set one. No host is named here: the machine's sources decide.
debian_mirror() {
  local suite=$1 targets uri
  if [ -n "${ORACLE_DEBIAN_MIRROR:-}" ]; then printf '%s\n' "${ORACLE_DEBIAN_MIRROR%/}"; return 0; fi
  # apt itself reads both formats (sources.list lines and deb822 .sources), disabled files left out.
  targets=$(apt-get indextargets --format '$(TARGET_OF) $(RELEASE) $(REPO_URI)' 2>/dev/null) || targets=
  uri=$(printf '%s\n' "$targets" | awk -v suite="$suite" '$1 == "deb" && $2 == suite { print $3; exit }')
  [ -n "$uri" ] || uri=$(printf '%s\n' "$targets" \
    | awk '$1 == "deb" && $2 !~ /-(security|updates|backports)$/ && $3 ~ /\/debian\/?$/ { print $3; exit }')
  [ -n "$uri" ] && printf '%s\n' "${uri%/}"
}
