import { beforeAll, describe, expect, it } from "vitest";
import { loadParsers, type Parsers } from "../parsers.js";
import { SEAL_RULES } from "../rules.js";
import { planSeals } from "./seal-run.js";
import { unsealedRule } from "./unsealed-why.js";

let parsers: Parsers;
beforeAll(async () => {
  parsers = await loadParsers(["python"]);
});

const FILE = {
  path: "tests/test_x.py",
  text: `from text import normalise, is_blank


def check(raw, want):
    assert normalise(raw) == want


def _same(raw, want):
    assert normalise(raw) == want


def test_helper():
    check("a  b", "a b")


def test_prints():
    print(normalise("a"))


def test_truth():
    assert is_blank("  ")


def test_after_helper():
    _same("a  b", "a b")
    assert normalise("  x  ") == "x"


def test_strong():
    assert normalise("c  d") == "c d"


@pytest.mark.xfail
def test_marked():
    assert normalise("e  f") == "e f"
`,
};

const id = (name: string) => `tests/test_x.py::${name}`;

describe("unsealedRule: why a FAIL_TO_PASS test has no strong seal", () => {
  it("names the planner's rule, the sites' strength, the sweep's demotions, or the baseline", () => {
    const run = planSeals(parsers, [FILE]);
    const why = (name: string) => unsealedRule(run, id(name));
    expect(why("test_helper")).toBe("unsealed.helper-check");
    expect(why("test_prints")).toBe("unsealed.no-comparison");
    expect(why("test_marked")).toBe("unsealed.xfail");
    expect(why("test_truth")).toBe("unsealed.weak");
    expect(why("test_after_helper")).toBe("unsealed.after-check");
    // Sealed strongly by the plan: only the sweep's baseline runs can leave it unsealed.
    expect(why("test_strong")).toBe("unsealed.baseline");
    expect(why("test_gone")).toBe("unsealed.not-planned");
    expect(unsealedRule(run, "other/test_y.py::test_a")).toBe("unsealed.not-planned");
    // The planner lists a test whose every site the sweep demoted under no-comparison: it was gold.
    const key = run.sites.find((s) => s.test.entry === id("test_strong"))!.key;
    const demoted = planSeals(parsers, [FILE], { demoted: new Set([key]) });
    expect(unsealedRule(demoted, id("test_strong"))).toBe("unsealed.gold");
    expect(unsealedRule(demoted, id("test_prints"))).toBe("unsealed.no-comparison");
  });

  it("a file the parser cannot read is unsealed.no-parse, and every rule it gives is a row of rules.ts", () => {
    const run = planSeals(parsers, [
      { path: "tests/test_bad.py", text: "def test_a(:\n    assert f() == 1\n" },
    ]);
    expect(run.unread).toEqual(["tests/test_bad.py"]);
    expect(unsealedRule(run, "tests/test_bad.py::test_a")).toBe("unsealed.no-parse");
    expect(unsealedRule(run, "hidden:tests.test_bad::test_a")).toBe("unsealed.no-parse");
    for (const rule of [
      "unsealed.weak",
      "unsealed.after-check",
      "unsealed.baseline",
      "unsealed.not-planned",
      "unsealed.gold",
    ])
      expect(SEAL_RULES).toHaveProperty([rule]);
  });
});
