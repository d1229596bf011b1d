import { beforeAll, describe, expect, it } from "vitest";
import { loadParsers, type Parsers } from "../parsers.js";
import { judgeSeals } from "../seal/judge.js";
import { planSeals } from "../seal/seal-run.js";
import { runPytest } from "../testing/run-pytest.js";
import { sealPython } from "./seal.js";

/**
 * The Python runtime in Debian's pytest 7, end to end on the host: a sealed file runs, its records
 * are judged. Each attack is code under test that could know the oracle's runtime by heart.
 */
let parsers: Parsers;
beforeAll(async () => {
  parsers = await loadParsers(["python"]);
});

const HIDDEN = `from calc import add, pairs, name


def test_add():
    assert add(2, 3) == 5


def test_pairs():
    assert pairs() == [(1, 2), (3, 4)]
    assert name() == "calc"
`;

function grade(calc: string) {
  const plan = sealPython(parsers, { path: "tests/test_calc.py", text: HIDDEN, index: 0 })!;
  const run = runPytest({ "calc.py": calc, "tests/test_calc.py": plan.text }, ["tests/test_calc.py"]);
  return { run, judged: judgeSeals(plan, run.records, run.tests) };
}

/** One test of a table: its name, the expression it asserts, and pytest's outcome of it. */
type Row = readonly [name: string, assertion: string, pytest: "passed" | "failed"];

/** A test file of `head` (its imports), then each row as a test of one `assert`. */
function oneAssertEach(head: string, rows: readonly Row[]): string {
  return `${head}${rows.map(([name, assertion]) => `\n\ndef ${name}():\n    assert ${assertion}\n`).join("")}`;
}

/** What pytest makes of each row's test, by name. */
function outcomes(rows: readonly Row[]): Record<string, string> {
  return Object.fromEntries(rows.map(([name, , pytest]) => [name, pytest]));
}

/**
 * A test file over calc.py as pytest runs it as written (`real`) and as the host judges it sealed
 * (`host`), each test's outcome under the last `::` part of its id (or under `name`); the sealed
 * run's records must be consistent.
 */
function pytestAndHost(
  path: string,
  test: string,
  calc: string,
  name = (id: string) => id.split("::").pop()!,
) {
  const plan = sealPython(parsers, { path, text: test, index: 0 })!;
  const ran = runPytest({ "calc.py": calc, [path]: test }, [path]);
  const sealed = runPytest({ "calc.py": calc, [path]: plan.text }, [path]);
  const judged = judgeSeals(plan, sealed.records, sealed.tests);
  expect(judged.inconsistent).toBeNull();
  const byName = (tests: readonly { id: string; outcome: string }[]) =>
    Object.fromEntries(tests.map((t) => [name(t.id), t.outcome]));
  return { plan, judged, real: byName(ran.tests), host: byName(judged.tests) };
}

const CORRECT = `def add(a, b):\n    return a + b\n\n\ndef pairs():\n    return [(1, 2), (3, 4)]\n\n\ndef name():\n    return "calc"\n`;
const WRONG = CORRECT.replace("a + b", "a - b");

describe("the Python seal runtime under pytest 7", () => {
  it("a correct fix: every seal matched, the runner's own verdict stands", () => {
    const { run, judged } = grade(CORRECT);
    expect(run.tests.map((t) => t.outcome)).toEqual(["passed", "passed"]);
    expect(judged.inconsistent).toBeNull();
    expect(judged.tests.map((t) => t.outcome)).toEqual(["passed", "passed"]);
    expect(Object.values(judged.sites)).toEqual(["matched", "matched", "matched"]);
  });

  it("a wrong value: the runner says passed (the comparison is on the host), the seal says failed, with both values", () => {
    const { run, judged } = grade(WRONG);
    expect(run.tests.map((t) => t.outcome)).toEqual(["passed", "passed"]);
    expect(judged.tests[0]).toMatchObject({ outcome: "failed" });
    expect(judged.tests[0]!.message).toBe(
      "tests/test_calc.py:5: assert add(2, 3) == 5\n  expected: 5\n  actual:   -1",
    );
    expect(judged.onlyNotPlain).toBe(false);
  });

  it("values equal to anything: a list subclass whose __eq__ is always True is not plain data", () => {
    const { judged } = grade(
      `${WRONG}\n\nclass Anything(list):\n    def __eq__(self, other):\n        return True\n\n    def __ne__(self, other):\n        return False\n\n\ndef pairs():\n    return Anything([0])\n`,
    );
    expect(judged.tests[1]).toMatchObject({ outcome: "failed" });
    expect(judged.tests[1]!.message).toMatch(
      /not plain data .*calc\.Anything \(a subclass of list with its own __eq__\)/,
    );
  });

  it("the seal suppressed (replaced by code that records nothing): a passing test without its records is inconsistent", () => {
    const { judged } = grade(
      `${WRONG}\nimport _pytest.python\n\n_run = _pytest.python.Function.runtest\n\n\ndef _runtest(self):\n    self.obj.__globals__["_oracle_seal"] = lambda key, value: True\n    return _run(self)\n\n\n_pytest.python.Function.runtest = _runtest\n`,
    );
    expect(judged.inconsistent).toMatch(
      /the runner reports 1 passing run\(s\), but 0 wrote all of the test's seal records/,
    );
  });

  it("the seal made to throw: the test fails in the runner", () => {
    const { run } = grade(
      `${WRONG}\nimport _pytest.python\n\n_run = _pytest.python.Function.runtest\n\n\ndef _boom(key, value):\n    raise RuntimeError("no")\n\n\ndef _runtest(self):\n    self.obj.__globals__["_oracle_seal"] = _boom\n    return _run(self)\n\n\n_pytest.python.Function.runtest = _runtest\n`,
    );
    expect(run.tests.map((t) => t.outcome)).toEqual(["failed", "failed"]);
  });

  it("records forged by the code under test, before the real ones: out of order", () => {
    const forge = `import json, os\n\n\ndef _forge():\n    fd = os.open(os.environ["ORACLE_SEALS"], os.O_WRONLY | os.O_APPEND | os.O_CREAT)\n    os.write(fd, (json.dumps({"k": "0.0", "s": 0, "v": {"t": "int", "x": "0x5"}}) + "\\n").encode())\n    os.close(fd)\n\n\n_forge()\n`;
    const { judged } = grade(`${WRONG}\n${forge}`);
    expect(judged.inconsistent).toMatch(/its seals ran 2 time\(s\), the runner ran the test 1 time\(s\)/);
  });

  it("records forged after the real ones (at exit): more runs than the runner ran", () => {
    const forge = `import atexit, json, os\n\n\ndef _forge():\n    fd = os.open(os.environ["ORACLE_SEALS"], os.O_WRONLY | os.O_APPEND | os.O_CREAT)\n    os.write(fd, (json.dumps({"k": "0.0", "s": 0, "v": {"t": "int", "x": "0x5"}}) + "\\n").encode())\n    os.close(fd)\n\n\natexit.register(_forge)\n`;
    const { judged } = grade(`${WRONG}\n${forge}`);
    expect(judged.inconsistent).toMatch(/its seals ran 2 time\(s\)/);
  });

  it("a record for a key the oracle did not plan", () => {
    const forge = `import json, os\nfd = os.open(os.environ["ORACLE_SEALS"], os.O_WRONLY | os.O_APPEND | os.O_CREAT)\nos.write(fd, b'{"k":"9.9","s":0,"v":{"t":"none"}}\\n')\nos.close(fd)\n`;
    const { judged } = grade(`${CORRECT}\n${forge}`);
    expect(judged.inconsistent).toMatch(/did not plan/);
  });
});

describe("values of another type that Python's == holds equal", () => {
  const TEST = `from calc import counts, letters, word, merged


def test_counts():
    assert counts() == {"a": 2, "b": 1}


def test_letters():
    assert letters() == ["a", "b"]


def test_word():
    assert word() == "ab"


def test_merged():
    assert merged() == {"x": 1, "y": 2}
`;
  const run = (calc: string) => {
    const plan = sealPython(parsers, { path: "tests/test_calc.py", text: TEST, index: 0 })!;
    const ran = runPytest({ "calc.py": calc, "tests/test_calc.py": plan.text }, ["tests/test_calc.py"]);
    return { ran, judged: judgeSeals(plan, ran.records, ran.tests) };
  };

  it("a correct fix returning the standard library's wrappers (UserDict, UserList, UserString, ChainMap) matches", () => {
    const { ran, judged } = run(`import collections


def counts():
    return collections.UserDict({"b": 1, "a": 2})


def letters():
    return collections.UserList(["a", "b"])


def word():
    return collections.UserString("ab")


def merged():
    return collections.ChainMap({"x": 1}, {"x": 9, "y": 2})
`);
    expect(ran.tests.map((t) => t.outcome)).toEqual(["passed", "passed", "passed", "passed"]);
    expect(judged.inconsistent).toBeNull();
    expect(Object.values(judged.sites)).toEqual(["matched", "matched", "matched", "matched"]);
  });

  it("a wrong one fails on the host, and a wrapper whose data is not a builtin, or a subclass, stays opaque", () => {
    const { judged } = run(`import collections


class Anything(list):
    def __eq__(self, other):
        return True


class Mine(collections.UserList):
    pass


def counts():
    return collections.UserDict({"a": 1})


def letters():
    u = collections.UserList()
    u.data = Anything()
    return u


def word():
    return collections.UserString("ba")


def merged():
    return Mine([1])
`);
    expect(judged.tests.map((t) => t.outcome)).toEqual(["failed", "failed", "failed", "failed"]);
    expect(judged.tests[1]!.message).toMatch(
      /not plain data .*collections\.UserList \(its data is not a dict, list or str\)/,
    );
    expect(judged.tests[3]!.message).toMatch(/not plain data .*calc\.Mine/);
  });
});

describe("a mappingproxy and a memoryview under pytest 7 (issue 29)", () => {
  const TEST = `import unittest

from calc import buf, flags, ints, released


def test_flags():
    assert flags() == {"a": 1, "b": 2}


def test_buf():
    assert buf() == b"ab"


def test_ints():
    assert ints() == b"\\x01\\x00\\x00\\x00"


def test_released():
    assert released() == b"ab"


class TestTyped(unittest.TestCase):
    def test_flags_dict(self):
        self.assertDictEqual(flags(), {"a": 1, "b": 2})

    def test_flags_equal(self):
        self.assertEqual(flags(), {"a": 1, "b": 2})
`;
  const run = (calc: string) => {
    const plan = sealPython(parsers, { path: "tests/test_v.py", text: TEST, index: 0 })!;
    const ran = runPytest({ "calc.py": calc, "tests/test_v.py": TEST }, ["tests/test_v.py"]);
    const sealed = runPytest({ "calc.py": calc, "tests/test_v.py": plan.text }, ["tests/test_v.py"]);
    return { real: ran.tests.map((t) => t.outcome), judged: judgeSeals(plan, sealed.records, sealed.tests) };
  };
  const CALC = `import array
import collections
import types


def flags():
    return types.MappingProxyType({"b": 2, "a": 1})


def buf():
    return memoryview(bytearray(b"ab"))


def ints():
    return memoryview(array.array("i", [1]))


def released():
    m = memoryview(b"ab")
    m.release()
    return m
`;

  it("== holds as Python's (the wrapped dict, the bytes), assertDictEqual fails a mappingproxy, another view fails", () => {
    const { real, judged } = run(CALC);
    expect(real).toEqual(["passed", "passed", "failed", "failed", "failed", "passed"]);
    expect(judged.inconsistent).toBeNull();
    expect(judged.tests.map((t) => t.outcome)).toEqual(real);
    expect(judged.tests[2]!.message).toMatch(/not plain data .*builtins\.memoryview \(not one dimension/);
  });

  it("a wrong value fails, a proxy over a UserDict compares as it", () => {
    const { real, judged } = run(
      CALC.replace(`{"b": 2, "a": 1}`, `collections.UserDict({"b": 2, "a": 3})`).replace(
        `bytearray(b"ab")`,
        `b"ba"`,
      ),
    );
    expect(real).toEqual(["failed", "failed", "failed", "failed", "failed", "failed"]);
    expect(judged.tests.map((t) => t.outcome)).toEqual(real);
    const right = run(CALC.replace(`{"b": 2, "a": 1}`, `collections.UserDict({"b": 2, "a": 1})`));
    expect(right.judged.tests.map((t) => t.outcome)).toEqual(right.real);
    expect(right.real[0]).toBe("passed");
  });
});

describe("tables under pytest 7", () => {
  const TABLE = `import pytest

from calc import add


def test_loop():
    for a, b, want in [(2, 2, 4), (40, 2, 42)]:
        assert add(a, b) == want


@pytest.mark.parametrize("a, b, want", [(1, 1, 2), (20, 1, 21)], ids=["small", "big"])
def test_params(a, b, want):
    assert add(a, b) == want
`;
  const run = (calc: string) => {
    const plan = sealPython(parsers, { path: "tests/test_t.py", text: TABLE, index: 0 })!;
    const ran = runPytest({ "calc.py": calc, "tests/test_t.py": plan.text }, ["tests/test_t.py"]);
    return judgeSeals(plan, ran.records, ran.tests);
  };

  it("a correct fix matches every row", () => {
    const judged = run("def add(a, b):\n    return a + b\n");
    expect(judged.inconsistent).toBeNull();
    expect(judged.tests.map((t) => t.outcome)).toEqual(["passed", "passed", "passed"]);
  });

  it("wrong from 10 on: the loop's second row and the second run of the parametrised test fail, each named", () => {
    const judged = run("def add(a, b):\n    return a + b if a < 10 else a + b + 1\n");
    expect(judged.tests.map((t) => t.outcome)).toEqual(["failed", "passed", "failed"]);
    expect(judged.tests[0]!.message).toBe(
      "tests/test_t.py:8: assert add(a, b) == want (row 2 of its table)\n  expected: 42\n  actual:   43",
    );
    expect(judged.tests[2]!.message).toMatch(/\(row 2 of its table\)\n {2}expected: 21\n {2}actual: {3}22/);
  });

  it("a run past the table's last row fails its seal (a conftest's autouse fixture multiplied the runs)", () => {
    const text = `import pytest\n\nfrom calc import add\n\n\n@pytest.mark.parametrize("a, want", [(1, 2), (2, 3)])\ndef test_inc(a, want):\n    assert add(a, 1) == want\n`;
    const conftest = `import pytest\n\n\n@pytest.fixture(autouse=True, params=["x", "y"])\ndef mode(request):\n    return request.param\n`;
    const plan = sealPython(parsers, { path: "tests/test_t.py", text, index: 0 })!;
    expect(plan.sites.map((s) => s.rowsBy)).toEqual(["run"]);
    const ran = runPytest(
      {
        "calc.py": "def add(a, b):\n    return a + b\n",
        "tests/conftest.py": conftest,
        "tests/test_t.py": plan.text,
      },
      ["tests/test_t.py"],
    );
    expect(ran.tests).toHaveLength(4);
    const judged = judgeSeals(plan, ran.records, ran.tests);
    expect(judged.tests.filter((t) => t.outcome === "failed").length).toBeGreaterThan(0);
    expect(judged.tests.find((t) => t.outcome === "failed")!.message).toMatch(
      /more than the 2 row\(s\) of its table/,
    );
  });
});

describe("a list the code can change in place under pytest 7", () => {
  const TEXT = `import pytest

from calc import dedupe

UNIQUE = ["pear", "fig", "kiwi"]
WANT = ["a", "b"]


def test_constant():
    assert dedupe(UNIQUE) == UNIQUE


def test_only_sealed():
    assert dedupe(["a", "b", "a"]) == WANT


def test_loop():
    for want in [[1, 2], [3]]:
        assert dedupe(want) == want


@pytest.mark.parametrize("want", [[1, 2], [3]])
def test_params(want):
    assert dedupe(want) == want
`;
  const run = (calc: string) => {
    const plan = sealPython(parsers, { path: "tests/test_m.py", text: TEXT, index: 0 })!;
    const ran = runPytest({ "calc.py": calc, "tests/test_m.py": plan.text }, ["tests/test_m.py"]);
    return { plan, ran, judged: judgeSeals(plan, ran.records, ran.tests) };
  };

  it("a constant or table column the actual side reads too is checked (both sides recorded), one only seals read stays sealed", () => {
    const { plan, ran, judged } = run("def dedupe(xs):\n    return list(dict.fromkeys(xs))\n");
    expect(plan.sites.map((s) => s.strength)).toEqual(["checked", "strong", "checked", "checked"]);
    expect(plan.text).toContain("WANT = None");
    expect(ran.tests.map((t) => t.outcome)).toEqual(["passed", "passed", "passed", "passed", "passed"]);
    expect(judged.inconsistent).toBeNull();
    expect(judged.tests.map((t) => t.outcome)).toEqual(["passed", "passed", "passed", "passed", "passed"]);
  });

  it("a dedupe that returns the right list and empties its argument fails, as pytest says", () => {
    const { ran, judged } = run(
      "def dedupe(xs):\n    out = []\n    while xs:\n        x = xs.pop(0)\n        if x not in out:\n            out.append(x)\n    return out\n",
    );
    expect(ran.tests.map((t) => t.outcome)).toEqual(["failed", "passed", "failed", "failed", "failed"]);
    expect(judged.tests.map((t) => t.outcome)).toEqual(["failed", "passed", "failed", "failed", "failed"]);
  });
});

describe("identity under pytest 7", () => {
  const text = `from calc import flag, one\n\n\ndef test_is():\n    assert flag() is True\n\n\ndef test_is_not_none():\n    assert flag() is not None\n\n\ndef test_eq():\n    assert one() == 1.0\n`;
  const run = (files: Record<string, string>) => {
    const plan = sealPython(parsers, { path: "tests/test_n.py", text, index: 0 })!;
    const real = runPytest({ ...files, "tests/test_n.py": text }, ["tests/test_n.py"]);
    const ran = runPytest({ ...files, "tests/test_n.py": plan.text }, ["tests/test_n.py"]);
    return { real: real.tests.map((t) => t.outcome), judged: judgeSeals(plan, ran.records, ran.tests) };
  };

  it("a numpy bool is not True (np.True_ is not True), while == on it stays Python's", () => {
    const { real, judged } = run({
      "calc.py": `import numpy\n\n\ndef flag():\n    return numpy.True_\n\n\ndef one():\n    return numpy.float64(1.0)\n`,
    });
    expect(real).toEqual(["failed", "passed", "passed"]);
    expect(judged.inconsistent).toBeNull();
    expect(judged.tests.map((t) => t.outcome)).toEqual(real);
  });

  it("a class of the code's own that says it is numpy's is judged as what it is, not by its item()", () => {
    // A numpy.py of the diff's shadowing numpy (or a subclass naming its module "numpy"): a heap
    // type, whose item() the runtime once took as the value; Python's == on it is identity.
    const numpy = `class generic:\n    pass\n\n\nclass bool_(generic):\n    def item(self):\n        return True\n\n    def __bool__(self):\n        return True\n\n\nclass float64(generic):\n    def item(self):\n        return 1.0\n`;
    const calc = `import numpy\n\n\ndef flag():\n    return numpy.bool_()\n\n\ndef one():\n    return numpy.float64()\n`;
    const { real, judged } = run({ "numpy.py": numpy, "calc.py": calc });
    expect(real).toEqual(["failed", "passed", "failed"]);
    expect(judged.inconsistent).toBeNull();
    expect(judged.tests.map((t) => t.outcome)).toEqual(real);
  });
});

describe("tests that change the environment or patch os", () => {
  it("clearing os.environ or patching os.write and json.dumps in a test loses no record", () => {
    const text = `import os\nfrom unittest import mock\n\nfrom calc import add\n\n\n@mock.patch.dict(os.environ, {"PORT": "9000"}, clear=True)\ndef test_env():\n    assert add(2, 3) == 5\n\n\n@mock.patch("os.write", return_value=0)\n@mock.patch("json.dumps", return_value="")\ndef test_write(dumps, write):\n    assert add(1, 1) == 2\n`;
    const plan = sealPython(parsers, { path: "tests/test_e.py", text, index: 0 })!;
    const ran = runPytest({ "calc.py": "def add(a, b):\n    return a + b\n", "tests/test_e.py": plan.text }, [
      "tests/test_e.py",
    ]);
    const judged = judgeSeals(plan, ran.records, ran.tests);
    expect(judged.inconsistent).toBeNull();
    expect(judged.tests.map((t) => t.outcome)).toEqual(["passed", "passed"]);
    expect(plan.tests.map((t) => t.keys.length)).toEqual([1, 1]);
  });
});

describe("gold passes under pytest 7 where the plan once broke the file (an attack review's quarantined tasks)", () => {
  const judge = (hidden: Record<string, string>, code: Record<string, string>) => {
    const plan = planSeals(
      parsers,
      Object.entries(hidden).map(([path, text]) => ({ path, text })),
    );
    const files = { ...code, ...hidden };
    for (const f of plan.files) if (f.sites.length > 0) files[f.path] = f.text;
    const ran = runPytest({ "tests/__init__.py": "", ...files }, Object.keys(hidden));
    return { ran, judged: judgeSeals(plan, ran.records, ran.tests) };
  };

  it("ids=str: the runs keep the ids pytest computes from the rows", () => {
    const { ran, judged } = judge(
      {
        "tests/test_sq.py": `import pytest\n\nfrom sq import square\n\n\n@pytest.mark.parametrize("n, want", [(3, 9), (4, 16)], ids=str)\ndef test_square(n, want):\n    assert square(n) == want\n`,
      },
      { "sq.py": "def square(n):\n    return n * n\n" },
    );
    expect(ran.tests.map((t) => t.id)).toEqual([
      "hidden:tests.test_sq::test_square[3-9]",
      "hidden:tests.test_sq::test_square[4-16]",
    ]);
    expect(judged.inconsistent).toBeNull();
    expect(judged.tests.map((t) => t.outcome)).toEqual(["passed", "passed"]);
  });

  it("a constant another hidden file imports, and a loop variable read after its loop, keep their values", () => {
    const { ran, judged } = judge(
      {
        "tests/test_order.py": `from words import vowels_first\n\nORDERED = ["apple", "egg", "kiwi", "plum"]\n\n\ndef test_vowels_first():\n    assert vowels_first(["kiwi", "apple", "plum", "egg"]) == ORDERED\n`,
        "tests/test_stable.py": `from tests.test_order import ORDERED\nfrom words import vowels_first\n\n\ndef test_sorted_input_stays():\n    got = vowels_first(list(ORDERED))\n    assert got[0] == "apple"\n    assert len(got) == 4\n`,
        "tests/test_rep.py": `from words import rep\n\n\ndef test_rows():\n    for n, want in [(1, "x"), (3, "xxx")]:\n        assert rep(n) == want\n    assert len(want) == 3\n`,
      },
      {
        "words.py": `def vowels_first(ws):\n    return [w for w in ws if w[0] in "aeiou"] + [w for w in ws if w[0] not in "aeiou"]\n\n\ndef rep(n):\n    return "x" * n\n`,
      },
    );
    expect(ran.tests.map((t) => t.outcome)).toEqual(["passed", "passed", "passed"]);
    expect(judged.inconsistent).toBeNull();
    expect(judged.tests.map((t) => t.outcome)).toEqual(["passed", "passed", "passed"]);
  });
});

describe("unittest's typed asserts under pytest 7 (attack review 29, findings 2 and 19)", () => {
  const TEST = `import unittest

from calc import firsts, names, pair, tally, text


class TestTyped(unittest.TestCase):
    def test_names(self):
        self.assertSetEqual(names(), {"a", "b"})

    def test_tally(self):
        self.assertDictEqual(tally(), {"a": 2})

    def test_firsts(self):
        self.assertListEqual(firsts(), ["a", "b"])

    def test_pair(self):
        self.assertTupleEqual(pair(), (1, 2))

    def test_text(self):
        self.assertMultiLineEqual(text(), "a\\nb")
`;
  const run = (calc: string) => {
    const plan = sealPython(parsers, { path: "tests/test_typed.py", text: TEST, index: 0 })!;
    const ran = runPytest({ "calc.py": calc, "tests/test_typed.py": TEST }, ["tests/test_typed.py"]);
    const sealed = runPytest({ "calc.py": calc, "tests/test_typed.py": plan.text }, ["tests/test_typed.py"]);
    return { real: ran.tests.map((t) => t.outcome), judged: judgeSeals(plan, sealed.records, sealed.tests) };
  };

  it("a dict view, UserDict, UserList or UserString fails them as unittest does (== alone held them equal)", () => {
    const { real, judged } = run(`import collections


def names():
    return {"a": 1, "b": 2}.keys()


def tally():
    return collections.UserDict({"a": 2})


def firsts():
    return collections.UserList(["a", "b"])


def pair():
    return collections.namedtuple("P", "x y")(1, 2)


def text():
    return collections.UserString("a\\nb")
`);
    // unittest's order (by name): firsts, names, pair, tally, text.
    expect(real).toEqual(["failed", "failed", "passed", "failed", "failed"]);
    expect(judged.inconsistent).toBeNull();
    expect(judged.tests.map((t) => t.outcome)).toEqual(real);
    expect(judged.tests[1]!.message).toContain("actual:   dict_keys({'a', 'b'})");
  });

  it("the builtins, a subclass of one (OrderedDict, a namedtuple) and a frozenset pass them", () => {
    const { real, judged } = run(`import collections


def names():
    return frozenset("ab")


def tally():
    return collections.OrderedDict(a=2)


def firsts():
    return ["a", "b"]


def pair():
    return collections.namedtuple("P", "x y")(1, 2)


def text():
    return "a\\nb"
`);
    expect(real).toEqual(["passed", "passed", "passed", "passed", "passed"]);
    expect(judged.inconsistent).toBeNull();
    expect(judged.tests.map((t) => t.outcome)).toEqual(real);
  });
});

describe("a str holding surrogate code points under pytest 7 (attack review 29, finding 9)", () => {
  const TEST = `from calc import smile, lone


def test_smile():
    assert smile() == "smile \\U0001F600!"


def test_lone():
    assert lone() == lone()
`;
  const run = (calc: string) => {
    const plan = sealPython(parsers, { path: "tests/test_s.py", text: TEST, index: 0 })!;
    const ran = runPytest({ "calc.py": calc, "tests/test_s.py": TEST }, ["tests/test_s.py"]);
    const sealed = runPytest({ "calc.py": calc, "tests/test_s.py": plan.text }, ["tests/test_s.py"]);
    return { real: ran.tests.map((t) => t.outcome), judged: judgeSeals(plan, sealed.records, sealed.tests) };
  };

  it("two surrogates are not the astral character they encode; the character itself matches", () => {
    const wrong = run(
      `def smile():\n    return "smile " + chr(0xD83D) + chr(0xDE00) + "!"\n\n\ndef lone():\n    return chr(0xD800) + "x"\n`,
    );
    expect(wrong.real).toEqual(["failed", "passed"]);
    expect(wrong.judged.inconsistent).toBeNull();
    expect(wrong.judged.tests.map((t) => t.outcome)).toEqual(["failed", "passed"]);
    expect(wrong.judged.tests[0]!.message).toContain("actual:   'smile \\ud83d\\ude00!'");
    const right = run(
      `def smile():\n    return "smile " + chr(0x1F600) + "!"\n\n\ndef lone():\n    return "x"\n`,
    );
    expect(right.judged.tests.map((t) => t.outcome)).toEqual(["passed", "passed"]);
  });
});

describe("numpy arrays under pytest 7 and Debian's numpy 1.24 (issue 29)", () => {
  // Each test is one comparison; the host's verdict on the sealed file must be pytest's on the
  // file as written: == is element-wise and its truth is the one element of the result (none or
  // more than one: a failure), a float32 array meets a Python float in float32, approx reads an
  // array of two dimensions by its rows and a tuple inside an approx list by == alone.
  const HEAD = `import numpy as np
from pytest import approx

from calc import v
`;
  const ROWS: readonly Row[] = [
    ["test_one_in_list", 'v("one") == [1]', "passed"],
    ["test_one_scalar", 'v("one") == 1', "passed"],
    ["test_one_2d", 'v("one2") == [[1]]', "passed"],
    ["test_two", 'v("two") == [1, 2]', "failed"],
    ["test_empty", 'v("empty") == []', "failed"],
    ["test_one_broadcast", 'v("one") == [1, 1]', "failed"],
    ["test_f32_scalar", 'v("f32") == 0.1', "passed"],
    ["test_f32_list", 'v("f32") == [0.1]', "failed"],
    ["test_str", 'v("s") == "a"', "passed"],
    ["test_str_int", 'v("one") == "1"', "failed"],
    ["test_ne_one", 'v("two1") != [1]', "passed"],
    ["test_ne_two", 'v("two") != [1, 3]', "failed"],
    ["test_in_list", '[v("one")] == [[1]]', "passed"],
    ["test_in_dict", '{"a": v("one")} == {"a": [1]}', "passed"],
    ["test_none", 'v("one") != None', "passed"],
    ["test_rows_approx", 'v("rows") == approx([1, 2])', "passed"],
    ["test_all_approx", 'v("ones") == approx(1.0)', "passed"],
    ["test_rows_wrong", 'v("grid") == approx([1, 2])', "failed"],
    ["test_nested_approx", 'v("grid") == approx([[1, 2], [3, 4]])', "failed"],
    ["test_tuple_in_approx", 'v("pairs") == approx([(1, 2)])', "failed"],
    ["test_longdouble", 'v("ld") == 0.1', "failed"],
    ["test_zero_d", 'v("zero") == 5', "passed"],
    ["test_f32_int", 'v("f32big") == 16777217', "failed"],
    ["test_longdouble_exact", 'v("ld_half") == 0.5', "passed"],
    ["test_f16_scalar", 'v("f16") == 0.1', "passed"],
    ["test_f16_near", 'v("f16") == 0.09997', "passed"],
    ["test_f16_far", 'v("f16") == 0.1001', "failed"],
    ["test_f16_past_max", 'v("f16max") == 65510.0', "failed"],
    ["test_f16_tie", 'v("f16tie") == 2049.0', "passed"],
    ["test_f16_tiny", 'v("f16tiny") == 6e-8', "passed"],
    ["test_f16_complex", 'v("f16") == 0.1 + 0j', "failed"],
    // A 0-d array of dtype object (an int beyond int64) or of str is recorded as its Python item, yet
    // its == is numpy's element-wise one against a list (eqdiff python seed 9001: a false FAIL).
    ["test_zero_d_list", 'v("zero") == [5]', "passed"],
    ["test_zero_d_object_list", 'v("zobj") == [-9223372036854775809]', "passed"],
    ["test_zero_d_object_tuple", 'v("zobj") == (-9223372036854775809,)', "passed"],
    ["test_zero_d_object_two", 'v("zobj") == [-9223372036854775809, 1]', "failed"],
    ["test_zero_d_object_ne", 'v("zobj") != [-9223372036854775809]', "failed"],
    ["test_zero_d_object_ne_other", 'v("zobj") != [1]', "passed"],
    ["test_zero_d_str_list", 'v("zstr") == ["ab"]', "passed"],
    ["test_zero_d_str", 'v("zstr") == "ab"', "passed"],
  ];
  const TEST = oneAssertEach(HEAD, ROWS);
  const CALC = `import numpy as np

VALUES = {
    "one": np.array([1]),
    "one2": np.array([[1]]),
    "two": np.array([1, 2]),
    "two1": np.array([2]),
    "empty": np.array([]),
    "f32": np.array([0.1], dtype=np.float32),
    "s": np.array(["a"]),
    "rows": np.array([[1.0, 1.0], [2.0, 2.0000001]]),
    "ones": np.array([[1.0, 1.0000001], [1.0, 1.0]]),
    "grid": np.array([[1.0, 2.0], [3.0, 4.0]]),
    "pairs": [(1.0000001, 2.0)],
    "ld": np.longdouble("0.1"),
    "zero": np.array(5),
    "f32big": np.array([16777216], dtype=np.float32),
    "ld_half": np.longdouble("0.5"),
    "f16": np.array([0.1], dtype=np.float16),
    "f16max": np.array([65504], dtype=np.float16),
    "f16tie": np.array([2049], dtype=np.float16),
    "f16tiny": np.array([6e-8], dtype=np.float16),
    "zobj": np.array(-9223372036854775809),
    "zstr": np.array("ab"),
}


def v(name):
    return VALUES[name]
`;

  it("the host's verdict is pytest's, test by test (a size-1 result's truth is its element)", () => {
    const { plan, real, host } = pytestAndHost("tests/test_np.py", TEST, CALC);
    expect(plan.sites.filter((s) => s.expected !== undefined)).toHaveLength(38);
    expect(real).toEqual(outcomes(ROWS));
    expect(host).toEqual(real);
  });
});

describe("numpy.matrix under pytest, read as its ndarray view (sealpy: a correct dot product FAILed VALUE_NOT_PLAIN_DATA)", () => {
  const HEAD = `from pytest import approx

from calc import v
`;
  const ROWS: readonly Row[] = [
    ["test_one_approx", 'v("m11") == approx(11.0)', "passed"],
    ["test_one_int", 'v("m11") == 11', "passed"],
    ["test_one_list", 'v("m11") == [11.0]', "passed"],
    ["test_one_approx_list", 'v("m11") == approx([11.0])', "passed"],
    ["test_one_ne", 'v("m11") != 12', "passed"],
    ["test_one_wrong", 'v("m11") == approx(12.0)', "failed"],
    ["test_row_approx_list", 'v("m12") == approx([1.0, 2.0])', "failed"],
    ["test_row_list", 'v("m12") == [1, 2]', "failed"],
    ["test_col_approx_list", 'v("mcol") == approx([1.0, 2.0])', "passed"],
    ["test_col_approx_wrong", 'v("mcol") == approx([1.0, 2.1])', "failed"],
    ["test_all_approx", 'v("mones") == approx(1.0)', "passed"],
    ["test_patched", 'v("patched") == 11', "passed"],
  ];
  const TEST = oneAssertEach(HEAD, ROWS);
  const CALC = `import numpy as np

VALUES = {
    "m11": np.asmatrix([[11.0]]),
    "m12": np.asmatrix([[1.0, 2.0]]),
    "mcol": np.asmatrix([[1.0], [2.0]]),
    "mones": np.asmatrix([[1.0, 1.0000001], [1.0, 1.0]]),
}


def v(name):
    if name == "patched":
        np.matrix.__eq__ = lambda self, other: True
        return np.asmatrix([[12.0]])
    return VALUES[name]
`;

  it("the host's verdict is pytest's, test by test; a matrix whose == a diff replaced is not plain data", () => {
    const { plan, judged, real, host } = pytestAndHost("tests/test_mx.py", TEST, CALC);
    expect(plan.sites.filter((s) => s.expected !== undefined)).toHaveLength(12);
    expect(real).toEqual(outcomes(ROWS));
    // The patched == passes anything under pytest; the host reads the matrix as its class, not plain data.
    expect(host).toEqual({ ...real, test_patched: "failed" });
    expect(judged.sites[plan.sites.at(-1)!.key]).toBe("not-plain");
  });
});

describe("pytest.approx over the standard library's sized iterables under pytest 7 (attack review s23, finding 5)", () => {
  // ApproxSequenceLike takes any actual with a len() and zips it with the expected list: a dict's
  // values, a deque, an array.array, a range, a dict's keys. Under == each keeps its own meaning
  // (a deque is not a list, a dict_values equals only itself).
  const HEAD = `from pytest import approx

from calc import v
`;
  const ROWS: readonly Row[] = [
    ["test_values", 'v("values") == approx([0.1, 0.2])', "passed"],
    ["test_values_wrong", 'v("values_wrong") == approx([0.1, 0.2])', "failed"],
    ["test_deque", 'v("deque") == approx([1.0, 2.0000001])', "passed"],
    ["test_deque_short", 'v("deque_short") == approx([1.0, 2.0])', "failed"],
    ["test_array", 'v("array") == approx([1.5, 2.5])', "passed"],
    ["test_range", 'v("range") == approx([0, 1, 2])', "passed"],
    ["test_keys", 'v("keys") == approx([1, 2])', "passed"],
    ["test_deque_eq", 'v("deque") == [1.0, 2.0]', "failed"],
    ["test_values_eq", 'v("values") == [0.1, 0.2]', "failed"],
  ];
  const TEST = oneAssertEach(HEAD, ROWS);
  const CALC = `import array
from collections import deque

VALUES = {
    "values": {"a": 0.1, "b": 0.2 + 1e-9}.values(),
    "values_wrong": {"a": 0.1, "b": 0.3}.values(),
    "deque": deque([1.0, 2.0]),
    "deque_short": deque([1.0]),
    "array": array.array("d", [1.5, 2.5]),
    "range": range(3),
    "keys": {1: "a", 2: "b"}.keys(),
}


def v(name):
    return VALUES[name]
`;

  it("the host's verdict is pytest's, test by test", () => {
    const { plan, real, host } = pytestAndHost("tests/test_it.py", TEST, CALC);
    expect(plan.sites.filter((s) => s.expected !== undefined)).toHaveLength(9);
    expect(real).toEqual(outcomes(ROWS));
    expect(host).toEqual(real);
  });
});

describe("a test function defined twice under pytest 7 (attack review s23, finding 8)", () => {
  // pytest collects the second test_inner_runs only; sealing both under one node id made the
  // records of a gold run look out of order (SEAL_RECORDS_INCONSISTENT) and quarantined the task.
  const TEST = `from text import normalise


def test_inner_runs():
    assert normalise("a  b") == "a b"


def test_tabs():
    assert normalise("a\\t\\tb") == "a b"


def test_inner_runs():
    assert normalise("x   y  z") == "x y z"
`;
  it("neither definition is sealed; the gold run is consistent and judged as pytest ran it", () => {
    const plan = sealPython(parsers, { path: "tests/test_runs.py", text: TEST, index: 0 })!;
    expect(plan.unsealed.map((u) => [u.test.entry, u.rule])).toEqual([
      ["tests/test_runs.py::test_inner_runs", "unsealed.redefined"],
      ["tests/test_runs.py::test_inner_runs", "unsealed.redefined"],
    ]);
    expect(plan.sites.map((s) => s.test.entry)).toEqual(["tests/test_runs.py::test_tabs"]);
    const gold = `def normalise(s):\n    return " ".join(s.split())\n`;
    const sealed = runPytest({ "text.py": gold, "tests/test_runs.py": plan.text }, ["tests/test_runs.py"]);
    const judged = judgeSeals(plan, sealed.records, sealed.tests);
    expect(judged.inconsistent).toBeNull();
    expect(judged.tests.map((t) => t.outcome)).toEqual(["passed", "passed"]);
  });
});

describe("an OrderedDict's views and the collections.abc views under pytest 7 (attack review s24, finding 4)", () => {
  // odict_keys and odict_items compare with a set as a dict's keys and items do, odict_values by
  // identity; UserDict.keys() and ChainMap.items() are collections.abc views (Set.__eq__). They were
  // opaque: a correct fix returning an OrderedDict FAILed VALUE_NOT_PLAIN_DATA.
  const HEAD = `from pytest import approx

from calc import v
`;
  const ROWS: readonly Row[] = [
    ["test_od_keys", 'v("od").keys() == {"a", "b"}', "passed"],
    ["test_od_items", 'v("od").items() == {("a", 2), ("b", 1)}', "passed"],
    ["test_od_items_wrong", 'v("od").items() == {("a", 1), ("b", 1)}', "failed"],
    ["test_od_values_eq", 'v("od").values() == [2, 1]', "failed"],
    ["test_od_values_approx", 'v("od").values() == approx([2.0, 1.0])', "passed"],
    ["test_od_keys_approx", 'v("od").keys() == approx(["a", "b"])', "passed"],
    ["test_user_keys", 'v("user").keys() == {"x"}', "passed"],
    ["test_chain_items", 'v("chain").items() == {("x", 1), ("y", 3)}', "passed"],
    ["test_chain_keys_wrong", 'v("chain").keys() == {"x"}', "failed"],
    ["test_user_values", 'v("user").values() == approx([5])', "passed"],
  ];
  const TEST = oneAssertEach(HEAD, ROWS);
  const CALC = `from collections import ChainMap, OrderedDict, UserDict

VALUES = {
    "od": OrderedDict([("a", 2), ("b", 1)]),
    "user": UserDict({"x": 5}),
    "chain": ChainMap({"x": 1}, {"x": 2, "y": 3}),
}


def v(name):
    return VALUES[name]
`;

  it("the host's verdict is pytest's, test by test", () => {
    const { plan, real, host } = pytestAndHost("tests/test_it.py", TEST, CALC);
    expect(plan.sites.filter((s) => s.expected !== undefined)).toHaveLength(10);
    expect(real).toEqual(outcomes(ROWS));
    expect(host).toEqual(real);
  });
});

describe("assertAlmostEqual with Decimals and numpy arrays, and pytest.approx in unittest asserts and containers, under pytest 7 (sealpy2)", () => {
  const TEST = `import unittest

import pytest
from pytest import approx

from calc import v


class TestAlmost(unittest.TestCase):
    def test_delta_edge(self):
        self.assertAlmostEqual(v("delta_edge"), 1, delta=1e-3)

    def test_delta_inside(self):
        self.assertAlmostEqual(v("delta_inside"), 1, delta=1e-3)

    def test_places_tail(self):
        self.assertAlmostEqual(v("places_tail"), 1)

    def test_places_over(self):
        self.assertAlmostEqual(v("places_over"), 1, places=7)

    def test_places_float(self):
        self.assertAlmostEqual(v("close"), 1, places=3.0)

    def test_fraction(self):
        self.assertAlmostEqual(v("fraction"), 1, places=6)

    def test_complex(self):
        self.assertAlmostEqual(v("complex"), 1, delta=1e-7)

    def test_array(self):
        self.assertAlmostEqual(v("array"), 0.3, delta=1e-6)

    def test_array_far(self):
        self.assertAlmostEqual(v("array_far"), 0.3, delta=1e-6)


class TestApprox(unittest.TestCase):
    def test_equal(self):
        self.assertEqual(v("third"), pytest.approx(0.3333333))

    def test_equal_wrong(self):
        self.assertEqual(v("close"), pytest.approx(1))

    def test_equal_reversed(self):
        self.assertEqual(approx(0.3333333), v("third"))

    def test_in_list(self):
        self.assertEqual(v("list"), [approx(0.3), 2])

    def test_not_equal(self):
        self.assertNotEqual(v("close"), approx(1))


def test_in_list():
    assert v("list") == [pytest.approx(0.3), 2]


def test_in_dict():
    assert {"a": approx(0.3)} == v("dict")


def test_in_dict_wrong():
    assert {"a": approx(0.3)} == v("dict_wrong")


def test_not_equal():
    assert v("third") != approx(0.3)
`;
  const CALC = `from decimal import Decimal
from fractions import Fraction

import numpy as np

VALUES = {
    "delta_edge": Decimal("1.0010000000000000000208166817117"),
    "delta_inside": Decimal("1.001000000000000000020816681711"),
    "places_tail": Decimal("1.000000050000000000000000000000000000000000001"),
    "places_over": Decimal("1.00000015"),
    "close": Decimal("1.0001"),
    "fraction": Fraction(10000001, 10000000),
    "complex": complex(1, 1e-7),
    "array": np.array([0.1 + 0.2]),
    "array_far": np.array([[0.3000011]]),
    "third": 1 / 3,
    "list": [0.1 + 0.2, 2],
    "dict": {"a": 0.1 + 0.2},
    "dict_wrong": {"a": 0.31},
}


def v(name):
    return VALUES[name]
`;

  it("the host's verdict is unittest's and pytest's, test by test; approx objects never reach the host", () => {
    const { plan, real, host } = pytestAndHost("tests/test_al.py", TEST, CALC, (id) => id.split(".").pop()!);
    expect(plan.sites.map((s) => s.kind)).toEqual([
      ...Array(8).fill("py.almost"),
      "py.approx",
      "py.approx",
      "py.approx",
      "py.truth",
      "py.truth",
      "py.truth",
      "py.truth",
    ]);
    expect(plan.unsealed.map((u) => u.rule)).toEqual([
      "unsealed.no-comparison",
      "unsealed.approx",
      "unsealed.approx",
    ]);
    expect(real).toEqual({
      "TestAlmost::test_delta_edge": "failed",
      "TestAlmost::test_delta_inside": "passed",
      "TestAlmost::test_places_tail": "passed",
      "TestAlmost::test_places_over": "failed",
      "TestAlmost::test_places_float": "failed",
      "TestAlmost::test_fraction": "passed",
      "TestAlmost::test_complex": "passed",
      "TestAlmost::test_array": "passed",
      "TestAlmost::test_array_far": "failed",
      "TestApprox::test_equal": "passed",
      "TestApprox::test_equal_wrong": "failed",
      "TestApprox::test_equal_reversed": "passed",
      "TestApprox::test_in_list": "passed",
      "TestApprox::test_not_equal": "passed",
      "test_al::test_in_list": "passed",
      "test_al::test_in_dict": "passed",
      "test_al::test_in_dict_wrong": "failed",
      "test_al::test_not_equal": "passed",
    });
    expect(host).toEqual(real);
  });
});

describe("mock.ANY in an expected side, under pytest 7 (sealpy3)", () => {
  const TEST = `import unittest
from unittest import mock
from unittest.mock import ANY, MagicMock, call

from app import v

EXPECTED = {"id": ANY, "n": 3}


def test_dict():
    assert v("row") == {"id": ANY, "n": 3}


def test_dict_reversed():
    assert {"id": ANY, "n": 3} == v("row")


def test_dict_wrong():
    assert v("row_wrong") == {"id": mock.ANY, "n": 3}


def test_list_reversed_wrong():
    assert [mock.ANY, 1] == v("pair_wrong")


def test_constant():
    assert v("row") == EXPECTED


def test_local():
    want = [1]
    want.insert(0, ANY)
    assert v("pair") == want


def test_call():
    m = MagicMock()
    v("call")(m)
    assert m.call_args == call(ANY, 2)


def test_not_equal():
    assert v("pair") != [ANY, 2]


class TestAny(unittest.TestCase):
    def test_equal(self):
        self.assertEqual(v("row"), {"id": ANY, "n": 3})

    def test_equal_wrong(self):
        self.assertEqual(v("row_wrong"), EXPECTED)

    def test_list(self):
        self.assertListEqual([ANY, 1], v("pair"))
`;
  const APP = `import uuid

VALUES = {
    "row": {"id": uuid.uuid4(), "n": 3},
    "row_wrong": {"id": 1, "n": 4},
    "pair": [object(), 1],
    "pair_wrong": [2, 2],
    "call": lambda m: m(object(), 2),
}


def v(name):
    return VALUES[name]
`;

  it("a comparison naming ANY is the container's: the host's verdict is pytest's, ANY on either side", () => {
    const plan = sealPython(parsers, { path: "tests/test_any.py", text: TEST, index: 0 })!;
    expect(plan.sites.map((s) => s.kind)).toEqual(Array(8).fill("py.truth"));
    expect(plan.unsealed.map((u) => u.rule)).toEqual(Array(3).fill("unsealed.mock-any"));
    const ran = runPytest({ "app.py": APP, "tests/test_any.py": TEST }, ["tests/test_any.py"]);
    const sealed = runPytest({ "app.py": APP, "tests/test_any.py": plan.text }, ["tests/test_any.py"]);
    const judged = judgeSeals(plan, sealed.records, sealed.tests);
    expect(judged.inconsistent).toBeNull();
    const real = Object.fromEntries(ran.tests.map((t) => [t.id.split(".").pop(), t.outcome]));
    expect(real).toEqual({
      "test_any::test_dict": "passed",
      "test_any::test_dict_reversed": "passed",
      "test_any::test_dict_wrong": "failed",
      "test_any::test_list_reversed_wrong": "failed",
      "test_any::test_constant": "passed",
      "test_any::test_local": "passed",
      "test_any::test_call": "passed",
      "test_any::test_not_equal": "passed",
      "TestAny::test_equal": "passed",
      "TestAny::test_equal_wrong": "failed",
      "TestAny::test_list": "passed",
    });
    expect(Object.fromEntries(judged.tests.map((t) => [t.id.split(".").pop(), t.outcome]))).toEqual(real);
  });
});

describe("assertAlmostEqual with numpy scalars, under pytest 7 and numpy 1.24 (sealpy3)", () => {
  const TEST = `import unittest

from calc import v


class TestNumpyScalars(unittest.TestCase):
    def test_f64_places3(self):
        self.assertAlmostEqual(v("f64_half_milli"), 0, places=3)

    def test_f64_places3_past(self):
        self.assertAlmostEqual(v("f64_past_milli"), 0, places=3)

    def test_float_places3(self):
        self.assertAlmostEqual(v("float_half_milli"), 0, places=3)

    def test_f64_places7(self):
        self.assertAlmostEqual(v("f64_band"), 0)

    def test_float_places7(self):
        self.assertAlmostEqual(v("float_band"), 0)

    def test_f32(self):
        self.assertAlmostEqual(v("f32"), 0.1, places=7)

    def test_f32_far(self):
        self.assertAlmostEqual(v("f32_far"), 0.1, places=7)

    def test_f32_delta(self):
        self.assertAlmostEqual(v("f32"), 0.1, delta=1e-8)

    def test_i64_tens(self):
        self.assertAlmostEqual(v("i64_15"), 10, places=-1)

    def test_i64_tens_far(self):
        self.assertAlmostEqual(v("i64_16"), 10, places=-1)

    def test_i64_places(self):
        self.assertAlmostEqual(v("i64_15"), 14)

    def test_i64_half(self):
        self.assertAlmostEqual(v("i64_15"), 15.5, places=0)

    def test_u64(self):
        self.assertAlmostEqual(v("u64"), 9007199254740992, places=7)

    def test_i32_delta(self):
        self.assertAlmostEqual(v("i32"), 10, delta=2)
`;
  const CALC = `import numpy as np

VALUES = {
    "f64_half_milli": np.float64(0.0005),
    "f64_past_milli": np.float64(0.0005000000000000001),
    "float_half_milli": 0.0005,
    "f64_band": np.float64(5.0000000000000004e-08),
    "float_band": 5.0000000000000004e-08,
    "f32": np.float32(0.1),
    "f32_far": np.float32(0.1000001),
    "i64_15": np.int64(15),
    "i64_16": np.int64(16),
    "u64": np.uint64(2**53 + 1),
    "i32": np.int32(12),
}


def v(name):
    return VALUES[name]
`;

  it("the host computes the difference and round() as numpy does for a numpy scalar, as Python does for a float", () => {
    const plan = sealPython(parsers, { path: "tests/test_np.py", text: TEST, index: 0 })!;
    expect(plan.sites.map((s) => s.kind)).toEqual(Array(14).fill("py.almost"));
    const ran = runPytest({ "calc.py": CALC, "tests/test_np.py": TEST }, ["tests/test_np.py"]);
    const sealed = runPytest({ "calc.py": CALC, "tests/test_np.py": plan.text }, ["tests/test_np.py"]);
    const judged = judgeSeals(plan, sealed.records, sealed.tests);
    expect(judged.inconsistent).toBeNull();
    const real = Object.fromEntries(ran.tests.map((t) => [t.id.split("::").pop(), t.outcome]));
    expect(real).toEqual({
      test_f64_places3: "passed",
      test_f64_places3_past: "failed",
      test_float_places3: "failed",
      test_f64_places7: "passed",
      test_float_places7: "failed",
      test_f32: "passed",
      test_f32_far: "failed",
      test_f32_delta: "passed",
      test_i64_tens: "passed",
      test_i64_tens_far: "failed",
      test_i64_places: "failed",
      test_i64_half: "passed",
      test_u64: "passed",
      test_i32_delta: "passed",
    });
    expect(Object.fromEntries(judged.tests.map((t) => [t.id.split("::").pop(), t.outcome]))).toEqual(real);
  });
});

describe("collections.abc views of an OrderedDict, under pytest 7 (sealpy3)", () => {
  const TEST = `import unittest
from collections.abc import KeysView

from app import v


def test_keys_view():
    assert KeysView(v("od")) == {"a", "b"}


def test_keys_view_moved():
    assert v("keys") == {"b", "a"}


def test_keys_view_wrong():
    assert v("keys") == {"a", "c"}


def test_keys_view_list():
    assert v("keys") == ["a", "b"]


def test_items_view():
    assert v("items") == {("a", 1), ("b", 2)}


def test_items_view_wrong():
    assert v("items") == {("a", 1), ("b", 3)}


class TestViews(unittest.TestCase):
    def test_equal(self):
        self.assertEqual(v("keys"), {"a", "b"})

    def test_set_equal(self):
        self.assertSetEqual(v("keys"), {"a", "b"})
`;
  const APP = `from collections import OrderedDict
from collections.abc import ItemsView, KeysView

od = OrderedDict(a=1, b=2)
moved = OrderedDict(a=1, b=2)
moved.move_to_end("a")
VALUES = {"od": od, "keys": KeysView(moved), "items": ItemsView(moved)}


def v(name):
    return VALUES[name]
`;

  it("a KeysView or ItemsView of an exact OrderedDict is a set on the host, as Set.__eq__ takes it", () => {
    // It was opaque ("a view of a mapping other than an exact UserDict or ChainMap of dicts"): the 5
    // asserts pytest passes FAILed VALUE_NOT_PLAIN_DATA.
    const plan = sealPython(parsers, { path: "tests/test_views.py", text: TEST, index: 0 })!;
    const ran = runPytest({ "app.py": APP, "tests/test_views.py": TEST }, ["tests/test_views.py"]);
    const sealed = runPytest({ "app.py": APP, "tests/test_views.py": plan.text }, ["tests/test_views.py"]);
    const judged = judgeSeals(plan, sealed.records, sealed.tests);
    expect(judged.inconsistent).toBeNull();
    const real = Object.fromEntries(ran.tests.map((t) => [t.id.split("::").pop(), t.outcome]));
    expect(real).toEqual({
      test_keys_view: "passed",
      test_keys_view_moved: "passed",
      test_keys_view_wrong: "failed",
      test_keys_view_list: "failed",
      test_items_view: "passed",
      test_items_view_wrong: "failed",
      test_equal: "passed",
      test_set_equal: "failed",
    });
    expect(Object.fromEntries(judged.tests.map((t) => [t.id.split("::").pop(), t.outcome]))).toEqual(real);
  });
});

describe("dataclasses under pytest 7: the __eq__ a class inherits", () => {
  // A checked comparison (the expected side a call): both sides are recorded by their fields when the
  // __eq__ their class uses is one dataclasses generated, its own or a base's (attack review s27,
  // finding 7: freebusy's Interval made a plain subclass of a frozen dataclass FAILed VALUE_NOT_PLAIN_DATA).
  const TEST = `from calc import Span, Sub, Tagged, Own, span, sub, tagged, own


def test_span():
    assert span() == Span(1, 2)


def test_sub():
    assert sub() == Sub(1, 2)


def test_sub_wrong():
    assert sub() == Sub(1, 3)


def test_tagged():
    assert tagged() == Tagged(1, 2, "other")


def test_own():
    assert own() == Own(1, 2)
`;
  const CALC = `from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Span:
    start: int
    end: int


class Sub(Span):
    @property
    def minutes(self):
        return self.end - self.start


@dataclass(frozen=True, eq=False)
class Tagged(Span):
    tag: str = ""


class Own(Span):
    def __ne__(self, other):
        return False


def span():
    return Span(1, 2)


def sub():
    return Sub(1, 2)


def tagged():
    return Tagged(1, 2, "mine")


def own():
    return Own(1, 2)
`;

  it("a plain subclass matches by the base's fields, as its inherited __eq__ compares; a __ne__ on the way stays opaque", () => {
    const { judged, real, host } = pytestAndHost("tests/test_dc.py", TEST, CALC);
    expect(real).toEqual({
      test_span: "passed",
      test_sub: "passed",
      test_sub_wrong: "failed",
      test_tagged: "passed", // the generated __eq__ of Span compares start and end only
      test_own: "passed",
    });
    expect({ ...host, test_own: real.test_own }).toEqual(real);
    // Own's __ne__ is not the dataclass's: its values are not plain data (what it was before).
    expect(host.test_own).toBe("failed");
    expect(Object.values(judged.sites).filter((s) => s === "not-plain")).toHaveLength(1);
  });
});

describe("unittest.mock's call objects under pytest 7: recorded as calls, judged as _Call.__eq__ (brief s27 pyfix, item 2)", () => {
  const HEAD = `import unittest
from unittest import mock
from unittest.mock import call

from calc import sent, sent2


`;
  // sent(): a Mock that was called send("ann", urgent=False), then send("bob", urgent=False), then other.x(1).
  const CALC = `from unittest import mock


def sent():
    m = mock.Mock()
    m.send("ann", urgent=False)
    m.send("bob", urgent=False)
    m.other.x(1)
    return m


def sent2():
    m = mock.Mock()
    m(1)
    m.foo(2)
    return m
`;
  const ROWS: readonly Row[] = [
    ["test_call_args", 'sent().send.call_args == call("bob", urgent=False)', "passed"],
    ["test_call_args_wrong", 'sent().send.call_args == call("ann", urgent=False)', "failed"],
    ["test_call_args_positional", 'sent().send.call_args == call("bob", False)', "failed"],
    ["test_call_args_reversed", 'call("bob", urgent=False) == sent().send.call_args', "passed"],
    ["test_call_args_literal", 'sent().send.call_args == (("bob",), {"urgent": False})', "passed"],
    ["test_call_args_literal_wrong", 'sent().send.call_args == (("bob",), {"urgent": True})', "failed"],
    ["test_call_args_list_literal", 'sent().send.call_args == [("bob",), {"urgent": False}]', "passed"],
    ["test_call_args_args_list", 'sent().send.call_args == (["bob"], {"urgent": False})', "failed"],
    ["test_call_args_name", 'sent().send.call_args == ("send", ("bob",), {"urgent": False})', "passed"],
    ["test_call_args_one", 'sent().send.call_args == ("bob",)', "failed"],
    ["test_call_args_str", 'sent().send.call_args == "ab"', "failed"],
    ["test_call_args_none", "sent().send.call_args == None", "failed"],
    ["test_call_args_int", "sent().send.call_args == 3", "failed"],
    ["test_call_args_ne", 'sent().send.call_args != call("ann", urgent=False)', "passed"],
    ["test_call_args_ne_same", 'sent().send.call_args != call("bob", urgent=False)', "failed"],
    [
      "test_list",
      'sent().send.call_args_list == [call("ann", urgent=False), call("bob", urgent=False)]',
      "passed",
    ],
    [
      "test_list_order",
      'sent().send.call_args_list == [call("bob", urgent=False), call("ann", urgent=False)]',
      "failed",
    ],
    ["test_mock_calls", 'sent().mock_calls[0] == call.send("ann", urgent=False)', "passed"],
    ["test_mock_calls_name", 'sent().mock_calls[0] == call.other("ann", urgent=False)', "failed"],
    ["test_mock_calls_nested", "sent().mock_calls[2] == call.other.x(1)", "passed"],
    [
      "test_mock_calls_all",
      'sent().mock_calls == [call.send("ann", urgent=False), call.send("bob", urgent=False), call.other.x(1)]',
      "passed",
    ],
    ["test_mock_calls_literal", 'sent().mock_calls[0] == ("send", ("ann",), {"urgent": False})', "passed"],
    ["test_mock_calls_unnamed", 'sent().mock_calls[0] == call("ann", urgent=False)', "failed"],
    ["test_mock_calls_unnamed_left", 'call("ann", urgent=False) == sent().mock_calls[0]', "passed"],
    ["test_parents", "call.a.b(1) == call.a.b(1)", "passed"],
    ["test_parents_differ", "call.a.b(1) == call.c.b(1)", "failed"],
    ["test_method_calls", "sent().method_calls[-1] == call.other.x(1)", "passed"],
    // mock-calls-reflected (attack review s28): mock_calls is a _CallList, a list subclass, whose
    // reflected == answers first against a plain list on the left: its items are the left operands.
    ["test_list_left_unnamed", "[call(1), call(2)] == sent2().mock_calls", "failed"],
    ["test_list_right_unnamed", "sent2().mock_calls == [call(1), call.foo(2)]", "passed"],
    [
      "test_list_left_unnamed_ne",
      '[call("ann", urgent=False), call("bob", urgent=False), call(1)] != sent().mock_calls',
      "passed",
    ],
  ];
  const CASE = `

class CallCase(unittest.TestCase):
    def test_equal(self):
        self.assertEqual(sent().send.call_args, call("bob", urgent=False))

    def test_equal_wrong(self):
        self.assertEqual(sent().send.call_args, call("bob", urgent=True))

    def test_tuple_equal(self):
        self.assertTupleEqual(sent().send.call_args, (("bob",), {"urgent": False}))

    def test_list_equal(self):
        self.assertListEqual(sent().send.call_args_list, [call("ann", urgent=False), call("bob", urgent=False)])
`;

  it("the host's verdict is pytest's and unittest's, test by test, with no value left unjudged", () => {
    const TEST = `${oneAssertEach(HEAD, ROWS)}${CASE}`;
    const { plan, judged, real, host } = pytestAndHost("tests/test_calls.py", TEST, CALC);
    expect(plan.sites).toHaveLength(ROWS.length + 4);
    expect(real).toEqual({
      ...outcomes(ROWS),
      test_equal: "passed",
      test_equal_wrong: "failed",
      test_tuple_equal: "passed",
      test_list_equal: "passed",
    });
    expect(host).toEqual(real);
    expect(Object.values(judged.sites)).not.toContain("not-plain");
  });

  it("a _Call.__eq__ the code made answer True changes nothing on the host: it judges the recorded calls", () => {
    const TEST = `${HEAD}def test_patched():\n    assert sent().send.call_args == call("ann", urgent=False)\n\n\ndef test_patched_literal():\n    assert sent().send.call_args == (("ann",), {"urgent": False})\n`;
    const PATCHED = `${CALC}\n\nmock._Call.__eq__ = lambda self, other: True\nmock._Call.__ne__ = lambda self, other: False\n`;
    const { judged, real, host } = pytestAndHost("tests/test_calls.py", TEST, PATCHED);
    expect(real).toEqual({ test_patched: "passed", test_patched_literal: "passed" });
    expect(host).toEqual({ test_patched: "failed", test_patched_literal: "failed" });
    expect(Object.values(judged.sites)).toEqual(["mismatch", "mismatch"]);
  });
});

describe("numpy's long double and complex long double under pytest 7 and numpy 1.24 (brief s27 pyfix, item 3)", () => {
  const HEAD = `from decimal import Decimal
from fractions import Fraction

import pytest

from calc import v


`;
  const CALC = `import numpy as np

VALUES = {
    "third": np.longdouble(1) / 3,
    "five_thirds": np.longdouble(5) / 3,
    "half": np.longdouble(0.5),
    "big": np.longdouble(2**63),
    "edge": np.longdouble(1) + np.longdouble(1e-6) + np.longdouble(2) ** -60,
    "cthird": np.clongdouble(1) / 3,
    "chalf": np.clongdouble(0.5),
    "arr": np.array([1, 2], dtype=np.longdouble) / 3,
    "nan": np.longdouble("nan"),
}


def v(name):
    return VALUES[name]
`;
  const ROWS: readonly Row[] = [
    ["test_third_approx", 'v("third") == pytest.approx(1 / 3)', "passed"],
    ["test_third_eq", 'v("third") == 0.3333333333333333', "failed"],
    ["test_third_ne", 'v("third") != 0.3333333333333333', "passed"],
    ["test_five_thirds_rel", 'v("five_thirds") == pytest.approx(1.6666666666666667, rel=1e-9)', "passed"],
    ["test_five_thirds_far", 'v("five_thirds") == pytest.approx(1.6667)', "failed"],
    ["test_edge_approx", 'v("edge") == pytest.approx(1.0)', "failed"],
    ["test_edge_abs", 'v("edge") == pytest.approx(1.0, abs=1.1e-6)', "passed"],
    ["test_half", 'v("half") == 0.5', "passed"],
    ["test_half_fraction", 'v("half") == Fraction(1, 2)', "failed"],
    ["test_half_decimal", 'v("half") == Decimal("0.5")', "failed"],
    ["test_big", 'v("big") == 9223372036854775808', "failed"],
    ["test_big_float", 'v("big") == 9.223372036854776e18', "passed"],
    ["test_cthird_approx", 'v("cthird") == pytest.approx(1 / 3)', "passed"],
    ["test_cthird_eq", 'v("cthird") == 0.3333333333333333', "failed"],
    ["test_chalf", 'v("chalf") == 0.5', "passed"],
    ["test_chalf_fraction", 'v("chalf") == Fraction(1, 2)', "failed"],
    ["test_arr_approx", 'v("arr") == pytest.approx([1 / 3, 2 / 3])', "passed"],
    ["test_arr_list", 'list(v("arr")) == [0.3333333333333333, 0.6666666666666666]', "failed"],
    ["test_nan", 'v("nan") == pytest.approx(float("nan"), nan_ok=True)', "passed"],
  ];
  const CASE = `

import unittest


class LongCase(unittest.TestCase):
    def test_almost(self):
        self.assertAlmostEqual(v("five_thirds"), 1.6666666666666667)

    def test_almost_7(self):
        self.assertAlmostEqual(v("five_thirds"), 1.6666667)

    def test_almost_far(self):
        self.assertAlmostEqual(v("five_thirds"), 1.66667)

    def test_almost_places(self):
        self.assertAlmostEqual(v("third"), 0.3333, places=4)

    def test_almost_delta(self):
        self.assertAlmostEqual(v("third"), 0.3333333333333333, delta=1e-20)

    def test_almost_delta_wide(self):
        self.assertAlmostEqual(v("third"), 0.3333333333333333, delta=1e-16)
`;

  it("the host's verdict is numpy's and pytest's, test by test; no long double is left unjudged", () => {
    const TEST = `${oneAssertEach(HEAD, ROWS)}${CASE}`;
    const { judged, real, host } = pytestAndHost("tests/test_long.py", TEST, CALC);
    expect(real).toEqual({
      ...outcomes(ROWS),
      test_almost: "passed",
      test_almost_7: "passed",
      test_almost_far: "failed",
      test_almost_places: "passed",
      test_almost_delta: "failed",
      test_almost_delta_wide: "passed",
    });
    expect(host).toEqual(real);
    expect(Object.values(judged.sites)).not.toContain("not-plain");
  });
});

describe("the standard library's values with an __eq__ of their own, on a fresh plan under pytest 7 (brief s27 pyfix, item 2)", () => {
  const HEAD = `import array
import collections
import re
import unittest
import uuid
from datetime import date, datetime, timedelta
from pathlib import PurePosixPath
from types import SimpleNamespace

from calc import v


`;
  const CALC = `import array
import collections
import re
import uuid
from datetime import date, datetime, timedelta
from pathlib import PurePosixPath
from types import SimpleNamespace

VALUES = {
    "date": date(2020, 1, 2),
    "datetime": datetime(2020, 1, 2, 3, 4),
    "timedelta": timedelta(seconds=5),
    "path": PurePosixPath("a/b"),
    "uuid": uuid.UUID("12345678123456781234567812345678"),
    "deque": collections.deque([1, 2]),
    "ns": SimpleNamespace(a=1),
    "range": range(3),
    "array": array.array("i", [1, 2]),
    "regex": re.compile("a+"),
}


def v(name):
    return VALUES[name]
`;
  const ROWS: readonly Row[] = [
    ["test_date", 'v("date") == date(2020, 1, 2)', "passed"],
    ["test_date_wrong", 'v("date") == date(2020, 1, 3)', "failed"],
    ["test_dates", '[v("date")] == [date(2020, 1, 2)]', "passed"],
    ["test_datetime", 'v("datetime") == datetime(2020, 1, 2, 3, 4)', "passed"],
    ["test_timedelta", 'v("timedelta") == timedelta(seconds=5)', "passed"],
    ["test_path", 'v("path") == PurePosixPath("a/b")', "passed"],
    ["test_path_str", 'str(v("path")) == "a/b"', "passed"],
    ["test_uuid", 'v("uuid") == uuid.UUID("12345678123456781234567812345678")', "passed"],
    ["test_deque", 'v("deque") == collections.deque([1, 2])', "passed"],
    ["test_ns", 'v("ns") == SimpleNamespace(a=1)', "passed"],
    ["test_range", 'v("range") == range(3)', "passed"],
    ["test_array", 'v("array") == array.array("i", [1, 2])', "passed"],
    ["test_regex", 'v("regex") == re.compile("a+")', "passed"],
    ["test_ne", 'v("date") != date(2020, 1, 3)', "passed"],
  ];
  const CASE = `

class StdlibCase(unittest.TestCase):
    def test_equal(self):
        self.assertEqual(v("date"), date(2020, 1, 2))

    def test_equal_wrong(self):
        self.assertEqual(v("timedelta"), timedelta(seconds=6))
`;

  it("the container's comparison decides (a truth seal, or the runner): the host's verdict is pytest's, no value left unjudged", () => {
    const TEST = `${oneAssertEach(HEAD, ROWS)}${CASE}`;
    const { plan, judged, real, host } = pytestAndHost("tests/test_stdlib.py", TEST, CALC);
    expect(plan.sites.map((s) => s.kind)).toEqual([
      ...Array(6).fill("py.truth"),
      "py.eq",
      ...Array(7).fill("py.truth"),
    ]);
    expect(plan.unsealed.map((u) => u.rule)).toEqual(["unsealed.stdlib-value", "unsealed.stdlib-value"]);
    expect(real).toEqual({ ...outcomes(ROWS), test_equal: "passed", test_equal_wrong: "failed" });
    expect(host).toEqual(real);
    expect(Object.values(judged.sites)).not.toContain("not-plain");
  });
});

describe("numpy scalars, a list holding an array, a deque under pytest (eqdiff python seeds 1 and 2: correct fixes FAILed)", () => {
  const HEAD = "from calc import v\n";
  const ROWS: readonly Row[] = [
    ["test_float_list", 'v("f") == [-0.0]', "passed"],
    ["test_float_nested", 'v("f") == [[0.0]]', "passed"],
    ["test_list_float", '[-0.0] == v("f")', "passed"],
    ["test_bool_list", 'v("b") == [True]', "passed"],
    ["test_int_tuple", 'v("i") == (1,)', "passed"],
    ["test_int_wrong", 'v("i") == [2]', "failed"],
    ["test_int_two", 'v("i") == [1, 1]', "failed"],
    ["test_int_ne_two", 'v("i") != [1, 2]', "failed"],
    ["test_str_nul", 'v("s") == "a\\x00"', "passed"],
    ["test_str_stripped", 'v("s") == "a"', "failed"],
    ["test_bytes_nul", 'v("y") == b"a\\x00"', "passed"],
    ["test_list_of_array_ne", 'v("la") != 2.5', "passed"],
    ["test_list_of_array_ne_list", 'v("la") != [2.5]', "failed"],
    ["test_deque_ne", 'v("d") != []', "passed"],
    ["test_deque_eq", 'v("d") == []', "failed"],
    ["test_deque_deque", 'v("d") == v("d0")', "passed"],
  ];
  const CALC = `import numpy as np

from collections import deque

VALUES = {"f": np.float64(-0.0), "b": np.bool_(True), "i": np.int64(1), "s": np.str_("a\\x00"), "y": np.bytes_(b"a\\x00"),
          "la": [np.array([2.5])], "d": deque([]), "d0": deque()}


def v(name):
    return VALUES[name]
`;
  it("== against a list or tuple is numpy's element-wise one; a str_ or bytes_ keeps its trailing NULs", () => {
    const { plan, real, host } = pytestAndHost("tests/test_npscalar.py", oneAssertEach(HEAD, ROWS), CALC);
    expect(plan.sites).toHaveLength(ROWS.length);
    expect(real).toEqual(outcomes(ROWS));
    expect(host).toEqual(outcomes(ROWS));
  });
});

describe("a test's own local literal and py.test's marks under pytest 7 (six a611f60's shape)", () => {
  const TEST = `import sys

import py
import meta


@py.test.mark.skipif("sys.version_info[:2] < (3, 3)")
def test_add_metaclass_nested():
    class A:
        class B: pass

    expected = 'test_add_metaclass_nested.<locals>.A.B'

    assert A.B.__qualname__ == expected

    class A:
        @meta.add_metaclass(type)
        class B: pass

    assert A.B.__qualname__ == expected
`;
  const FIXED = `def add_metaclass(metaclass):
    def wrapper(cls):
        body = dict(cls.__dict__)
        body.pop("__dict__", None)
        body.pop("__weakref__", None)
        body["__qualname__"] = cls.__qualname__
        return metaclass(cls.__name__, cls.__bases__, body)
    return wrapper
`;
  /** Correct too, another way: the qualname copied after the class is made. */
  const OTHER = `def add_metaclass(metaclass):
    def wrapper(cls):
        made = metaclass(cls.__name__, cls.__bases__, {k: v for k, v in vars(cls).items() if k not in ("__dict__", "__weakref__", "__qualname__")})
        made.__qualname__ = cls.__qualname__
        return made
    return wrapper
`;
  const UNFIXED = FIXED.replace('        body["__qualname__"] = cls.__qualname__\n', "");

  const grade = (lib: string) => {
    const plan = sealPython(parsers, { path: "test_six.py", text: TEST, index: 0 })!;
    const run = runPytest({ "meta.py": lib, "test_six.py": plan.text }, ["test_six.py"]);
    return { plan, run, judged: judgeSeals(plan, run.records, run.tests) };
  };

  it("the fix and another correct fix PASS every seal; the unfixed code FAILs the second on the host; the literal is not in the file", () => {
    for (const lib of [FIXED, OTHER]) {
      const { plan, run, judged } = grade(lib);
      expect(plan.text).not.toContain("<locals>.A.B'");
      expect(plan.sites.map((s) => s.strength)).toEqual(["strong", "strong"]);
      expect(run.tests.map((t) => t.outcome)).toEqual(["passed"]);
      expect(judged.inconsistent).toBeNull();
      expect(Object.values(judged.sites)).toEqual(["matched", "matched"]);
    }
    const { run, judged } = grade(UNFIXED);
    expect(run.tests.map((t) => t.outcome)).toEqual(["passed"]);
    expect(judged.tests[0]!.outcome).toBe("failed");
    expect(judged.tests[0]!.message).toContain("expected: 'test_add_metaclass_nested.<locals>.A.B'");
  });
});

// Attack review s29 (atk), finding 3: a numpy long double of 2**128 or more is written as its exact
// numerator, `0x<hex>p-0` (_oracle_long_hex), up to 4,096 hex digits; the vocabulary read at most 32
// and a correct fix returning one was SEAL_RECORDS_INCONSISTENT.
describe("numpy long doubles past 2**128 (their numerator written whole)", () => {
  const HEAD = `from pytest import approx

from calc import v
`;
  const ROWS: readonly Row[] = [
    ["test_huge", 'v("huge") == v("huge")', "passed"],
    ["test_huge_twice", 'v("huge") == v("huge") * 2', "failed"],
    ["test_huge_approx", 'v("huge") == approx(v("huge"))', "passed"],
    ["test_neg", 'v("neg") == v("neg")', "passed"],
    ["test_neg_float", 'v("neg") == -1.6069380442589903e60', "failed"],
    ["test_neg_list", '[v("neg")] == [v("neg") + 2**137]', "failed"],
    ["test_tiny", 'v("tiny") == 0', "failed"],
  ];
  const CALC = `import numpy as np

VALUES = {
    "huge": np.longdouble(2) ** 16000,
    "tiny": np.nextafter(np.longdouble(0), np.longdouble(1)),
    "neg": -(np.longdouble(2) ** 200) - np.longdouble(2) ** 137,
}


def v(name):
    return VALUES[name]
`;
  it("are read, and judged as pytest judges them", () => {
    const { real, host } = pytestAndHost("tests/test_ld.py", oneAssertEach(HEAD, ROWS), CALC);
    expect(real).toEqual(outcomes(ROWS));
    expect(host).toEqual(real);
  });
});
