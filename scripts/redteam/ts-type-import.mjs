// Planner-level (red team round 3): TypeScript test files import types beside functions; the pair
// asserts `typeof <one imported name>`, picked at random per run. Run: node scripts/redteam/ts-type-import.mjs
import { planSentinels, sentinelRunner } from "../../packages/grader/dist/sentinels/sentinels.js";

const text = `import { describe, expect, it } from "vitest";
import { merge, type Range } from "../../src/ranges";

describe("ranges that touch", () => {
  it("are joined", () => {
    const input: Range[] = [[1, 3], [3, 5]];
    expect(merge(input)).toEqual([[1, 5]]);
  });
});
`;
const task = {
  suites: {
    hidden: {
      command:
        'ln -sfn /opt/deps/node_modules node_modules && node_modules/.bin/vitest run test/regression/ --reporter=junit --outputFile.junit="$ORACLE_JUNIT"',
    },
  },
};
const runner = sentinelRunner(task);
let typeRef = 0;
const N = 200;
for (let i = 0; i < N; i++) {
  const s = planSentinels(runner, [{ path: "test/regression/touching.test.ts", text }], [], new Map(), "k");
  const a = s.appends[0];
  if (/typeof Range/.test(a.text)) typeRef++;
  if (i === 0) console.log(a.text);
}
console.log(`pair asserts on the type-only import 'Range' in ${typeRef}/${N} plans`);
