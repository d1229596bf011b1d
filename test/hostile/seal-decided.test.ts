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
import { binPath, run } from "@oracle/test-utils";
import { describe, expect, it } from "vitest";
import { conformanceHooks, goldDiff, grade, type Shape } from "../conformance/shapes.js";
import { PYTEST, pyTask } from "../conformance/table.js";
import { why } from "./measure.js";

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

// Go: an `if err == nil { t.Fatal(…) }` the oracle does not seal, then a sealed comparison the unfixed
// Parse passes. At baseline the t.Fatal ends the test before the seal runs; the Go planner did not
// mark the seal afterUnsealed, so the sweep recorded it as deciding the test ("strong") and the
// result listed no FAIL_TO_PASS test without a strong seal.
const GO_JUNIT = `gotestsum --format standard-verbose --junitfile "$ORACLE_JUNIT" -- -count=1`;
const goParse = (body: string) => `package num

import (
	"errors"
	"strconv"
	"strings"
)

var _ = errors.New

// Parse reads the integer in text; an error for an empty text.
func Parse(text string) (int, error) {
${body}
}
`;
const GO_BASE = goParse(
  '\ts := strings.TrimSpace(text)\n\tif s == "" {\n\t\treturn 0, nil\n\t}\n\treturn strconv.Atoi(s)',
);
const GO_GOLD = GO_BASE.replace("return 0, nil", 'return 0, errors.New("empty number")');
const GO_SHAPE: Shape = {
  id: "seal-decided-go",
  title: "go: a sealed comparison after an unsealed if-check the baseline fails",
  from: {
    repo: {
      "go.mod": "module example.com/num\n\ngo 1.19\n",
      "num.go": GO_BASE,
      "basic_test.go":
        'package num\n\nimport "testing"\n\nfunc TestOne(t *testing.T) {\n\tif got, _ := Parse("1"); got != 1 {\n\t\tt.Errorf("Parse(1) = %d", got)\n\t}\n}\n',
    },
    hidden: {
      "parse_test.go": `package num

import "testing"

func TestEmptyIsAnError(t *testing.T) {
	if _, err := Parse("  "); err == nil {
		t.Fatal("want an error for an empty text")
	}
	if got, _ := Parse("734"); got != 734 {
		t.Errorf("Parse(734) = %d", got)
	}
}
`,
    },
    task: {
      $schema: "../../packages/spec/task.schema.json",
      description: "seal-decided: Parse reads an empty text as 0",
      image: "go-gotestsum",
      suites: {
        existing: { command: `${GO_JUNIT} -run TestOne .`, files: ["basic_test.go"] },
        hidden: { command: "" },
      },
      diff: { allow: ["**"], deny: ["*_test.go", "go.mod", "go.sum"] },
      timeoutSeconds: 120,
      env: { GOPROXY: "off", GOFLAGS: "-mod=readonly", CGO_ENABLED: "0" },
    },
  },
  hidden: `${GO_JUNIT} -run TestEmptyIsAnError .`,
  gold: { "num.go": GO_GOLD },
  tamper: none,
  skip: none,
};

let record: { failToPass: Array<{ test: string; seal: string }> };
let goRecord: { failToPass: Array<{ test: string; seal: string }> };
let status: string;
let goStatus: string;

const c = conformanceHooks([SHAPE, GO_SHAPE], async () => {
  // The sweep in the grading root itself: its seals.recorded.json is what the grades below read.
  const dir = (shape: Shape) => join(c.corpus.root, "tasks", shape.id);
  for (const shape of [SHAPE, GO_SHAPE]) writeFileSync(join(dir(shape), "gold.diff"), goldDiff(c, shape));
  const out = await run(
    binPath("oracle-quarantine-sweep"),
    ["--root", c.corpus.root, "--tasks", `${SHAPE.id},${GO_SHAPE.id}`],
    { timeoutMs: 900_000 },
  );
  const reports = /reports: (\S+)report\.html/.exec(out.stdout + out.stderr)?.[1];
  if (reports === undefined) throw new Error(`sweep printed no report (${out.code}): ${out.stderr}`);
  const tasks: Array<{ id: string; status: string }> = JSON.parse(
    readFileSync(join(reports, "report.json"), "utf8"),
  ).tasks;
  status = tasks.find((t) => t.id === SHAPE.id)?.status ?? "missing";
  goStatus = tasks.find((t) => t.id === GO_SHAPE.id)?.status ?? "missing";
  record = JSON.parse(readFileSync(join(dir(SHAPE), "seals.recorded.json"), "utf8"));
  goRecord = JSON.parse(readFileSync(join(dir(GO_SHAPE), "seals.recorded.json"), "utf8"));
});

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

describe("seals: what decides a FAIL_TO_PASS test (seal-decided-go)", () => {
  it("a seal behind an unsealed t.Fatal check the baseline failed decides nothing: the result and stderr say so", async () => {
    expect(goStatus).toBe("healthy");
    const gold = await grade(c, GO_SHAPE, "gold", goldDiff(c, GO_SHAPE));
    expect(gold.result.verdict, why(gold)).toBe("PASS");
    expect(gold.result.seals?.failToPass?.sealed, why(gold)).toBe(0);
    expect(
      gold.result.seals?.failToPass?.unsealed.map((t) => t.split("::").at(-1)),
      why(gold),
    ).toEqual(["TestEmptyIsAnError"]);
    expect(gold.stderr).toMatch(/warn: 1 of 1 FAIL_TO_PASS test\(s\) have no strong seal/);
    expect(goRecord.failToPass.map((f) => [f.test.split("::").at(-1), f.seal])).toEqual([
      ["TestEmptyIsAnError", "none"],
    ]);
  }, 1_200_000);
});
