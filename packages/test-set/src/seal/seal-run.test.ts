import { createHash } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { loadParsers, type Parsers } from "../parsers.js";
import { planFingerprint, planSeals } from "./seal-run.js";

let parsers: Parsers;
beforeAll(async () => {
  parsers = await loadParsers(["python"]);
});

// Attack review s23 finding 6 (peek-py): before 738e772 the seal after _same(...) was planned strong
// with no afterUnsealed, with the same key, line, kind and test as now.
const PEEK = {
  path: "tests/test_runs.py",
  text: `from text import normalise


def _same(raw, want):
    assert normalise(raw) == want


def test_inner_runs_collapse():
    _same("a  b\\t\\tc", "a b c")
    assert normalise("  x  ") == "x"
`,
};

describe("planSeals fingerprint", () => {
  it("a record the sweep made when the fingerprint covered the sites' keys, lines and kinds alone is for another plan", () => {
    const run = planSeals(parsers, [PEEK]);
    expect(run.sites.map((s) => [s.key, s.strength, s.afterUnsealed])).toEqual([["0.0", "strong", true]]);
    // What a sweep before this change recorded as the plan (peek-py's seals.recorded.json).
    const old = createHash("sha256");
    for (const f of run.files) old.update(`${f.path}\n${f.planned.join("\n")}\n`);
    expect(run.fingerprint).not.toBe(old.digest("hex"));
  });

  it("covers what the judge reads of a site: afterUnsealed, strength, the expected value, options", () => {
    const run = planSeals(parsers, [PEEK]);
    const { fingerprint: _f, ...rest } = run;
    expect(planFingerprint(rest)).toBe(run.fingerprint);
    const site = run.sites[0]!;
    const { afterUnsealed: _a, ...unguarded } = site;
    const variants = [
      unguarded,
      { ...site, strength: "weak" as const },
      { ...site, expected: { t: "str", v: "y" } as const },
      { ...site, options: { abs: 1 } },
    ];
    for (const v of variants) expect(planFingerprint({ ...rest, sites: [v] })).not.toBe(run.fingerprint);
    expect(
      planFingerprint({ ...rest, files: rest.files.map((f) => ({ ...f, text: `${f.text}#` })) }),
    ).not.toBe(run.fingerprint);
  });

  it("is the same with the sweep's demotions as without (the sweep records the plan before demoting)", () => {
    const text = `from m import f, g\n\n\ndef test_a():\n    assert f() == 1\n    assert g() == 2\n`;
    const fresh = planSeals(parsers, [{ path: "tests/test_m.py", text }]);
    const demoted = planSeals(parsers, [{ path: "tests/test_m.py", text }], { demoted: new Set(["0.0"]) });
    expect(demoted.sites.map((s) => [s.key, s.afterUnsealed])).toEqual([["0.1", true]]);
    expect(fresh.sites.map((s) => [s.key, s.afterUnsealed])).toEqual([
      ["0.0", undefined],
      ["0.1", undefined],
    ]);
    expect(demoted.fingerprint).toBe(fresh.fingerprint);
  });
});

// Attack review s26 finding 7 (total2-jest): the base commit's own test spelled `0.3`, which unfixed
// code read from the checkout; the hidden `toBe(0.3)` was planned strong.
describe("planSeals strength against the base files around the hidden ones", () => {
  const hidden = {
    path: "tests/test_total.py",
    text: `from total import total, label\n\n\ndef test_cents():\n    assert total([0.1, 0.2]) == 0.3\n    assert label(3) == "three items"\n`,
  };
  const strengths = (context: { path: string; text: string }[]) =>
    planSeals(parsers, [hidden], { context }).sites.map((s) => s.strength);

  it("is strong when no base file spells the value, exposed when one does (a number as a token, a string inside)", () => {
    expect(strengths([])).toEqual(["strong", "strong"]);
    expect(
      strengths([
        {
          path: "tests/test_basic.py",
          text: "def test_x():\n    assert round(total([0.1, 0.2]), 2) == 0.30\n",
        },
      ]),
    ).toEqual(["strong", "strong"]);
    expect(
      strengths([{ path: "tests/test_basic.py", text: "assert total([0.1, 0.2]) == pytest.approx(0.3)\n" }]),
    ).toEqual(["exposed", "strong"]);
    expect(strengths([{ path: "tests/conftest.py", text: 'LABELS = {3: "three items"}\n' }])).toEqual([
      "strong",
      "exposed",
    ]);
  });

  it("moves the fingerprint with the strength", () => {
    const bare = planSeals(parsers, [hidden], { context: [] });
    const around = planSeals(parsers, [hidden], { context: [{ path: "tests/x.py", text: "0.3" }] });
    expect(around.fingerprint).not.toBe(bare.fingerprint);
  });
});

describe("planSeals strength against the base files, containers", () => {
  it("keeps a container strong when the base files spell only its leaves", () => {
    const hidden = {
      path: "tests/test_ranges.py",
      text: `from ranges import merge\n\n\ndef test_touching():\n    assert merge([[1, 3], [3, 5]]) == [[1, 5]]\n`,
    };
    const context = [
      { path: "tests/test_basic.py", text: "assert merge([[1, 2], [4, 5]]) == [[1, 2], [4, 5]]\n" },
    ];
    expect(planSeals(parsers, [hidden], { context }).sites.map((s) => s.strength)).toEqual(["strong"]);
  });
});
