// Planner-level (red team round 3): a report forged from the planted file alone, with one failed entry
// `A[::B[]` per pair of twins, passes checkSentinel whichever twin is the copy. Run after `pnpm build`:
//   node scripts/redteam/twin-ambiguous.mjs   (prints the plan, the forged report and the verdict: problem null)
import {
  checkSentinel,
  planSentinels,
  sentinelRunner,
} from "../../packages/grader/dist/sentinels/sentinels.js";

const text = `from calc.core import add


def test_add_positive():
    assert add(2, 3) == 5


def test_add_more():
    assert add(10, 4) == 14
`;
const task = { suites: { hidden: { command: 'python3 -m pytest -q --junitxml="$ORACLE_JUNIT" checks' } } };
const runner = sentinelRunner(task);
const s = planSentinels(runner, [{ path: "checks/test_hidden.py", text }], [], new Map(), "k");
const a = s.appends[0];
console.log((a.rewrite ?? "") + a.text);
console.log(JSON.stringify(a.twins), JSON.stringify(a.tests));
// The attacker's view: only the file text. Build the forged list from it.
const full = (a.rewrite ?? text) + a.text;
const defs = [...full.matchAll(/^def (test\w*)\(/gm)].map((m) => m[1]);
const tests = [];
const id = (n) => `hidden:checks.test_hidden::${n}`;
const funcs = full
  .split(/\n(?=def )/)
  .filter((b) => b.startsWith("def "))
  .map((b) => ({ name: /^def (\w+)/.exec(b)[1], body: b }));
const pairNames = [];
for (const f of funcs) {
  const m = /total = sum\(\[(\d+), (\d+)\]\)\n\s*assert total == (\d+)/.exec(f.body);
  if (!m) continue;
  pairNames.push(f.name);
  tests.push({ id: id(f.name), outcome: Number(m[1]) + Number(m[2]) === Number(m[3]) ? "passed" : "failed" });
}
const groups = new Map();
for (const { name: n } of funcs) {
  if (pairNames.includes(n)) continue;
  const base = n.replace(/_\d+$/, "");
  if (base !== n && !defs.includes(base)) groups.set(base, [...(groups.get(base) ?? []), n]);
  else tests.push({ id: id(n), outcome: "passed" });
}
for (const [, [x, y]] of groups) {
  tests.push({ id: id(x), outcome: "passed" }, { id: id(y), outcome: "passed" });
  tests.push({ id: id(`${x}[::${y}[]`), outcome: "failed" });
}
console.log(tests);
console.log(checkSentinel(s, tests, 1));
