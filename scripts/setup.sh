#!/usr/bin/env bash
# Idempotent machine set-up for the oracle (Debian, as root). Does only what is missing and prints
# one line per step: "done" or "already there". On failure it names the step and exits non-zero.
#   pnpm 10.34.9 · Docker engine · local registry on 127.0.0.1:5000 · debian:bookworm-slim · redis-server · time ·
#   chromium · git, ip · deps · build
# Every program a test runs on the host is installed here (a test never relies on one installed by hand).
# Environment: ORACLE_REGISTRY_DIR (registry storage, default /var/lib/oracle/registry),
#              ORACLE_SETUP_SKIP_BUILD=1 (skip pnpm install/build), ORACLE_DOCKER_WAIT (seconds, default 60),
#              ORACLE_DEBIAN_MIRROR (the base image's debootstrap mirror; default: the one apt's sources name).
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=lib/debian-mirror.sh
. "$ROOT/scripts/lib/debian-mirror.sh"
PNPM_VERSION=10.34.9
REGISTRY_ADDR=127.0.0.1:5000
REGISTRY_DIR=${ORACLE_REGISTRY_DIR:-/var/lib/oracle/registry}
STATE_DIR=/var/lib/oracle
LOG_DIR=/var/log/oracle
BASE_IMAGE=debian:bookworm-slim
DOCKER_WAIT=${ORACLE_DOCKER_WAIT:-60}
export DEBIAN_FRONTEND=noninteractive

step_started=0
step=""
begin() { step=$1; step_started=$(date +%s%N); }
report() { # report STATUS [detail]
  local ms=$(( ($(date +%s%N) - step_started) / 1000000 ))
  printf 'setup: %-36s %s%s\n' "$step" "$1" "${2:+ ($2)}"
  [ "$1" = "done" ] && printf '' # keep set -e semantics simple
  : "$ms"
}
fail() {
  printf 'setup: %-36s FAILED: %s\n' "$step" "$1" >&2
  [ -n "${2:-}" ] && printf 'setup: hint: %s\n' "$2" >&2
  exit 1
}
elapsed() { echo "$(( ($(date +%s%N) - step_started) / 1000000 )) ms"; }

apt_updated=0
apt_install() {
  if [ $apt_updated = 0 ]; then apt-get update -qq >"$LOG_DIR/apt.log" 2>&1 || return 1; apt_updated=1; fi
  apt-get install -y -qq --no-install-recommends "$@" >>"$LOG_DIR/apt.log" 2>&1
}
have() { command -v "$1" >/dev/null 2>&1; }

[ "$(id -u)" = 0 ] || { step=preflight; fail "must run as root (installs packages and starts dockerd)" "run: sudo bash scripts/setup.sh"; }
mkdir -p "$STATE_DIR" "$LOG_DIR"

# --- pnpm ------------------------------------------------------------------------------------
begin "pnpm $PNPM_VERSION"
if [ "$(pnpm --version 2>/dev/null)" = "$PNPM_VERSION" ]; then report "already there"
else
  npm install -g "pnpm@$PNPM_VERSION" >"$LOG_DIR/pnpm-install.log" 2>&1 || fail "npm install -g pnpm@$PNPM_VERSION failed, see $LOG_DIR/pnpm-install.log"
  hash -r
  [ "$(pnpm --version 2>/dev/null)" = "$PNPM_VERSION" ] || fail "pnpm --version does not print $PNPM_VERSION after install"
  report done "$(elapsed)"
fi

# --- Docker engine ---------------------------------------------------------------------------
docker_answers() { timeout 10 docker info --format '{{.ServerVersion}}' >/dev/null 2>&1; }
begin "docker engine"
if docker_answers; then report "already there" "$(docker info --format 'server {{.ServerVersion}}' 2>/dev/null)"
else
  if ! have dockerd; then apt_install docker.io ca-certificates || fail "apt-get install docker.io failed, see $LOG_DIR/apt.log"; fi
  have docker || fail "no docker client after installing docker.io"
  # A dockerd that was killed leaves its pid files behind, and a new one refuses to start.
  for pidfile in /var/run/docker.pid /var/run/docker/containerd/containerd.pid; do
    if [ -f "$pidfile" ] && ! kill -0 "$(cat "$pidfile" 2>/dev/null)" 2>/dev/null; then rm -f "$pidfile"; fi
  done
  if ! pgrep -x dockerd >/dev/null; then
    setsid nohup dockerd >"$LOG_DIR/dockerd.log" 2>&1 </dev/null &
  fi
  for _ in $(seq 1 "$DOCKER_WAIT"); do docker_answers && break; sleep 1; done
  docker_answers || fail "dockerd did not answer within ${DOCKER_WAIT}s; last lines of $LOG_DIR/dockerd.log: $(tail -n 3 "$LOG_DIR/dockerd.log" 2>/dev/null | tr '\n' ' ')" "check $LOG_DIR/dockerd.log"
  report done "$(elapsed)"
fi

# --- local registry --------------------------------------------------------------------------
registry_answers() { curl -fsS --max-time 3 "http://$REGISTRY_ADDR/v2/" >/dev/null 2>&1; }
begin "registry $REGISTRY_ADDR"
if registry_answers; then report "already there"
else
  if ! have docker-registry; then apt_install docker-registry || fail "apt-get install docker-registry failed, see $LOG_DIR/apt.log"; fi
  have curl || apt_install curl || fail "apt-get install curl failed"
  mkdir -p "$REGISTRY_DIR"
  cat >"$STATE_DIR/registry.yml" <<YAML
version: 0.1
log:
  level: warn
storage:
  filesystem:
    rootdirectory: $REGISTRY_DIR
  delete:
    enabled: true
http:
  addr: $REGISTRY_ADDR
YAML
  setsid nohup docker-registry serve "$STATE_DIR/registry.yml" >"$LOG_DIR/registry.log" 2>&1 </dev/null &
  for _ in $(seq 1 30); do registry_answers && break; sleep 0.5; done
  registry_answers || fail "the registry did not answer on $REGISTRY_ADDR; see $LOG_DIR/registry.log" "is another process on port 5000? ss -ltnp | grep 5000"
  report done "$(elapsed)"
fi

# --- base image ------------------------------------------------------------------------------
begin "base image $BASE_IMAGE"
if docker image inspect "$BASE_IMAGE" >/dev/null 2>&1; then report "already there"
elif timeout 30 docker pull -q "$BASE_IMAGE" >/dev/null 2>&1; then report done "pulled, $(elapsed)"
else
  have debootstrap || apt_install debootstrap || fail "apt-get install debootstrap failed, see $LOG_DIR/apt.log"
  mirror=$(debian_mirror bookworm) || mirror=
  [ -n "$mirror" ] || fail "apt's sources name no Debian archive to debootstrap bookworm from" \
    "set ORACLE_DEBIAN_MIRROR to a Debian mirror this machine reaches (the URL apt would use), then run setup again"
  rootfs=$(mktemp -d "$STATE_DIR/rootfs.XXXXXX")
  debootstrap --variant=minbase bookworm "$rootfs" "$mirror" >"$LOG_DIR/debootstrap.log" 2>&1 \
    || { rm -rf "$rootfs"; fail "debootstrap failed from $mirror, see $LOG_DIR/debootstrap.log"; }
  rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
  tar -C "$rootfs" -c . | docker import -c 'CMD ["bash"]' - "$BASE_IMAGE" >/dev/null \
    || { rm -rf "$rootfs"; fail "docker import failed"; }
  rm -rf "$rootfs"
  report done "debootstrap + import, $(elapsed)"
fi

# --- redis-server (queue tests, oracle-worker): installed, never started here -------------------
begin "redis-server"
if have redis-server; then report "already there" "$(redis-server --version | awk '{print $3}')"
else
  # The package's maintainer script would start a system-wide server; forbid it for this install.
  policy_added=0
  if [ ! -e /usr/sbin/policy-rc.d ]; then printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d; chmod +x /usr/sbin/policy-rc.d; policy_added=1; fi
  apt_install redis-server; status=$?
  [ $policy_added = 1 ] && rm -f /usr/sbin/policy-rc.d
  [ $status = 0 ] || fail "apt-get install redis-server failed, see $LOG_DIR/apt.log"
  have redis-server || fail "no redis-server after installing redis-server"
  report done "$(elapsed)"
fi

# --- GNU time (the hostile corpus measures the grader's peak RSS with /usr/bin/time -v) ---------
begin "time"
if [ -x /usr/bin/time ]; then report "already there"
else
  apt_install time || fail "apt-get install time failed, see $LOG_DIR/apt.log"
  [ -x /usr/bin/time ] || fail "no /usr/bin/time after installing time"
  report done "$(elapsed)"
fi

# --- Chromium (test/quarantine.test.ts opens the HTML report in /usr/bin/chromium via playwright) --
begin "chromium"
if [ -x /usr/bin/chromium ]; then report "already there" "$(dpkg-query -W -f='${Version}' chromium 2>/dev/null)"
else
  apt_install chromium || fail "apt-get install chromium failed, see $LOG_DIR/apt.log"
  [ -x /usr/bin/chromium ] || fail "no /usr/bin/chromium after installing chromium"
  report done "$(elapsed)"
fi

# --- git and ip (test fixtures are git repositories; the engine-fault tests add a bridge with ip) --
begin "git, ip"
missing=""
have git || missing="$missing git"
have ip || missing="$missing iproute2"
if [ -z "$missing" ]; then report "already there"
else
  # shellcheck disable=SC2086 # one word per package
  apt_install $missing || fail "apt-get install$missing failed, see $LOG_DIR/apt.log"
  have git && have ip || fail "no git or ip after installing$missing"
  report done "$(elapsed)"
fi

# --- Debian's python3, pytest and numpy (unit tests run the seal runtimes against the same pytest 7
# the python-pytest image has, and numpy 1.24 as a task's Debian-built image has it: packages/test-set)
begin "python3-pytest"
if /usr/bin/python3 -c "import pytest, numpy" >/dev/null 2>&1; then report "already there" "$(/usr/bin/python3 -m pytest --version 2>&1 | head -n 1)"
else
  apt_install python3-pytest python3-numpy || fail "apt-get install python3-pytest python3-numpy failed, see $LOG_DIR/apt.log"
  /usr/bin/python3 -c "import pytest, numpy" >/dev/null 2>&1 || fail "no pytest or numpy for /usr/bin/python3 after installing python3-pytest python3-numpy"
  report done "$(elapsed)"
fi

# --- Debian's Go (unit tests build the Go seal runtime with the go-gotestsum image's Go 1.19) -----
begin "golang-go"
if command -v go >/dev/null 2>&1; then report "already there" "$(go version 2>/dev/null | cut -d' ' -f3)"
else
  apt_install golang-go || fail "apt-get install golang-go failed, see $LOG_DIR/apt.log"
  have go || fail "no go after installing golang-go"
  report done "$(elapsed)"
fi

# --- dependencies and build ------------------------------------------------------------------
if [ "${ORACLE_SETUP_SKIP_BUILD:-0}" != 1 ]; then
  cd "$ROOT" || exit 1
  begin "pnpm install"
  out=$(pnpm install --reporter=default --frozen-lockfile --prefer-offline 2>&1) || { echo "$out" | tail -n 20 >&2; fail "pnpm install --frozen-lockfile failed" "if package.json changed, run pnpm install and commit pnpm-lock.yaml"; }
  if echo "$out" | grep -q "Already up to date"; then report "already there"; else report done "$(elapsed)"; fi
  begin "pnpm build"
  out=$(pnpm --reporter=default build 2>&1) || { echo "$out" | tail -n 30 >&2; fail "pnpm build failed"; }
  if echo "$out" | grep -q "FULL TURBO"; then report "already there" "turbo cache"; else report done "$(elapsed)"; fi
fi
