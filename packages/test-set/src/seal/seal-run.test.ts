import { createHash } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { loadParsers, type Parsers } from "../parsers.js";
import { planFingerprint, planSeals } from "./seal-run.js";

let parsers: Parsers;
beforeAll(async () => {
  parsers = await loadParsers(["python", "go"]);
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

// Attack review s27, findings 1-4: the code under test reads every file in the container, and its own
// test's name (PYTEST_CURRENT_TEST, runtime.Callers), not just the sealed file's literals.
describe("planSeals strength against what else the container holds", () => {
  const strengths = (files: { path: string; text: string }[]) =>
    Object.fromEntries(
      planSeals(parsers, files).sites.map((s) => [
        `${s.test.entry.replace(/^[^:]*\.py::/, "")}:${s.line}`,
        s.strength,
      ]),
    );
  const core = {
    path: "tests/test_core.py",
    text: `from slug import slugify, status\n\n\ndef test_accents():\n    assert slugify("Crème Brûlée") == "creme-brulee-q"\n\n\ndef test_ready():\n    assert status("rk") == "ready_ok"\n`,
  };

  it("a value another hidden file spells as it enters the container (a helper's argument, a round trip) is exposed", () => {
    expect(strengths([core])).toEqual({ "test_accents:5": "strong", "test_ready:9": "strong" });
    const helper = {
      path: "tests/test_api.py",
      text: `from slug import slugify\n\n\ndef _check(raw, want):\n    assert slugify(raw) == want\n\n\ndef test_api():\n    _check("Crème Brûlée", "creme-brulee-q")\n`,
    };
    expect(strengths([core, helper])).toMatchObject({
      "test_accents:5": "exposed",
      "test_ready:9": "strong",
    });
    const roundTrip = {
      path: "tests/test_back.py",
      text: `from slug import unslug\n\n\ndef test_back():\n    assert unslug("creme-brulee-q") == "Creme Brulee"\n`,
    };
    expect(strengths([core, roundTrip])).toMatchObject({ "test_accents:5": "exposed" });
    // Sealed in both files: the literal leaves each, and neither is read in the other.
    const twice = { path: "tests/test_twice.py", text: core.text.replace("test_accents", "test_again") };
    expect(strengths([core, twice])).toMatchObject({ "test_accents:5": "strong", "test_again:5": "strong" });
  });

  it("sibling-container: a list another hidden file spells (a helper's argument) is exposed, strings or numbers in a row", () => {
    // attack review s28: only scalars were read in the siblings, so the whole list a helper call in
    // another hidden file hands the code stayed "strong".
    const words = {
      path: "tests/test_core.py",
      text: `from slug import words, scores\n\n\ndef test_words():\n    assert words("Crème Brûlée") == ["creme", "brulee-q"]\n\n\ndef test_scores():\n    assert scores([17, 18]) == [4253, 4503]\n`,
    };
    expect(strengths([words])).toEqual({ "test_words:5": "strong", "test_scores:9": "strong" });
    const helper = {
      path: "tests/test_api.py",
      text: `from slug import words, scores\n\n\ndef _check(f, raw, want):\n    assert f(raw) == want\n\n\ndef test_api():\n    _check(words, "Crème Brûlée", ["creme", "brulee-q"])\n    _check(scores, [17, 18], [\n        4253,\n        4503,\n    ])\n`,
    };
    expect(strengths([words, helper])).toEqual({ "test_words:5": "exposed", "test_scores:9": "exposed" });
    // The numbers apart, or another order, do not spell the list.
    const apart = { ...helper, text: helper.text.replace("4253,\n        4503", "4503,\n        4253") };
    expect(strengths([words, apart])).toMatchObject({ "test_scores:9": "strong" });
  });

  it("a Python test's or class's name that spells the value exposes it; a bytes value is read as its text", () => {
    const named = core.text.replace("def test_ready", "def test_status_is_ready_ok");
    expect(strengths([{ ...core, text: named }])).toMatchObject({ "test_status_is_ready_ok:9": "exposed" });
    const number = `from m import answer\n\n\nclass TestAnswer4321:\n    def test_it(self):\n        assert answer() == 4321\n`;
    expect(strengths([{ path: "tests/test_n.py", text: number }])).toEqual({
      "TestAnswer4321::test_it:6": "exposed",
    });
    const bytes = `from m import token\n\n\ndef test_token():\n    # the token is secret-token since the fix\n    assert token() == b"secret-token"\n`;
    expect(strengths([{ path: "tests/test_b.py", text: bytes }])).toEqual({ "test_token:6": "exposed" });
    expect(
      strengths([{ path: "tests/test_b.py", text: bytes.replace("secret-token since", "new since") }]),
    ).toEqual({
      "test_token:6": "strong",
    });
  });

  it("Go: a number in a comment, a subtest's title or a test's name is spoken; a sibling _test.go's helper call exposes", () => {
    const go = (body: string) =>
      `package calc_test\n\nimport (\n\t"testing"\n\n\t"example.com/calc"\n)\n\n${body}`;
    const score =
      "func TestScore(t *testing.T) {\n\tif got := calc.Score(17); got != 4253 {\n\t\tt.Error(got)\n\t}\n}\n";
    const file = (body: string) => [{ path: "calc/score_test.go", text: go(body) }];
    expect(strengths(file(score))).toEqual({ "TestScore:10": "strong" });
    expect(strengths(file(`// Score(17) weighs 17*250+3 = 4253.\n${score}`))).toEqual({
      "TestScore:11": "exposed",
    });
    expect(strengths(file(score.replace("TestScore", "TestScore_is_4253")))).toEqual({
      "TestScore_is_4253:10": "exposed",
    });
    const table = `func TestTable(t *testing.T) {\n\tfor _, tt := range []struct {\n\t\tname string\n\t\tin   int\n\t\twant int\n\t}{\n\t\t{"seventeen gives 4253", 17, 4253},\n\t} {\n\t\tt.Run(tt.name, func(t *testing.T) {\n\t\t\tif got := calc.Score(tt.in); got != tt.want {\n\t\t\t\tt.Error(got)\n\t\t\t}\n\t\t})\n\t}\n}\n`;
    expect(Object.values(strengths(file(table)))).toEqual(["exposed"]);
    expect(Object.values(strengths(file(table.replace("seventeen gives 4253", "seventeen"))))).toEqual([
      "strong",
    ]);
    // go-typed-cell: a `want int` row's 4253 is the 4253 another test of the file hands the code
    // (attack review s28: the cell's column type made its key differ from the literal's).
    const inverse =
      "func TestInverse(t *testing.T) {\n\tif calc.Inverse(4253) != 17 {\n\t\tt.Error(17)\n\t}\n}\n";
    const typed = table.replace("seventeen gives 4253", "seventeen");
    expect(Object.values(strengths(file(`${typed}\n${inverse}`)))).toEqual(["exposed", "exposed"]);
    const sibling = {
      path: "calc/word_test.go",
      text: go("func TestWord(t *testing.T) {\n\tcheckScore(t, 17, 4253)\n}\n"),
    };
    expect(strengths([...file(score), sibling])).toEqual({ "TestScore:10": "exposed" });
  });
});
