#!/usr/bin/env bash
# Regenerates the bundled sample tasks under tasks/ from the sources in scripts/sample-tasks/.
#
# Each task is a small repository built commit by commit with fixed author, committer and dates, so
# a re-run yields the same commit shas (and byte-identical bundles). For each task it writes
# tasks/<id>/repo.bundle, task.json (baseCommit filled in), hidden-tests/ and gold.diff.
#
#   bash scripts/make-sample-tasks.sh [--root DIR] [TASK_ID...]   (default: every task, root = this repo)
#
# Needs bash, git and coreutils; no network. Each Node task's package.json and package-lock.json are
# copied from its image folder (images/node-mocha, node-jest, node-vitest), so the repository and its
# image share one lockfile.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
ids=()
while [ $# -gt 0 ]; do
  case "$1" in
    --root) root=$(cd "$2" && pwd); shift 2 ;;
    -h | --help) sed -n '2,12p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "make-sample-tasks: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) ids+=("$1"); shift ;;
  esac
done
if [ ${#ids[@]} -eq 0 ]; then ids=(calc-node freebusy-py semver-go slug-jest ranges-vitest); fi

# shellcheck source=sample-tasks/lib.sh
source "$here/sample-tasks/lib.sh"
for id in "${ids[@]}"; do
  if [ ! -f "$here/sample-tasks/$id.sh" ]; then
    echo "make-sample-tasks: no generator scripts/sample-tasks/$id.sh" >&2
    exit 2
  fi
  task_begin "$id"
  # shellcheck source=/dev/null
  source "$here/sample-tasks/$id.sh"
  task_end
done
