# ranges-vitest: merges and queries integer ranges in Node (ESM), tested with vitest (its built-in
# JUnit reporter). The bug: merge joins overlapping ranges but not ranges that touch, so
# [1, 3] and [3, 5] stay apart, and `covers` then misses a value spanning the seam.

file package.json < "$root/images/node-vitest/package.json"
file package-lock.json < "$root/images/node-vitest/package-lock.json"
file .gitignore <<'EOF'
# node_modules may be a symlink to dependencies installed elsewhere, hence no trailing slash.
node_modules
EOF
file README.md <<'EOF'
# ranges

Closed integer ranges `[start, end]`: `merge` sorts and joins them, `covers` asks whether a span
is inside one of them.

Run the tests with `npm test`.
EOF
file src/ranges.js <<'EOF'
/**
 * Sorts closed ranges [start, end] by start and joins the ones that overlap.
 * The input is not modified.
 */
export function merge(ranges) {
  const sorted = [...ranges].map(([s, e]) => [s, e]).sort((a, b) => a[0] - b[0]);
  const out = [];
  for (const range of sorted) {
    const last = out.at(-1);
    if (last !== undefined && range[0] < last[1]) last[1] = Math.max(last[1], range[1]);
    else out.push(range);
  }
  return out;
}
EOF
file test/unit/merge.test.js <<'EOF'
import { describe, expect, it } from "vitest";
import { merge } from "../../src/ranges.js";

describe("merge", () => {
  it("sorts ranges by start", () => {
    expect(merge([[7, 9], [1, 2]])).toEqual([[1, 2], [7, 9]]);
  });

  it("joins overlapping ranges", () => {
    expect(merge([[1, 5], [2, 8]])).toEqual([[1, 8]]);
  });

  it("keeps a range inside another once", () => {
    expect(merge([[1, 10], [3, 4]])).toEqual([[1, 10]]);
  });

  it("does not modify its input", () => {
    const input = [[4, 6], [1, 5]];
    merge(input);
    expect(input).toEqual([[4, 6], [1, 5]]);
  });
});
EOF
commit 2024-05-13T08:20:00Z "Add merge"

file src/covers.js <<'EOF'
import { merge } from "./ranges.js";

/** Whether the closed span [start, end] lies inside one of `ranges` once they are merged. */
export function covers(ranges, [start, end]) {
  return merge(ranges).some(([s, e]) => s <= start && end <= e);
}
EOF
file test/unit/covers.test.js <<'EOF'
import { describe, expect, it } from "vitest";
import { covers } from "../../src/covers.js";

describe("covers", () => {
  it("finds a span inside one range", () => {
    expect(covers([[1, 10]], [2, 3])).toBe(true);
  });

  it("finds a span across overlapping ranges", () => {
    expect(covers([[1, 5], [4, 9]], [2, 8])).toBe(true);
  });

  it("rejects a span across a gap", () => {
    expect(covers([[1, 3], [5, 9]], [2, 6])).toBe(false);
  });
});
EOF
commit 2024-05-16T17:45:00Z "Add covers"

# The fix: ranges that share an end point are joined too.
file src/ranges.js <<'EOF'
/**
 * Sorts closed ranges [start, end] by start and joins the ones that overlap or touch
 * (share an end point). The input is not modified.
 */
export function merge(ranges) {
  const sorted = [...ranges].map(([s, e]) => [s, e]).sort((a, b) => a[0] - b[0]);
  const out = [];
  for (const range of sorted) {
    const last = out.at(-1);
    if (last !== undefined && range[0] <= last[1]) last[1] = Math.max(last[1], range[1]);
    else out.push(range);
  }
  return out;
}
EOF
gold

hidden test/regression/touching.test.js <<'EOF'
import { describe, expect, it } from "vitest";
import { covers } from "../../src/covers.js";
import { merge } from "../../src/ranges.js";

describe("ranges that touch", () => {
  it("are joined", () => {
    expect(merge([[1, 3], [3, 5]])).toEqual([[1, 5]]);
  });

  it("are joined in a chain", () => {
    expect(merge([[5, 7], [1, 3], [3, 5]])).toEqual([[1, 7]]);
  });

  it("cover a span across the seam", () => {
    expect(covers([[1, 3], [3, 5]], [2, 4])).toBe(true);
  });

  it("stay apart from ranges one past their end", () => {
    expect(merge([[1, 3], [4, 5]])).toEqual([[1, 3], [4, 5]]);
  });
});
EOF

cat > "$task/task.json.in" <<'EOF'
{
  "$schema": "../../packages/spec/task.schema.json",
  "id": "ranges-vitest",
  "description": "Node (ESM) integer ranges; ranges that touch must merge. Tests: vitest (built-in JUnit reporter) on Node 18 from the image's /opt/deps/node_modules.",
  "image": "node-vitest",
  "framework": "vitest",
  "repo": { "mirror": "repo.bundle", "baseCommit": "@BASE_COMMIT@" },
  "suites": {
    "existing": {
      "command": "ln -sfn /opt/deps/node_modules node_modules && node_modules/.bin/vitest run test/unit/ --no-cache --reporter=default --reporter=junit --outputFile.junit=\"$ORACLE_JUNIT\"",
      "files": ["test/**", "vitest.config.*", "vite.config.*", "vitest.workspace.*", "package.json", "package-lock.json"]
    },
    "hidden": {
      "command": "ln -sfn /opt/deps/node_modules node_modules && node_modules/.bin/vitest run test/regression/ --no-cache --reporter=default --reporter=junit --outputFile.junit=\"$ORACLE_JUNIT\""
    }
  },
  "diff": {
    "allow": ["**"],
    "deny": ["test/**", "vitest.config.*", "vite.config.*", "vitest.workspace.*", "package.json", "package-lock.json", "node_modules/**", ".npmrc"]
  },
  "timeoutSeconds": 90
}
EOF
