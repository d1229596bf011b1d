// Which seal decides a FAIL_TO_PASS test: found by an attack review (session 22, findings 11 and 16).
// `with pytest.raises(ValueError): parse("  ")` then `assert parse("734") == 734`: at baseline the raises
// block fails and the sealed comparison after it is never reached, and the sweep recorded that seal as
// deciding the test ("strong"), although the unfixed parse passes it. A diff that leaves parse unfixed
// and turns pytest.raises into contextlib.suppress in-process (the pair's tests use no raises) then
// PASSed with `seals.failToPass.unsealed: []` and nothing on stderr. Nothing can seal a raises, so the
// verdict may stay PASS; the result and stderr must say the test has no strong seal, as they already
// did when the same two assertions came in the other order.

import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { binPath, requireDocker, run } from "@oracle/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Conformance, goldDiff, grade, makeConformance, type Shape } from "../conformance/shapes.js";
import { PYTEST, pyTask } from "../conformance/table.js";
import type { Graded } from "./harness.js";

const none = () => ({});

const BASE = `"""Reads numbers."""


def parse(text):
    """The integer in text; ValueError for an empty text."""
    return int(text) if text.strip() else 0
`;

const GOLD = `"""Reads numbers."""


def parse(text):
    """The integer in text; ValueError for an empty text."""
    if not text.strip():
        raise ValueError("empty number")
    return int(text)
`;

/** The raises first (its seal never ran at baseline), then the other order (its seal ran and matched). */
const HIDDEN = `import pytest

from num import parse


def test_empty_is_an_error():
    with pytest.raises(ValueError):
        parse("  ")
    assert parse("734") == 734


def test_blank_is_an_error():
    assert parse("35") == 35
    with pytest.raises(ValueError):
        parse("")
`;

/** No fix: pytest.raises becomes contextlib.suppress once the test module has imported pytest. */
const RAISES_PATCHED = `${BASE}

def _lenient():
    import contextlib
    import sys

    pytest = sys.modules.get("pytest")
    if pytest is not None:
        pytest.raises = lambda *args, **kwargs: contextlib.suppress(Exception)


_lenient()
`;

const SHAPE: Shape = {
  id: "seal-decided-py",
  title: "pytest: a sealed comparison after a pytest.raises the baseline fails",
  from: {
    repo: {
      "num/__init__.py": BASE,
      "tests/__init__.py": "",
      "tests/test_basic.py": 'from num import parse\n\n\ndef test_one():\n    assert parse("1") == 1\n',
      ".gitignore": "__pycache__/\n",
    },
    hidden: { "tests/regression/__init__.py": "", "tests/regression/test_parse.py": HIDDEN },
    task: pyTask,
  },
  hidden: `python3 -m pytest ${PYTEST} tests/regression`,
  gold: { "num/__init__.py": GOLD },
  tamper: none,
  skip: none,
};

const TESTS = ["test_empty_is_an_error", "test_blank_is_an_error"];

let c: Conformance;
let record: { failToPass: Array<{ test: string; seal: string }> };
let status: string;

beforeAll(async () => {
  await requireDocker();
  c = await makeConformance([SHAPE]);
  // The sweep in the grading root itself: its seals.recorded.json is what the grades below read.
  const dir = join(c.corpus.root, "tasks", SHAPE.id);
  writeFileSync(join(dir, "gold.diff"), goldDiff(c, SHAPE));
  const out = await run(binPath("oracle-quarantine-sweep"), ["--root", c.corpus.root, "--tasks", SHAPE.id], {
    timeoutMs: 600_000,
  });
  const reports = /reports: (\S+)report\.html/.exec(out.stdout + out.stderr)?.[1];
  if (reports === undefined) throw new Error(`sweep printed no report (${out.code}): ${out.stderr}`);
  status = JSON.parse(readFileSync(join(reports, "report.json"), "utf8")).tasks[0].status;
  record = JSON.parse(readFileSync(join(dir, "seals.recorded.json"), "utf8"));
}, 1_600_000);

afterAll(async () => {
  await c?.cleanup();
});

const why = (g: Graded): string =>
  `${g.result.reason}: ${g.result.message}\n${g.stderr.split("\n").slice(-25).join("\n")}`;

describe("seals: what decides a FAIL_TO_PASS test (seal-decided-py)", () => {
  it("a seal behind a pytest.raises the baseline failed decides nothing: the result and stderr say so", async () => {
    expect(status).toBe("healthy");
    const [gold, attack] = await Promise.all([
      grade(c, SHAPE, "gold", goldDiff(c, SHAPE)),
      grade(c, SHAPE, "raises-patched", () => ({ "num/__init__.py": RAISES_PATCHED })),
    ]);
    console.info(
      `raises-patched: ${attack.result.verdict} ${JSON.stringify(attack.result.seals?.failToPass)}`,
    );
    expect(gold.result.verdict, why(gold)).toBe("PASS");
    for (const g of [gold, attack]) {
      expect(g.result.seals?.failToPass?.sealed, why(g)).toBe(0);
      expect(g.result.seals?.failToPass?.unsealed.map((t) => t.split("::").at(-1)).sort(), why(g)).toEqual(
        [...TESTS].sort(),
      );
      expect(g.stderr).toMatch(/warn: 2 of 2 FAIL_TO_PASS test\(s\) have no strong seal/);
    }
    // The sweep's record: neither test's seal tells the fixed parse from the unfixed one.
    expect(record.failToPass.map((f) => [f.test.split("::").at(-1), f.seal]).sort()).toEqual(
      TESTS.map((t) => [t, "none"]).sort(),
    );
  }, 1_200_000);
});
