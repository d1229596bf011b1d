# Helpers for scripts/make-sample-tasks.sh; sourced, not run. A task generator (sample-tasks/<id>.sh)
# writes files into the work tree ($work), calls `commit` for each step of the history, then writes
# the fix into the work tree and calls `gold`, writes hidden tests under $task/hidden-tests/ and
# task.json (with @BASE_COMMIT@ where the sha goes) to $task/task.json.in.

umask 022
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_AUTHOR_NAME="Oracle Samples" GIT_AUTHOR_EMAIL="samples@oracle.invalid"
export GIT_COMMITTER_NAME="Oracle Samples" GIT_COMMITTER_EMAIL="samples@oracle.invalid"
export TZ=UTC LC_ALL=C

# task_begin ID: a fresh work tree and an emptied task folder (quarantine.json is never touched).
task_begin() {
  task_id=$1
  task="$root/tasks/$task_id"
  work=$(mktemp -d "${TMPDIR:-/tmp}/sample-$task_id-XXXXXX")
  rm -rf "$task/hidden-tests" "$task/repo.bundle" "$task/gold.diff" "$task/task.json" "$task/task.json.in"
  mkdir -p "$task/hidden-tests"
  git -C "$work" init -q -b main
  git -C "$work" config core.autocrlf false
  git -C "$work" config pack.threads 1
}

# file PATH [MODE]: writes standard input to PATH in the work tree.
file() {
  mkdir -p "$(dirname "$work/$1")"
  cat > "$work/$1"
  chmod "${2:-644}" "$work/$1"
}

# hidden PATH: writes standard input to PATH under the task's hidden-tests/.
hidden() {
  mkdir -p "$(dirname "$task/hidden-tests/$1")"
  cat > "$task/hidden-tests/$1"
}

# commit DATE MESSAGE: commits everything in the work tree at DATE (ISO 8601, UTC).
commit() {
  git -C "$work" add -A
  GIT_AUTHOR_DATE="$1" GIT_COMMITTER_DATE="$1" git -C "$work" commit -q --no-verify -m "$2"
}

# gold: records the work tree's changes against HEAD as gold.diff, then restores HEAD.
gold() {
  git -C "$work" add -A
  git -C "$work" -c diff.noprefix=false -c diff.mnemonicPrefix=false -c diff.renames=true \
    diff --cached --no-color --no-ext-diff --full-index HEAD > "$task/gold.diff"
  git -C "$work" reset -q --hard HEAD
}

# task_end: writes the bundle and task.json, prints one line, removes the work tree.
task_end() {
  local base
  base=$(git -C "$work" rev-parse HEAD)
  git -C "$work" bundle create -q "$task/repo.bundle" HEAD main
  sed "s/@BASE_COMMIT@/$base/" "$task/task.json.in" > "$task/task.json"
  rm -f "$task/task.json.in"
  echo "$task_id: baseCommit $base ($(git -C "$work" rev-list --count HEAD) commits)"
  rm -rf "$work"
}
