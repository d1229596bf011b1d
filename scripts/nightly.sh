#!/usr/bin/env bash
# The nightly job: keeps every task's health current (docs/development.md, "The nightly job").
#
#   scripts/nightly.sh [--full] [--root DIR] [--report DIR] [--repeat K]
#
# 1. `oracle-build-images`: rebuilds the images whose folder (Dockerfile, lockfiles, context) changed
#    and names the tasks on each image that got a new digest;
# 2. `oracle-quarantine-sweep --changed --fail-on-new`: sweeps exactly the tasks that are not current
#    (never judged, or their task folder, image digest or grader changed), or every task on Sundays
#    (UTC) and with --full.
#
# Exit: 0 all built and swept, no task newly quarantined; 1 a task was newly quarantined or an image
# failed to build (the sweep still runs: tasks on the other images are still judged); 2 usage error;
# 3 build-images or the sweep could not run (engine down, internal error); 130/143 interrupted.
#
# Environment: ORACLE_BUILD_CA_FILE (a CA bundle for builds behind a TLS-intercepting proxy),
# NIGHTLY_REPEAT (default 3), NIGHTLY_WEEKDAY (1-7, default today's in UTC; 7 = Sunday runs a full
# sweep), ORACLE_BIN_DIR (where the oracle's bins are; default node_modules/.bin of this repository).
set -uo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
bin=${ORACLE_BIN_DIR:-$repo/node_modules/.bin}
root=$repo
report=
repeat=${NIGHTLY_REPEAT:-3}
full=false

usage() {
  echo "usage: $(sed -n '4p' "$0" | sed 's/^# *//')" >&2
  exit 2
}

while [ $# -gt 0 ]; do
  case $1 in
    --full) full=true ;;
    --root) [ $# -ge 2 ] || usage; root=$2; shift ;;
    --report) [ $# -ge 2 ] || usage; report=$2; shift ;;
    --repeat) [ $# -ge 2 ] || usage; repeat=$2; shift ;;
    -h | --help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "nightly: unknown argument '$1'" >&2; usage ;;
  esac
  shift
done

weekday=${NIGHTLY_WEEKDAY:-$(date -u +%u)}
if [ "$weekday" = 7 ]; then full=true; fi
[ -n "$report" ] || report=$root/logs/nightly/$(date -u +%Y%m%dT%H%M%SZ)
trap 'exit 130' INT
trap 'exit 143' TERM

echo "nightly: build-images (root $root)" >&2
"$bin/oracle-build-images" --root "$root"
built=$?
case $built in
  0) ;;
  1) echo "nightly: an image failed to build (see above); sweeping the tasks anyway" >&2 ;;
  *) echo "nightly: build-images could not run (exit $built)" >&2; exit "$built" ;;
esac

scope=(--changed)
what="tasks that are not current"
if [ "$full" = true ]; then scope=(); what="every task (weekly full sweep)"; fi
echo "nightly: quarantine-sweep: $what, --repeat $repeat, report $report" >&2
"$bin/oracle-quarantine-sweep" --root "$root" "${scope[@]}" --repeat "$repeat" --report "$report" --fail-on-new
swept=$?

echo "nightly: build-images exit $built, quarantine-sweep exit $swept" >&2
if [ "$swept" -ne 0 ]; then exit "$swept"; fi
exit "$built"
