import { beforeAll, describe, expect, it } from "vitest";
import { sealJs } from "../js/seal.js";
import { loadParsers, type Parsers } from "../parsers.js";
import { sealPython } from "../python/seal.js";
import type { Canon } from "./canon.js";
import { judgeSeals } from "./judge.js";
import type { SealSite } from "./plan.js";

let parsers: Parsers;
beforeAll(async () => {
  parsers = await loadParsers(["python", "javascript"]);
});

const HIDDEN = `from calc import add, sub


def test_add():
    assert add(2, 3) == 5


def test_sub():
    assert sub(3, 2) == 1
`;

describe("judgeSeals: tests whose records do not add up", () => {
  it("names every such test's keys, not only the first's (the sweep leaves them all out in one round)", () => {
    const plan = sealPython(parsers, { path: "tests/test_calc.py", text: HIDDEN, index: 0 })!;
    expect(plan.tests).toHaveLength(2);
    // Both tests passed and neither wrote a record (a test that clears the environment, say).
    const report = ["test_add", "test_sub"].map((name) => ({
      id: `hidden:tests.test_calc::${name}`,
      outcome: "passed" as const,
    }));
    const judged = judgeSeals(plan, "", report);
    expect(judged.inconsistent).toMatch(/passing run\(s\), but 0 wrote all of the test's seal records/);
    expect(judged.inconsistentTest).toBe(plan.tests[0]!.test.entry);
    expect(judged.inconsistentKeys?.sort()).toEqual(plan.tests.flatMap((t) => t.keys).sort());
  });
});

// Finding 11/16 of the s22 attack review: a FAIL_TO_PASS test whose baseline failure is an assertion
// that is not sealed (pytest.raises, toThrow) never reaches the seal after it; that seal did not
// decide the test, and a diff that neutralises the raises in-process passed with the result saying
// a strong seal protected it.
const RAISES = `import pytest

from num import parse


def test_empty_is_an_error():
    with pytest.raises(ValueError):
        parse("  ")
    assert parse("734") == 734


def test_blank():
    assert parse(" 12 ") == 12
    assert parse("734") == 734
`;

describe("judgeSeals: what decided a test at baseline", () => {
  const failed = (name: string) => ({ id: `hidden:tests.test_parse::${name}`, outcome: "failed" as const });

  it("not a seal an unsealed assertion before it kept the test from reaching", () => {
    const plan = sealPython(parsers, { path: "tests/test_parse.py", text: RAISES, index: 0 })!;
    const [raises] = plan.tests;
    expect(plan.sites.find((s) => s.key === raises!.keys[0])?.afterUnsealed).toBe(true);
    // Baseline: the raises block failed, the seal after it wrote nothing.
    const judged = judgeSeals(plan, "", [failed("test_empty_is_an_error")]);
    expect(judged.inconsistent).toBeNull();
    expect(judged.decided).toEqual({});
  });

  it("the seal a run ended at (its actual side raised), not the ones after it", () => {
    const text = `from num import parse


def test_blank():
    assert parse("") is None
    assert parse(" 12 ") == 12
`;
    const plan = sealPython(parsers, { path: "tests/test_parse.py", text, index: 0 })!;
    const [blank] = plan.tests;
    expect(plan.sites.map((s) => [s.strength, s.afterUnsealed])).toEqual([
      ["weak", undefined],
      ["strong", undefined],
    ]);
    // The weak seal's actual side raised: no record, the test ended there; the strong one after it
    // was never reached, and a diff making parse("") return None reaches it with the old code.
    expect(judgeSeals(plan, "", [failed("test_blank")]).decided).toEqual({ [blank!.test.entry]: "weak" });
    // The weak seal matched, the strong one's actual side raised: that one decided.
    const record = `${JSON.stringify({ k: blank!.keys[0], s: 0, v: { t: "none" } })}\n`;
    expect(judgeSeals(plan, record, [failed("test_blank")])).toMatchObject({
      inconsistent: null,
      decided: { [blank!.test.entry]: "strong" },
    });
  });

  it("jest: not a seal behind toThrow, but one before it or alone", () => {
    const text = (first: string, second: string) => `const { parse } = require("../src/num");

test("an empty text is an error", () => {
  // check the error first
  expect.assertions(2);
  ${first}
  ${second}
});
`;
    const THROW = 'expect(() => parse("  ")).toThrow("empty number");';
    const SEAL = 'expect(parse("734")).toBe(734);';
    const report = [{ id: "hidden:test/num.test.js::an empty text is an error", outcome: "failed" as const }];
    const behind = sealJs(parsers, { path: "test/num.test.js", text: text(THROW, SEAL), index: 0 })!;
    expect(behind.sites.map((s) => [s.strength, s.afterUnsealed])).toEqual([["strong", true]]);
    expect(judgeSeals(behind, "", report).decided).toEqual({});
    // The other order: the seal ran first and matched (the unfixed parse reads "734"): nothing decided.
    const before = sealJs(parsers, { path: "test/num.test.js", text: text(SEAL, THROW), index: 0 })!;
    expect(before.sites.map((s) => [s.strength, s.afterUnsealed])).toEqual([["strong", undefined]]);
    const matched = `${JSON.stringify({ k: before.sites[0]!.key, s: 0, v: { t: "num", v: "734" } })}\n`;
    expect(judgeSeals(before, matched, report)).toMatchObject({ inconsistent: null, decided: {} });
    // Its actual side raised (no record): the test ended at the seal, which decided it.
    expect(judgeSeals(before, "", report).decided).toEqual({ [before.tests[0]!.test.entry]: "strong" });
  });
});

describe("judgeSeals: a seal after a helper not named for checking (attack review s23, finding 6)", () => {
  const failed = (name: string) => ({ id: `hidden:tests.test_text::${name}`, outcome: "failed" as const });
  it("a dropped call, a block that calls, or the file's own helper come before it: it decides only by mismatching", () => {
    const text = `from text import normalise


def _same(raw, want):
    assert normalise(raw) == want


def test_inner_runs_collapse():
    _same("a  b\\t\\tc", "a b c")
    assert normalise("  x  ") == "x"


def test_helper_value():
    got = _same("a", "a")
    assert normalise(" y ") == "y"


def test_block():
    with open("/dev/null"):
        normalise("q")
    assert normalise(" z ") == "z"


def test_plain():
    got = normalise(" w ")
    assert got == "w"
`;
    const plan = sealPython(parsers, { path: "tests/test_text.py", text, index: 0 })!;
    expect(
      plan.sites.map((s) => [s.test.entry.split("::")[1], s.strength, s.afterUnsealed ?? false]),
    ).toEqual([
      ["test_inner_runs_collapse", "strong", true],
      ["test_helper_value", "strong", true],
      ["test_block", "strong", true],
      ["test_plain", "strong", false],
    ]);
    // Baseline: the helper's assertion failed, the seal after it never ran: nothing decided.
    expect(judgeSeals(plan, "", [failed("test_inner_runs_collapse")]).decided).toEqual({});
    // The seal ran and mismatched: it decided.
    const key = plan.tests[0]!.keys[0]!;
    const record = `${JSON.stringify({ k: key, s: 0, v: { t: "str", v: " x " } })}\n`;
    expect(judgeSeals(plan, record, [failed("test_inner_runs_collapse")]).decided).toEqual({
      [plan.tests[0]!.test.entry]: "strong",
    });
  });
});

describe("judgeSeals: a failed seal's message", () => {
  it("says 'not' where the test expects the value not to be the one written (is not None, !=)", () => {
    const text = `from kw import find, count\n\n\ndef test_found():\n    assert find("x") is not None\n\n\ndef test_count():\n    assert count("y") != 3\n`;
    const plan = sealPython(parsers, { path: "tests/test_kw.py", text, index: 0 })!;
    const records = [
      JSON.stringify({ k: plan.sites[0]!.key, s: 0, v: { t: "none" } }),
      JSON.stringify({ k: plan.sites[1]!.key, s: 0, v: { t: "int", x: "0x3" } }),
    ].join("\n");
    const report = ["test_found", "test_count"].map((name) => ({
      id: `hidden:tests.test_kw::${name}`,
      outcome: "passed" as const,
    }));
    const messages = judgeSeals(plan, `${records}\n`, report).tests.map((t) => t.message ?? "");
    expect(messages[0]).toMatch(
      /assert find\("x"\) is not None\n {2}expected: not None\n {2}actual: {3}None/,
    );
    expect(messages[1]).toMatch(/assert count\("y"\) != 3\n {2}expected: not 3\n {2}actual: {3}3/);
  });
});

describe("judgeSeals: a failed seal's message, rendered", () => {
  it("a negative Fraction (numerator -0x1 as Python's hex() writes it) is rendered, not a crash of the judge (eqdiff seed 1)", () => {
    const plan = sealPython(parsers, { path: "tests/test_calc.py", text: HIDDEN, index: 0 })!;
    const record = (key: string, v: object) => `${JSON.stringify({ k: key, s: 0, v })}\n`;
    const [add, sub] = plan.tests.map((t) => t.keys[0]!);
    const records =
      record(add!, { t: "fraction", n: "-0x1", d: "0x2" }) +
      record(sub!, { t: "fraction", n: "0x1", d: "0x1" });
    const report = ["test_add", "test_sub"].map((name) => ({
      id: `hidden:tests.test_calc::${name}`,
      outcome: "passed" as const,
    }));
    const judged = judgeSeals(plan, records, report);
    expect(judged.tests.map((t) => t.outcome)).toEqual(["failed", "passed"]);
    expect(judged.tests[0]!.message).toMatch(/actual: {3}Fraction\(-1, 2\)$/);
  });
});

// Attack review s29 (atk), finding 1: the records of a test were gathered by copying its list once a
// record, so a file of the 200,000 records read, all for one planned key, took minutes to judge
// (20,000: 10 s; 100,000: over 100 s) before the count said they did not add up.
describe("judgeSeals: many records for one test", () => {
  it("are gathered in time linear in their number", () => {
    const plan = sealPython(parsers, { path: "tests/test_calc.py", text: HIDDEN, index: 0 })!;
    const key = plan.tests[0]!.keys[0]!;
    const line = `${JSON.stringify({ k: key, s: 0, v: { t: "int", x: "0x5" } })}\n`;
    const judged = judgeSeals(plan, line.repeat(200_000), [
      { id: "hidden:tests.test_calc::test_add", outcome: "passed" },
    ]);
    expect(judged.inconsistent).toMatch(/its seals ran 200000 time\(s\), the runner ran the test 1 time/);
    // (No bound on the time: before, the test ran past its timeout; now about a second.)
  }, 60_000);
});

// Attack review s29 (atk), finding 2: numbers the Python runtime writes, whose exact values cost the
// host quadratic work or a power of ten of 100,000 digits: a record of a thousand `1E+99999` dict keys
// took 18 s, a Fraction of two Fibonacci numbers of 80,000 hex digits 219 s (the 16 MiB read holds
// hundreds of times that). Each case took over 60 s before; the host now refuses such records (the
// sweep leaves the seal out if gold writes them), and still judges large numbers a test may hold.
describe("judgeSeals: numbers too large to judge in time", () => {
  const test = { file: "tests/test_n.py", entry: "tests/test_n.py::test_n" };
  const judge = (expected: Canon, kind: SealSite["kind"], ...values: Canon[]) => {
    const site: SealSite = { key: "0.0", test, line: 1, kind, expected, source: "x", strength: "strong" };
    const text = values.map((v) => `${JSON.stringify({ k: "0.0", s: 0, v })}\n`).join("");
    const judged = judgeSeals(
      { sites: [site], tests: [{ test, keys: ["0.0"] }] },
      text,
      values.map(() => ({ id: "hidden:tests.test_n::test_n", outcome: "passed" as const })),
    );
    return { judged };
  };
  const ONE: Canon = {
    t: "dict",
    v: [
      [
        { t: "str", v: "a" },
        { t: "int", x: "0x1" },
      ],
    ],
  };
  /** F(k) and F(k + 1) by fast doubling, for the first k with F(k + 1) of `hexDigits` hex digits or more. */
  const fibonacci = (hexDigits: number) => {
    const pair = (k: number): [bigint, bigint] => {
      if (k === 0) return [0n, 1n];
      const [a, b] = pair(Math.floor(k / 2));
      const [c, d] = [a * (2n * b - a), a * a + b * b];
      return k % 2 === 0 ? [c, d] : [d, c + d];
    };
    // log2 of the golden ratio: F(k) has about 0.694 k bits.
    return pair(Math.ceil((hexDigits * 4) / 0.694));
  };

  it("a dict of 5,000 Decimal keys of exponent 99999 (90 s before)", () => {
    const keys = Array.from({ length: 5000 }, (_, i) => [
      { t: "decimal", v: `${i + 1}E+99999` },
      { t: "none" },
    ]);
    const { judged } = judge(ONE, "py.eq", { t: "dict", v: keys });
    expect(judged.inconsistent).toMatch(/numbers up to it are too large to judge/);
    expect(judged.inconsistentTest).toBe(test.entry);
  }, 120_000);

  it("a Fraction of two Fibonacci numbers of 40,000 hex digits (over 15 s before)", () => {
    const [n, d] = fibonacci(40_000);
    const fraction = { t: "fraction", n: `0x${n.toString(16)}`, d: `0x${d.toString(16)}` };
    const { judged } = judge({ t: "int", x: "0x3" }, "py.eq", fraction);
    expect(judged.inconsistent).toMatch(/too large to judge/);
  }, 120_000);

  it("a float exponent no float has (2**99999) is not one the runtime writes", () => {
    const keys = Array.from({ length: 3000 }, (_, i) => ({
      t: "float",
      x: `0x1.${(i + 1).toString(16)}p+99999`,
    }));
    const { judged } = judge({ t: "set", frozen: false, v: [{ t: "int", x: "0x1" }] }, "py.eq", {
      t: "set",
      frozen: false,
      v: keys,
    });
    expect(judged.inconsistent).toMatch(/not a value the seal runtime writes: value\.v\[0\]\.x/);
  });

  it("large numbers a test may hold are still judged: 1E+9999, a Fraction of 2,000 hex digits, a long double's numerator", () => {
    const [n, d] = fibonacci(2000);
    const fraction: Canon = { t: "fraction", n: `0x${n.toString(16)}`, d: `0x${d.toString(16)}` };
    expect(judge(fraction, "py.eq", fraction, fraction).judged).toMatchObject({
      inconsistent: null,
      tests: [{ outcome: "passed" }, { outcome: "passed" }],
    });
    const big: Canon = { t: "int", x: `0x${(10n ** 9999n).toString(16)}` };
    expect(judge(big, "py.eq", { t: "decimal", v: "1E+9999" }).judged.tests[0]!.outcome).toBe("passed");
    const long: Canon = { t: "float", x: `0x1${"0".repeat(4000)}p-0`, np: "longdouble" };
    // (numpy 1.24: a long double never equals an int past int64.)
    expect(judge({ t: "int", x: `0x1${"0".repeat(4000)}` }, "py.eq", long).judged).toMatchObject({
      inconsistent: null,
      tests: [{ outcome: "failed" }],
    });
  });
});
