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
