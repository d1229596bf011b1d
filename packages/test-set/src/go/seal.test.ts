import { beforeAll, describe, expect, it } from "vitest";
import { loadParsers, type Parsers } from "../parsers.js";
import { planSeals } from "../seal/seal-run.js";

/** Which `want := <literal>` locals the Go planner seals against their literal (the plan only; runtime.test.ts runs them). */
let parsers: Parsers;
beforeAll(async () => {
  parsers = await loadParsers(["go"]);
});

/** The sites of calc_test.go with a `want := <literal>` then `change`, compared with calc's answer. */
function sitesWith(literal: string, change: string) {
  const text = `package calc_test

import (
	"fmt"
	"testing"

	"example.com/calc"
)

func TestCalc(t *testing.T) {
	want := ${literal}
${change}
	if got := calc.Answer(); got != want {
		t.Errorf("got %v, want %v", got, want)
	}
	_ = fmt.Sscan
}
`;
  return planSeals(parsers, [{ path: "calc/calc_test.go", text }]).sites;
}

describe("Go seals: a local changed after its literal", () => {
  it("is sealed against its literal when only read", () => {
    expect(sitesWith("5", "").map((s) => s.expected)).toEqual([{ t: "const", c: "int", v: "5" }]);
    expect(sitesWith('"ab"', "").map((s) => s.expected)).toEqual([{ t: "const", c: "string", x: "6162" }]);
  });
  it.each([
    ["5", "\twant++"],
    ["5", "\twant--"],
    ["5", "\t(want)++"],
    ['"ab"', '\tp := &want\n\t*p = "ba"'],
    ['"ab"', '\tfmt.Sscan("ba", &want)'],
    ['"ab"', '\tfmt.Sscan("ba", &(want))'],
    ['"ab"', '\twant += "x"'],
    ['"ab"', '\t(want) = "ba"'],
    ['"ab"', '\tfor _, want = range []string{"ba"} {\n\t}'],
    ['"ab"', '\tch := make(chan string, 1)\n\tch <- "ba"\n\tselect {\n\tcase want = <-ch:\n\t}'],
    ['"ab"', '\tfunc() { want = "ba" }()'],
  ])("is no constant when stepped, assigned or its address taken: want := %s then %j", (literal, change) => {
    expect(sitesWith(literal, change)).toEqual([]);
  });
  it("stays a constant where a comment or a string only spells an assignment", () => {
    for (const change of [
      '\t// want = "ba", want++ and &want are words here',
      '\tt.Log("want = 1; want++; &want")',
    ])
      expect(
        sitesWith('"ab"', change).map((s) => s.expected),
        change,
      ).toEqual([{ t: "const", c: "string", x: "6162" }]);
  });
});

/** The sites of calc_test.go's one test with `body`, as [kind, afterUnsealed]. */
function guardsOf(body: string) {
  const text = `package calc_test

import (
	"testing"

	"example.com/calc"
)

func helper(t *testing.T) {}

func TestCalc(t *testing.T) {
${body}
}
`;
  return planSeals(parsers, [{ path: "calc/calc_test.go", text }]).sites.map((s) => [
    s.kind,
    s.afterUnsealed,
  ]);
}

// A seal behind a check the oracle does not judge may never have run at baseline: that check may
// have ended the test (judge.ts decidedBy), as Python's pytest.raises and jest's toThrow do.
describe("Go seals: a seal after an unjudged check (afterUnsealed)", () => {
  const SEALED = '\tif got := calc.Answer(); got != 5 {\n\t\tt.Errorf("got %v", got)\n\t}';
  it.each([
    [
      "an if the oracle does not seal",
      '\tif _, err := calc.Parse("x"); err == nil {\n\t\tt.Fatal("want an error")\n\t}',
    ],
    [
      "a comparison with a computed value",
      '\tif calc.Answer() != calc.Other() {\n\t\tt.Fatal("differ")\n\t}',
    ],
    ["a bare t.Fatal", '\tt.Fatal("stop")'],
    ["a helper handed t", "\thelper(t)"],
    ["a check helper", "\tcheckAnswer(calc.Answer())"],
    // A helper not named for checking and not handed t can still fail the test (it panics, or calls
    // a closure over t): attack review s23 finding 7 and its JS twin.
    ["a helper called for its effect", '\tsame("a", "b")'],
    ["a call of the code under test", "\tcalc.Reset()"],
    ["a subtest", '\tt.Run("x", func(t *testing.T) { t.Error("no") })'],
    [
      "a loop that is no table",
      '\tfor i := 0; i < 2; i++ {\n\t\tif calc.Answer() == i {\n\t\t\tt.Errorf("%d", i)\n\t\t}\n\t}',
    ],
  ])("%s comes before: the seal after it is marked", (_, before) => {
    expect(guardsOf(`${before}\n${SEALED}`)).toEqual([["go.eq", true]]);
  });
  it("a seal before the check, a sealed err check, a defer or a declaration leave it unmarked", () => {
    expect(guardsOf(`${SEALED}\n\tt.Fatal("stop")`)).toEqual([["go.eq", undefined]]);
    expect(
      guardsOf(
        `\tdefer func() { t.Log("done") }()\n\tt.Helper()\n\tt.Logf("%d", 1)\n\tmsg := calc.Err().Error()\n\t_ = msg\n\tif err := calc.Check(); err != nil {\n\t\tt.Fatal(err)\n\t}\n${SEALED}`,
      ),
    ).toEqual([
      ["go.nil", undefined],
      ["go.eq", undefined],
    ]);
  });
  it("every row of a table loop after a check in its body is marked, seals before the loop are not", () => {
    const loop = `${SEALED}
	for _, tt := range []struct {
		in   string
		want int
	}{{"a", 1}, {"b", 2}} {
		if got := calc.Len(tt.in); got != tt.want {
			t.Errorf("got %d", got)
		}
		if calc.Len(tt.in) != calc.Other() {
			t.Fatal("differ")
		}
	}`;
    expect(guardsOf(loop)).toEqual([
      ["go.eq", undefined],
      ["go.eq", true],
    ]);
  });
});

describe("Go seals' strength (attack review s24)", () => {
  const strengths = (body: string) =>
    planSeals(parsers, [
      {
        path: "calc/calc_test.go",
        text: `package calc_test\n\nimport (\n\t"testing"\n\n\t"example.com/calc"\n)\n\nfunc TestCalc(t *testing.T) {\n${body}}\n`,
      },
    ]).sites.map((s) => s.strength);
  it("a float 0.0, 1.0 or -1.0 is as guessable as 0, 1, -1: weak", () => {
    expect(
      strengths(
        '\tif got := calc.F(1); got != 0.0 {\n\t\tt.Error("x")\n\t}\n\tif got := calc.F(2); got != 1.0 {\n\t\tt.Error("y")\n\t}\n\tif got := calc.F(3); got != 2.5 {\n\t\tt.Error("z")\n\t}\n',
      ),
    ).toEqual(["weak", "weak", "strong"]);
  });
  it("a string the test's own comment spells is exposed", () => {
    expect(
      sitesWith('"hello-world"', "\t// the slug of Hello  World is hello-world").map((s) => s.strength),
    ).toEqual(["exposed"]);
    expect(sitesWith('"hello-world"', "\t// the slug of Hello  World").map((s) => s.strength)).toEqual([
      "strong",
    ]);
  });
});
