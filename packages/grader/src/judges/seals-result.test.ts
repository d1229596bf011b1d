import { loadParsers, planSeals } from "@oracle/test-set";
import { describe, expect, it } from "vitest";
import { sealsResult } from "./seals-result.js";

// Without the sweep's record the result reads the plan: a FAIL_TO_PASS test counts as sealed when a
// strong seal in it runs before any check the oracle does not judge (s22 attack review, finding 11:
// the seal behind a pytest.raises is passed by the unfixed code, and the raises can be neutralised).
const HIDDEN = `import pytest

from num import parse


def test_empty_is_an_error():
    with pytest.raises(ValueError):
        parse("  ")
    assert parse("734") == 734


def test_spaces():
    assert parse(" 12 ") == 12
`;

describe("sealsResult: FAIL_TO_PASS tests by the plan", () => {
  it("a test whose strong seal comes after a pytest.raises is unsealed", async () => {
    const parsers = await loadParsers(["python"]);
    const run = planSeals(parsers, [{ path: "tests/test_parse.py", text: HIDDEN }]);
    const failToPass = [
      "hidden:tests.test_parse::test_empty_is_an_error",
      "hidden:tests.test_parse::test_spaces",
    ];
    const result = sealsResult(run, null, { failToPass, source: "planned" });
    expect(result.failToPass).toEqual({
      total: 2,
      sealed: 1,
      unsealed: [failToPass[0]],
      rules: { [failToPass[0]!]: "unsealed.after-check" },
    });
  });
});
