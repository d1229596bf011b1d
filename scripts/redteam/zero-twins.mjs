// Red team round 3. Run after `pnpm build`: node scripts/redteam/zero-twins.mjs
// Planner-level: shapes on which the hidden suite gets a pair (state "collected", required) but no twin:
// only the pair, which code can tell by its literal sum, stands between an in-process forgery and PASS.
import { planSentinels, sentinelRunner } from "../../packages/grader/dist/sentinels/sentinels.js";

const PY = `from calc.core import add


def test_add_small():
    assert add(2, 3) == 5


def test_add_zero():
    assert add(0, 7) == 7
`;
const JS = `const { strictEqual } = require("node:assert");
const { add } = require("../src/add");

describe("add", () => {
  it("adds small numbers", () => {
    strictEqual(add(2, 3), 5);
  });
});
`;
const J = '--junitxml="$ORACLE_JUNIT"';
const M = "node_modules/.bin/mocha --reporter mocha-junit-reporter";
const cases = [
  ["pytest file (reference)", `python3 -m pytest ${J} checks/test_x.py`, "checks/test_x.py", PY, new Map()],
  [
    "pytest --deselect",
    `python3 -m pytest ${J} checks/test_x.py --deselect checks/test_x.py::test_flaky`,
    "checks/test_x.py",
    PY,
    new Map(),
  ],
  [
    "pytest --ff (failed first: a no-op here)",
    `python3 -m pytest ${J} --ff checks/test_x.py`,
    "checks/test_x.py",
    PY,
    new Map(),
  ],
  [
    "pytest file, mirror in the image (base unknown)",
    `python3 -m pytest ${J} checks/test_x.py`,
    "checks/test_x.py",
    PY,
    null,
  ],
  [
    "mocha file --grep 'numbers$'",
    `${M} checks/add.test.js --grep "numbers$"`,
    "checks/add.test.js",
    JS,
    new Map(),
  ],
  ["mocha file (reference)", `${M} checks/add.test.js`, "checks/add.test.js", JS, new Map()],
];
for (const [title, command, path, text, base] of cases) {
  const runner = sentinelRunner({ suites: { hidden: { command } } });
  const s = planSentinels(runner, [{ path, text }], [], base, "key");
  const twins = s?.appends.reduce((n, a) => n + (a.twins?.length ?? 0), 0) ?? 0;
  console.log(
    `${title.padEnd(50)} pair required: ${s ? s.required.length > 0 : "-"}  twins: ${twins}${s?.note ? `  note: ${s.note}` : ""}`,
  );
}
