// Red team round 5 (redteam3). Run after `pnpm build`: node scripts/redteam/twin-rejects.mjs [N]
// Correct fixes the twins' rules reject, on the host's real pytest (host-pytest.mjs), N keys each:
// 1. a parametrised twin whose copy takes another string of the file holding a bracket ("[A]"): the
//    row id `test_upper_2[a-[A]]` is no row of the copy for sentinel-check.ts, "reported apart";
// 2. twinnable methods of a class skipped in this environment (skipif on the class): both twins are
//    honestly skipped, "a twin is never skipped".
// Then the planner alone: the same twins planted inside mocha's `describe.skip` and in a Go test that
// calls t.Skip under -short (the report then has them skipped, or mocha-junit-reporter leaves them out).
import { gradeOnce } from "./host-pytest.mjs";

const D = new URL("../../packages/grader/dist", import.meta.url).pathname;
const { planSentinels, sentinelRunner } = await import(`${D}/sentinels/sentinels.js`);

const files = (core) => ({ "calc/__init__.py": "", "calc/core.py": core, "tests/__init__.py": "" });
const CASES = [
  {
    label: "parametrised strings beside a string with brackets",
    core: "def wrap(s):\n    return f'[{s}]'\n",
    text: `import pytest

from calc.core import wrap


def test_wrap():
    assert wrap("A") == "[A]"


@pytest.mark.parametrize("s, want", [
    ("a", "A"),
    ("b", "B"),
])
def test_upper(s, want):
    assert wrap(s)[1:-1].upper() == want
`,
  },
  {
    label: "a class skipped on Linux holds a twinnable method",
    core: "def add(a, b):\n    return a + b\n",
    text: `import sys

import pytest

from calc.core import add


def test_add_small():
    assert add(2, 3) == 5


@pytest.mark.skipif(sys.platform.startswith("linux"), reason="Windows paths only")
class TestWindows:
    def test_add_drive(self):
        assert add(3, 4) == 7
`,
  },
];
const n = Number(process.argv[2] ?? 20);
for (const { label, core, text } of CASES) {
  const tally = {};
  let why = "";
  for (let i = 0; i < n; i++) {
    const g = gradeOnce({
      path: "tests/test_x.py",
      text,
      files: files(core),
      args: "tests/test_x.py",
      key: `k${i}`,
    });
    tally[g.reason] = (tally[g.reason] ?? 0) + 1;
    if (g.v?.problem) why = g.v.problem;
  }
  console.log(`correct fix, ${label}: ${JSON.stringify(tally)} over ${n} keys\n  ${why.slice(0, 240)}`);
}

const MOCHA = `node_modules/.bin/mocha --reporter mocha-junit-reporter --reporter-option mochaFile="$ORACLE_JUNIT" test/regression/add.test.js`;
const JS = `const assert = require("node:assert");
const { add } = require("../../src/add");

it("adds small numbers", () => {
  assert.strictEqual(add(2, 3), 5);
});

describe.skip("on windows", () => {
  it("adds drive numbers", () => {
    assert.strictEqual(add(3, 4), 7);
  });
});
`;
const js = planSentinels(
  sentinelRunner({ suites: { hidden: { command: MOCHA } } }),
  [{ path: "test/regression/add.test.js", text: JS }],
  [],
  new Map(),
  "k1",
);
console.log(
  "mocha describe.skip, twins planned:",
  js.appends[0].twins.map((t) => t.original),
);
const GO = `package conformance

import "testing"

func TestAddSmall(t *testing.T) {
	if got := Add(2, 3); got != 5 {
		t.Errorf("got %d", got)
	}
}

func TestAddSlow(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	if got := Add(30, 4); got != 34 {
		t.Errorf("got %d", got)
	}
}
`;
const go = planSentinels(
  sentinelRunner({
    suites: { hidden: { command: `gotestsum --junitfile "$ORACLE_JUNIT" -- -short ./conformance` } },
  }),
  [{ path: "conformance/add_test.go", text: GO }],
  [],
  new Map(),
  "k1",
);
console.log(
  "go test -short, t.Skip in the body, twins planned:",
  go.appends[0].twins.map((t) => t.original),
);
