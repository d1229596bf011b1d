/**
 * The comparisons the oracle seals, one row each: the language, the forms that map to it in test
 * code, and the equality the host applies (docs/security.md, "Sealed expectations", cites the ids).
 */
export const COMPARISONS = {
  "py.eq": {
    language: "python",
    forms: "`a == b`, `self.assertEqual`",
    equality: "Python == over plain data (python-eq.ts: pyEq)",
  },
  "py.listEq": {
    language: "python",
    forms: "`self.assertListEqual`",
    equality:
      "unittest's type check first, isinstance(x, list) for both, then Python == (python-eq.ts: pyTypedEq)",
  },
  "py.tupleEq": {
    language: "python",
    forms: "`self.assertTupleEqual`",
    equality:
      "unittest's type check first, isinstance(x, tuple) for both, then Python == (python-eq.ts: pyTypedEq)",
  },
  "py.dictEq": {
    language: "python",
    forms: "`self.assertDictEqual`",
    equality:
      "unittest's type check first, isinstance(x, dict) for both, then Python == (python-eq.ts: pyTypedEq)",
  },
  "py.setEq": {
    language: "python",
    forms: "`self.assertSetEqual`",
    equality:
      "unittest's type check first, both have `.difference` (a set or frozenset; a dict view has none), then Python == (python-eq.ts: pyTypedEq)",
  },
  "py.strEq": {
    language: "python",
    forms: "`self.assertMultiLineEqual`",
    equality:
      "unittest's type check first, isinstance(x, str) for both, then Python == (python-eq.ts: pyTypedEq)",
  },
  "py.ne": { language: "python", forms: "`a != b`, `self.assertNotEqual`", equality: "not Python ==" },
  "py.is": {
    language: "python",
    forms: "`a is None/True/False`, `self.assertIsNone`, `self.assertIs(a, None/True/False)`",
    equality: "the singleton itself (1 is not True)",
  },
  "py.isnot": {
    language: "python",
    forms: "`a is not None/True/False`, `self.assertIsNotNone`, `self.assertIsNot(a, None/True/False)`",
    equality: "anything but the singleton",
  },
  "py.truth": {
    language: "python",
    forms: "`assert x`, `assert not x`, `self.assertTrue/False`, `assertIn/NotIn`, `assertIsInstance`",
    equality: "the truth value bool(x), taken in the container",
  },
  "py.approx": {
    language: "python",
    forms: "`a == pytest.approx(b, rel=, abs=, nan_ok=)`",
    equality: "pytest's tolerance, in floats (python-eq.ts: pyApprox)",
  },
  "py.almost": {
    language: "python",
    forms: "`self.assertAlmostEqual(a, b, places=, delta=)`",
    equality: "unittest's round(|a - b|, places) == 0 or |a - b| <= delta",
  },
  "js.is": {
    language: "js",
    forms:
      "`expect(a).toBe(b)`, `assert.strictEqual`, node:assert/strict's `equal`, `toBeNull()`, `toBeUndefined()`",
    equality: "Object.is (NaN is NaN, 0 is not -0)",
  },
  "js.strict": {
    language: "js",
    forms: "chai `expect(a).to.equal(b)`",
    equality: "=== (NaN is not NaN, 0 is -0)",
  },
  "js.loose": { language: "js", forms: "chai `assert.equal`", equality: "== between primitives" },
  "js.nodeLoose": {
    language: "js",
    forms: "node's legacy `assert.equal`",
    equality: "== between primitives, NaN equals NaN",
  },
  "js.toEqual": {
    language: "js",
    forms: "`expect(a).toEqual(b)` (jest, vitest)",
    equality: "recursive, Object.is on primitives, undefined properties ignored, classes not checked",
  },
  "js.toStrictEqual": {
    language: "js",
    forms: "`expect(a).toStrictEqual(b)`",
    equality: "recursive, undefined properties and array holes count, constructors must match",
  },
  "js.deepStrictEqual": {
    language: "js",
    forms: "`assert.deepStrictEqual`, node:assert/strict's `deepEqual`",
    equality: "recursive, Object.is on primitives, prototypes must match",
  },
  "js.deepEqual": {
    language: "js",
    forms: "legacy `assert.deepEqual`",
    equality: "recursive, == on primitives, prototypes ignored, array holes count",
  },
  "js.eql": {
    language: "js",
    forms: "chai `expect(a).to.eql(b)`, `to.deep.equal(b)`",
    equality: "deep-eql: === on primitives but NaN eql NaN and 0 not -0",
  },
  "js.truth": {
    language: "js",
    forms:
      "`assert(x)`, `assert.ok(x)`, `expect(x).toBeTruthy()/toBeFalsy()`, chai `.to.be.ok`/`.true`/`.false`",
    equality: "the truth value, taken in the container",
  },
  "go.eq": {
    language: "go",
    forms: "`if got != <literal> { t.Error… }`, `==` with `t.Error` in the else-less block",
    equality: "Go == on the static type (constants converted to it)",
  },
  "go.deepEqual": {
    language: "go",
    forms: "`if !reflect.DeepEqual(got, <literal>) {…}`, testify `assert.Equal(t, <literal>, got)`",
    equality: "reflect.DeepEqual: identical types, nil and empty differ",
  },
  "go.truth": {
    language: "go",
    forms: "`if !cond { t.Error… }`, `if cond { t.Error… }`, testify `assert.True/False`",
    equality: "the truth value, taken in the test binary",
  },
  "go.nil": {
    language: "go",
    forms: "`if err != nil { t.Fatal… }`, testify `assert.Nil/NoError/NotNil/Error`",
    equality:
      "nil (pointer, slice, map, interface, func, chan); for `assert.Nil` the value its interface{} holds (testify's isNil)",
  },
} as const;

export type ComparisonKind = keyof typeof COMPARISONS;
