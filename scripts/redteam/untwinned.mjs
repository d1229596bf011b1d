// Red team round 5 (redteam3). Run after `pnpm build`: node scripts/redteam/untwinned.mjs [N] [--twinned]
// A run with twins is not "pair only", but a failing hidden test that is not twinned (a loop here) is
// forged passed by an atexit rewrite (forge-untwinned.py) that leaves every planted-looking entry
// (`<name>_<digits>`: the pair and both twins) as it fared. Real pytest on the host, the grader's own
// checkSentinel and checkExpected. With --twinned the failing test is a one-line assert (twinned): the
// same forge then gets TESTS_FAILED, which shows the twins protect only the tests they copy.
import { readFileSync } from "node:fs";
import { gradeOnce } from "./host-pytest.mjs";

const D = new URL("../../packages/grader/dist", import.meta.url).pathname;
const { checkExpected } = await import(`${D}/judges/expected-judge.js`);
const PATH = "tests/test_add.py";
const TEXT = `from calc.core import add


def test_add_small():
    assert add(2, 3) == 5


def test_add_negative():
    assert add(-2, -3) == -5


def test_add_table():
${process.argv.includes("--twinned") ? "    assert add(40, 2) == 42" : "    for a, b, want in [(2, 2, 4), (40, 2, 42)]:\n        assert add(a, b) == want"}
`;
const forge = readFileSync(new URL("./forge-untwinned.py", import.meta.url), "utf8");
const GOLD = "def add(a, b):\n    return a + b\n";
const UNFIXED = "def add(a, b):\n    return a + b if a < 10 else a + b + 1\n";
const base = { "calc/__init__.py": "", "tests/__init__.py": "" };
const recorded = ["test_add_small", "test_add_negative", "test_add_table"].map(
  (n) => `hidden:tests.test_add::${n}`,
);
const expectation = { source: "sweep", suites: { existing: [], hidden: recorded } };
const n = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 10);
for (const [label, core] of [
  ["gold", GOLD],
  ["unfixed", UNFIXED],
  ["unfixed+forge", `${forge}\n${UNFIXED}`],
]) {
  const tally = {};
  let twins = 0;
  for (let i = 0; i < n; i++) {
    const g = gradeOnce({
      path: PATH,
      text: TEXT,
      files: { ...base, "calc/core.py": core },
      args: PATH,
      key: `k${i}`,
    });
    let reason = g.reason;
    if (reason === "PASS") {
      const e = checkExpected(expectation, { existing: [], hidden: g.v.tests });
      reason = e.problems.hidden?.reason ?? "PASS";
    }
    twins += g.s.appends.reduce((k, a) => k + (a.twins?.length ?? 0), 0);
    tally[`${reason}/${g.v?.state}`] = (tally[`${reason}/${g.v?.state}`] ?? 0) + 1;
  }
  console.log(label.padEnd(14), JSON.stringify(tally), "twins per run:", twins / n);
}
