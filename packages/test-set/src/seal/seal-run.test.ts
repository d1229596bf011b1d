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
