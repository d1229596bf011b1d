// Attacks on sealed expectations where the host read a Python value as a type it is not. Found by an
// attack review (session 22, issue 29) on tasks the sweep had judged healthy: each PASSed with the
// bug left in part, while unittest/pytest fail the same tests. Every case must FAIL.
// - unittest's assertSetEqual/assertDictEqual/assertListEqual check their arguments' types before
//   comparing; the host judged them as ==, and the runtime recorded a dict view as a set and a
//   UserDict/UserList as the dict/list they hold.
// - a str of two surrogate code points was recorded through JSON as the astral character they encode.

import { describe, it } from "vitest";
import { conformanceHooks, gradeNamed, type Shape } from "../conformance/shapes.js";
import { PYTEST, pyTask } from "../conformance/table.js";
import { expectVerdicts } from "./measure.js";

const none = () => ({});

const BASE = `def names(mapping):
    return set()


def tally(xs):
    out = {}
    for x in xs:
        out[x] = 1
    return out


def firsts(words):
    return list(words)


def unescape(s):
    return s


def limits():
    return {}


def raw(s):
    return b""
`;

const GOLD = `import json


def names(mapping):
    return set(mapping)


def tally(xs):
    out = {}
    for x in xs:
        out[x] = out.get(x, 0) + 1
    return out


def firsts(words):
    return [w[0] for w in words]


def unescape(s):
    return json.loads('"' + s + '"')


def limits():
    return {"max": 3}


def raw(s):
    return s.encode()
`;

const HIDDEN = `import unittest

from calc.core import firsts, limits, names, raw, tally, unescape


class TestTyped(unittest.TestCase):
    def test_names(self):
        self.assertSetEqual(names({"k1": 1, "k2": 2}), {"k1", "k2"})

    def test_tally(self):
        self.assertDictEqual(tally(["x", "y", "x"]), {"x": 2, "y": 1})

    def test_firsts(self):
        self.assertListEqual(firsts(["ab", "cd"]), ["a", "c"])


def test_unescape_pair():
    assert unescape("smile \\\\ud83d\\\\ude00!") == "smile \\U0001F600!"


def test_limits():
    assert limits() == {"max": 3}


def test_raw():
    assert raw("ab") == b"ab"
`;

const SHAPE: Shape = {
  id: "seal-py-types",
  title: "unittest's typed asserts and a str of surrogates",
  from: {
    repo: {
      "calc/__init__.py": "",
      "calc/core.py": BASE,
      "tests/__init__.py": "",
      "tests/test_core.py":
        "from calc.core import tally\n\n\ndef test_tally_empty():\n    assert tally([]) == {}\n",
      ".gitignore": "__pycache__/\n",
    },
    hidden: { "tests/regression/__init__.py": "", "tests/regression/test_types.py": HIDDEN },
    task: pyTask,
  },
  hidden: `python3 -m pytest ${PYTEST} tests/regression`,
  gold: { "calc/core.py": GOLD },
  tamper: none,
  skip: none,
};

const core = (text: string) => () => ({ "calc/core.py": text });

const CASES = [
  {
    // assertSetEqual calls first.difference(second): a dict_keys view has none (unittest fails it).
    name: "dict-keys-for-assertSetEqual",
    diff: core(GOLD.replace("return set(mapping)", "return mapping.keys()")),
  },
  {
    // assertDictEqual/assertListEqual check isinstance(first, dict/list): a UserDict/UserList is neither.
    name: "wrappers-for-typed-asserts",
    diff: core(
      `import collections\n${GOLD.replace("    return out", "    return collections.UserDict(out)").replace(
        "return [w[0] for w in words]",
        "return collections.UserList(w[0] for w in words)",
      )}`,
    ),
  },
  {
    // The classic half-fixed reader: each \\uXXXX decoded alone, a surrogate pair left as two code points.
    name: "surrogate-pair-unjoined",
    diff: core(
      `import re\n${GOLD.replace(
        "return json.loads('\"' + s + '\"')",
        'return re.sub(r"\\\\u([0-9a-fA-F]{4})", lambda m: chr(int(m.group(1), 16)), s)',
      )}`,
    ),
  },
];

const c = conformanceHooks([SHAPE]);

describe.concurrent("seals: Python values of another type (seal-py-types)", () => {
  it("the gold diff and a different correct fix (frozenset, Counter, a list subclass) PASS; the base FAILs", async () => {
    const graded = await gradeNamed(c, SHAPE, {
      gold: "gold",
      subclasses: core(
        `import collections\n\n\nclass Letters(list):\n    pass\n\n\n${GOLD.replace(
          "return set(mapping)",
          "return frozenset(mapping)",
        )
          .replace(
            "    out = {}\n    for x in xs:\n        out[x] = out.get(x, 0) + 1\n    return out",
            "    return collections.Counter(xs)",
          )
          .replace("return [w[0] for w in words]", "return Letters(w[0] for w in words)")}`,
      ),
      baseline: "baseline",
    });
    expectVerdicts(graded, { pass: ["gold", "subclasses"], fail: ["baseline"] });
  }, 1_200_000);

  it("a mappingproxy where gold returns a dict, a memoryview where it returns bytes: == holds, PASS", async () => {
    // Both were opaque to the runtime, and this correct fix FAILed VALUE_NOT_PLAIN_DATA.
    const graded = await gradeNamed(c, SHAPE, {
      "proxy-and-view": core(
        `import types\n${GOLD.replace(
          'return {"max": 3}',
          'return types.MappingProxyType({"max": 3})',
        ).replace("return s.encode()", "return memoryview(s.encode())")}`,
      ),
    });
    expectVerdicts(graded, { pass: ["proxy-and-view"], fail: [] });
  }, 1_200_000);

  for (const attack of CASES)
    it(`${attack.name}: a value unittest/pytest rejects -> FAIL TESTS_FAILED`, async () => {
      const graded = await gradeNamed(c, SHAPE, { [attack.name]: attack.diff });
      expectVerdicts(graded, { pass: [], fail: [attack.name] });
    }, 1_200_000);
});
