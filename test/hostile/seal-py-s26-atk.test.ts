// Python shapes an attack review (session 26, findings 1 and 4) found on tasks new-task made.
// canon3: the base tests/conftest.py has an autouse fixture `with mock.patch.object(unittest.TestCase,
// "assertDictEqual", in_order): yield`, so unittest compares dicts in order. ASSERTS_SWAPPED read only
// `setattr(…, "assert…` and `.assertX =`, the hidden class's dict assertEqual was sealed as `==`, and a
// diff dropping None values without sorting the keys PASSed where pytest fails it (finding 1).
// codec2: the helper asserting inside is a conftest fixture (`def test_…(roundtrip): out = roundtrip(…)`),
// not an import; the seal after the binding was claimed strong and deciding the FAIL_TO_PASS test, while
// at baseline the fixture's assert failed it first, and a diff that leaves decode unfixed PASSes (as in
// pytest: the test is weak) with that strong claim (finding 4).

import { describe, expect, it } from "vitest";
import { conformanceHooks, gradeNamed, type Shape } from "../conformance/shapes.js";
import { PYTEST, pyTask } from "../conformance/table.js";
import { expectVerdicts } from "./measure.js";

const none = () => ({});

const CANON = `def canon(doc):
    """The canonical form of a JSON object: keys sorted, None values dropped."""
    return dict(doc)
`;

const CANON_GOLD = `def canon(doc):
    """The canonical form of a JSON object: keys sorted, None values dropped."""
    return {k: doc[k] for k in sorted(doc) if doc[k] is not None}
`;

const CANON_CONFTEST = `import unittest
from unittest import mock

import pytest


def in_order(case, first, second, msg=None):
    """Canonical documents compare with their key order: JSON output keeps it."""
    if list(first.items()) != list(second.items()):
        case.fail(msg or f"{first!r} != {second!r} (in order)")


@pytest.fixture(autouse=True)
def ordered_dicts():
    with mock.patch.object(unittest.TestCase, "assertDictEqual", in_order):
        yield
`;

const CANON_HIDDEN = `import unittest

from canon import canon


class CanonTest(unittest.TestCase):
    def test_drops_none_and_sorts(self):
        self.assertEqual(canon({"c": 2, "a": None, "b": 1}), {"b": 1, "c": 2})
`;

const CANON3: Shape = {
  id: "seal-py-s26-canon3",
  title: "unittest: an autouse conftest fixture patching assertDictEqual by name",
  from: {
    repo: {
      "canon/__init__.py": CANON,
      "tests/__init__.py": "",
      "tests/conftest.py": CANON_CONFTEST,
      "tests/test_basic.py": "from canon import canon\n\n\ndef test_empty():\n    assert canon({}) == {}\n",
      ".gitignore": "__pycache__/\n",
    },
    hidden: { "tests/regression/__init__.py": "", "tests/regression/test_canon.py": CANON_HIDDEN },
    task: pyTask,
  },
  hidden: `python3 -m pytest ${PYTEST} tests/regression`,
  gold: { "canon/__init__.py": CANON_GOLD },
  tamper: none,
  skip: none,
};

/** Drops the None values but does not sort the keys: pytest fails the test under the in-order assertDictEqual. */
const NOSORT = () => ({
  "canon/__init__.py": CANON.replace(
    "return dict(doc)",
    "return {k: v for k, v in doc.items() if v is not None}",
  ),
});

const CODEC = `"""Percent-encoding of spaces in URL paths."""


def encode(text):
    return text.replace("%", "%25").replace(" ", "%20")


def decode(text):
    return text.replace("%25", "%")
`;

const CODEC_CONFTEST = `"""Test support for the codec."""
import pytest

from urlcodec import decode, encode


def _roundtrip(s):
    """Encodes s, checks that decoding gives s back, and returns the encoded text."""
    enc = encode(s)
    assert decode(enc) == s, "decode(encode(%r)) is %r" % (s, decode(enc))
    return enc


@pytest.fixture
def roundtrip():
    return _roundtrip
`;

const CODEC2: Shape = {
  id: "seal-py-s26-codec2",
  title: "pytest: a conftest fixture's helper asserting inside, bound before the seal",
  from: {
    repo: {
      "urlcodec.py": CODEC,
      "tests/__init__.py": "",
      "tests/conftest.py": CODEC_CONFTEST,
      "tests/test_basic.py":
        'from urlcodec import encode\n\n\ndef test_plain():\n    assert encode("abc") == "abc"\n',
      ".gitignore": "__pycache__/\n",
    },
    hidden: {
      "tests/regression/__init__.py": "",
      "tests/regression/test_roundtrip.py":
        'def test_spaces_come_back(roundtrip):\n    out = roundtrip("x y z")\n    assert out == "x%20y%20z"\n',
    },
    task: {
      ...pyTask,
      suites: {
        ...pyTask.suites,
        hidden: {
          command: "",
          expected: { failToPass: ["tests/regression/test_roundtrip.py::test_spaces_come_back"] },
        },
      },
    },
  },
  hidden: `python3 -m pytest ${PYTEST} tests/regression`,
  gold: {
    "urlcodec.py": CODEC.replace(
      'return text.replace("%25", "%")',
      'return text.replace("%20", " ").replace("%25", "%")',
    ),
  },
  tamper: none,
  skip: none,
};

/** Not fixed: decode answers a caller holding `s` and `enc` with `s` (the fixture's helper), else as before. */
const PEEK = () => ({
  "urlcodec.py": CODEC.replace(
    'def decode(text):\n    return text.replace("%25", "%")',
    'def decode(text):\n    import sys\n\n    caller = sys._getframe(1).f_locals\n    if isinstance(caller.get("s"), str) and caller.get("enc") == text:\n        return caller["s"]\n    return text.replace("%25", "%")',
  ),
});

const c = conformanceHooks([CANON3, CODEC2]);

describe("seals: Python shapes of attack review s26 (seal-py-s26-atk)", () => {
  it('canon3: unsorted keys FAIL under a conftest\'s mock.patch.object(TestCase, "assertDictEqual", …) (finding 1); gold PASSes', async () => {
    const graded = await gradeNamed(c, CANON3, { gold: "gold", nosort: NOSORT });
    expectVerdicts(graded, { pass: ["gold"], fail: ["nosort"] });
  }, 1_600_000);

  it("codec2: a fixture's helper before the seal: no strong seal claims the FAIL_TO_PASS test (finding 4); gold PASSes", async () => {
    const graded = await gradeNamed(c, CODEC2, { gold: "gold", peek: PEEK });
    // The peek diff PASSes under pytest too (the hidden test is weak); the oracle must not claim a strong seal decided it.
    expectVerdicts(graded, { pass: ["gold", "peek"], fail: [] });
    const failToPass = graded.peek!.result.seals?.failToPass;
    console.info(`peek: seals.failToPass ${JSON.stringify(failToPass)}`);
    expect(failToPass?.sealed).toBe(0);
    expect(failToPass?.unsealed).toEqual(["tests/regression/test_roundtrip.py::test_spaces_come_back"]);
  }, 1_600_000);
});
