/**
 * When a comparison is sealed, checked, or left alone: named rows that docs/security.md ("Sealed
 * expectations") and the tests cite by id. A red-team fix is one new row and one test.
 */
export const SEAL_RULES = {
  "seal.top-level":
    "A comparison is sealed only as a statement of the test's own body or of a table loop's body (seal.table), not inside an if, a with, a try, a nested function or a callback: it runs exactly once each time the test (or the row) runs, whatever the code under test does.",
  "seal.table":
    "A comparison inside a loop over a literal table (Python `for … in [<literal rows>]` or `range(n)`, Go `for _, tt := range <[]struct literal>` with or without `t.Run`, no `t.Parallel`) or in a pytest test parametrised by literal rows is sealed once per row: the expected value of each row stays on the host, and a column only the seals read leaves the file. A parametrised test's row is read by its run only when each run is one row: a module-level function whose every argument is a parametrised name, with no `usefixtures` mark, no module `pytestmark` that parametrises or uses fixtures and no `pytest_generate_tests` in the module (a parametrised fixture or a subclass multiplies runs); otherwise the comparison is checked. A run past a table's last row fails its seal. A loop whose row can end early (continue, break, goto, a subtest's return or skip) is not a table.",
  "seal.js-table":
    "A JS test declared once per row of a literal table (`for (const [x, want] of <rows>) it(<title>, …)`, `<rows>.forEach(([x, want]) => it(…))`, `it.each(<rows>)(<title>, (x, want) => …)`/`test.each`; rows are array or object literals, inline or a `const` of the file's top level or of a suite's body that its block names nowhere else, so the code under test is never handed the table; an object row may be bound whole, `for (const t of tests) it(t.input, …)`, its columns then `t.input`, `t.out`) is planned row by row: each row's title is computed as the runner formats it (a template, `+`, a column, a column's `.toString()` of a string, number, boolean or array, `JSON.stringify` of a string, number, boolean or null, a `String.raw` template; `.each`'s `%s`, `%d`, `%i`, `%#`), and a table whose titles the planner cannot compute stays unplanned, its tests listed as `<suite> ?` under `unsealed.title`. A column (or a column's member, `result.camelCase`, `t.out.camelCase`) read only as the expected side of comparisons of the test's own body, each once, literal in every row, leaves the file: each sealed row's cell holds its seal's key instead (`{ __oracleKey: \"0.3\" }`), and the comparison hands both sides to the runtime's cell (`expect(__oracleCell(want, f(x))).toBe(__oracleCellWant(want))`), which records the actual value under that key and gives the matcher undefined twice. A row whose title another test shares, or whose key the sweep demoted, keeps its value in its cell, and the runner compares it. A column the title, the actual side or anything else reads keeps its values and its comparisons are the runner's; so does every column of a row bound whole that the test reads otherwise too (`f(t)`, `t[k]`, `t?.out`, a parameter of its name).",
  "seal.local-literal":
    "Python: a name a test binds once, as a statement of its own body, to a literal (`expected = 'A.B'`), before any read, named by no `global`/`nonlocal`, read only as the expected side of comparisons sealed in that body, is that literal: the comparisons are sealed against it and the binding keeps its name with `None` for its value.",
  "seal.literal":
    "The expected side is a literal, a container of literals, or a module constant assigned once to one and used nowhere else (Python: bound nowhere else in the module, named by no `global`, and not bound by the test itself, whose own binding would shadow it): the value stays on the host and the comparison enters the container without it.",
  "seal.checked":
    "The expected side is computed in the test (a constructor call, a helper): both sides are recorded and the host checks they are plain data that compare equal under the comparison's own equality; the comparison still runs in the test.",
  "seal.truth":
    "`assert x`, `assertTrue(x)`, `toBeTruthy()`, `if !ok {…}`: the truth value is recorded in the container and compared with the expected one on the host. Weak: it is guessable.",
  "seal.plain-data":
    "The host compares plain data only (seal/canon.ts, per language); a value it cannot judge (an object with its own equality, a proxy, a matcher, a cycle, too deep or too large) is never equal: VALUE_NOT_PLAIN_DATA.",
  "seal.records":
    "A sealed test passes only when the runner says it passed, every seal it ran matched, and each of its runs wrote its seals' records once each, in order: a record out of order, for an unplanned key, duplicated or missing is SEAL_RECORDS_INCONSISTENT.",
  "seal.gold":
    "The sweep's gold runs prove each site: one whose gold value is not plain data or does not match is left unsealed for that task (recorded in tasks/<id>/seals.recorded.json), so a grade never fails a correct diff on a seal the gold diff could not pass.",
  "unsealed.xfail":
    "A test marked to fail (pytest xfail, unittest expectedFailure, jest test.failing, vitest fails) is not sealed: it would pass in the container.",
  "unsealed.decorator":
    "A test with a decorator that may call it more or fewer times than the runner reports (hypothesis's @given, a retry, any decorator but marks (`pytest.mark.…`, its old alias `py.test.mark.…`), parametrize and mock's patch) is not sealed.",
  "unsealed.early-exit":
    "A test whose body returns or yields (outside nested functions), or skips itself, is not sealed: its later comparisons may not run.",
  "unsealed.no-parse": "A file the parser cannot read cleanly is not sealed.",
  "unsealed.encoding":
    "A Python file that declares an encoding other than UTF-8 or ASCII (PEP 263, its first two lines), or holds a byte that is not UTF-8 (read as U+FFFD), is not sealed: it stays byte for byte, as the sealed text would be written back in UTF-8.",
  "unsealed.runs-at-import":
    'A Python test module that runs tests as it loads (a top-level `runner.run(suite)`, `unittest.main()`, `pytest.main()` or `doctest.testmod()`, outside `if __name__ == "__main__":`) is not sealed: the seal runtime, appended after its last line, would not exist yet when those tests run.',
  "unsealed.title":
    "A JS test whose title is not a plain string (a template with substitutions, a variable), or one declared through a table (`test.each`) or in a loop that seal.js-table does not read, or concurrent (`test.concurrent`, `describe.concurrent`) is not sealed; neither are the tests after mocha's qunit `suite(<not a plain string>);`, a test whose full title another test shares, nor one whose title holds a control character (a report may give it back changed: XML reads a tab or newline in an attribute as a space, vitest drops the others).",
  "unsealed.redefined":
    "A Python test function its module or class defines again under the same name (a test class defined twice too) is not sealed: pytest collects the last definition only, under the one node id both share, so the first one's comparisons never run.",
  "unsealed.module":
    "A JavaScript file whose module system the oracle cannot tell (a .js file with neither an import nor a require, outside vitest) is not sealed: the runtime could not reach fs.",
  "unsealed.equality-testers":
    "A jest/vitest `toEqual` or `toStrictEqual` is not sealed when a hidden file or a test file of the base commit (a setup file) registers an equality tester (`expect.addEqualityTesters`): the tester changes what the matcher means, so the runner's own comparison decides; so is a unittest `self.assert…` when such a file registers a type's comparison (`addTypeEqualityFunc`, `_type_equality_funcs`) or swaps an assert from outside a class body (`setattr`, `TestCase.assertEqual = …`). A test left with no sealed comparison is listed under this rule.",
  "unsealed.extended-matcher":
    "A jest/vitest matcher that a hidden file or a test file of the base commit redefines through `expect.extend({ toBe … })` is not sealed where it is used: the redefinition decides, in the runner. An `expect.extend` argument whose keys the text does not show (`expect.extend(matchers)`, a `require(…)`, a spread) may redefine any matcher: no `expect` chain is sealed. Nor is any chai or vitest matcher (chai's `assert` and `expect`, vitest's `expect`) sealed when such a file may load a chai plugin (`chai.use`, `overwriteMethod`, `addMethod`…) or sets chai's `config.deepEqual`; nor a node or chai `assert` comparison when such a file assigns to a member of an assert (`assert.equal = assert.strictEqual`). A test left with no sealed comparison is listed under this rule.",
  "unsealed.expect-alias":
    "A jest/vitest `expect` chain is not sealed when `expect` is not the runner's: the file binds it to another value (a helper module's `expect`, a declaration, a parameter, an assignment; `vitest`, `@jest/globals`, the `expect` package and chai stay sealed), or, for a file that reads the global `expect`, a hidden file or a base file (a setup file) rebinds the global (`globalThis.expect = wrap(expect)`, `expect = …`, `Object.defineProperty(global, \"expect\", …)`): that value's matchers decide, in the runner. An alias (`const check = expect`) is never sealed. A test left with no sealed comparison is listed under this rule.",
  "unsealed.setup-module":
    "No jest/vitest `expect` or chai comparison is sealed when the runner's configuration at the base commit (with its inline projects and a repository `preset`'s entries, resolved from its `rootDir`/`root`) names a setup module that is not a file of the repository, or one the oracle cannot tell (jest's `setupFiles`, `setupFilesAfterEnv`, a `preset` other than ts-jest's that is no repository file; vitest's `setupFiles`; an entry computed by the config or resolved from a computed root; a config past the first 200 read), or an environment that is not the runner's own (`testEnvironment`, `environment`, a repository file too: it builds the tests' global object, and may patch what the matchers call, as `Object.is`); nor in a test file whose docblock names such an environment (`@jest-environment ./env.js`): the module's text is not read, and it may redefine any matcher or load a chai plugin. node:assert stays sealed. A test left with no sealed comparison is listed under this rule.",
  "unsealed.helper-check":
    "A Python test with no comparison of its own that calls a function of its file asserting inside (`check(x, want)`): the helper's expected values are the call's arguments, which stay in the container, and the runner's assert decides the test (a FAIL_TO_PASS test here has no seal; only the pair guards its report).",
  "unsealed.approx":
    "A unittest equality assert (`assertEqual`, `assertListEqual`…, `assertNotEqual`, `assertAlmostEqual`) naming `approx` is left to the runner, unless it is `assertEqual(x, pytest.approx(<literal>))`, which unittest compares as `x == approx(…)` and the host seals as pytest's approx; an `assert` naming `approx` other than `x == pytest.approx(<literal>)` (inside a list or dict, `!=`, another library's) is a truth seal (seal.truth): an approx object is no plain data, and the container's own comparison decides. A test left with no sealed comparison is listed under this rule.",
  "unsealed.mock-any":
    'A comparison naming mock\'s `ANY` (`ANY`, `mock.ANY`, `unittest.mock.ANY`, or a name the file assigns a value naming it, such as `EXPECTED = {"id": ANY, "n": 3}` or `call(ANY)`) is the container\'s to decide: ANY equals anything in either order and is no plain data, and the value it stands for (an id, a timestamp) often is none either. An `assert` naming it is a truth seal (seal.truth); a unittest equality assert (`assertEqual`, `assertListEqual`…, `assertNotEqual`, `assertAlmostEqual`) naming it is left to the runner, and a test left with no sealed comparison is listed under this rule.',
  "unsealed.stdlib-value":
    "A comparison the test computes both sides of (seal.checked) where either side calls a standard-library constructor of a value the runtime records as no plain data (datetime's `date`, `datetime`, `timedelta`, `timezone`, `datetime.time`; pathlib's paths; `UUID`; `deque`; `SimpleNamespace`; `range`; `array.array`; `re.compile`; ipaddress's addresses; `ZoneInfo`) is the container's to decide: the host could only fail it (VALUE_NOT_PLAIN_DATA), the gold diff and every correct fix with it. An `assert` is a truth seal (seal.truth); a unittest equality assert is left to the runner, and a test left with no sealed comparison is listed under this rule. Compared with a literal (`str(d) == \"2020-01-02\"`), the comparison stays sealed.",
  "unsealed.no-comparison": "A test with no comparison the rules above seal or check.",
  "unsealed.weak":
    "A test whose seals are all weak (a guessable value: a truth value, None/null/nil, 0, ±1, NaN, an empty value), exposed (the same value can be read in the container) or checked (the expected side is computed in the test) has no strong seal: a report forged for it is caught only where it gets those values wrong, or by the pair.",
  "unsealed.after-check":
    "A test whose strong seals all come after a check the oracle does not judge (`afterUnsealed`: an unsealed, demoted or checked comparison, `pytest.raises`, `toThrow`, Go's `t.Fatal`, a helper's check) has no strong seal that decides it: at baseline that check may end the test first.",
  "unsealed.baseline":
    "A test the plan seals strongly that no strong seal decided in every baseline run of the sweep (the seal matched, or the test ended before it): tasks/<id>/seals.recorded.json says so, and the grades count it unsealed.",
  "unsealed.not-planned":
    "A FAIL_TO_PASS test the plan does not name: its file is not in a language the planners read, or the name matches no test the planners found.",
  "unsealed.gold":
    "A comparison whose gold value was not plain data or did not match at validation (seal.gold).",
} as const;

export type SealRule = keyof typeof SEAL_RULES;
