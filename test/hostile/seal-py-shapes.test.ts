// Python shapes whose verdict a seal plan got wrong, each named by what it does (brief s27 pyfix). The
// tasks are made on a fresh plan (no seals.recorded.json: no sweep has demoted anything), where a
// correct fix must PASS too.
// - mock-calls: `m.call_args_list == [call("ann", urgent=False), …]`, `m.call_args == (("bob",), {…})`
//   and `m.mock_calls == [call.send(…)]`: unittest.mock's call objects are tuples with an `__eq__` of
//   their own, recorded as opaque, so gold and every correct fix FAILed VALUE_NOT_PLAIN_DATA until a
//   sweep demoted the sites; and a diff patching `_Call.__eq__` to answer True must still FAIL.
// - unittest-alias-patch: a base conftest's autouse `mock.patch.multiple(Case, assertDictEqual=in_order)`
//   on `from unittest import TestCase as Case` (no string, no `TestCase` beside the patch) went unseen:
//   the hidden assertEqual was sealed as `==` and a diff that does not sort the keys PASSed where pytest
//   fails it.
// - runs-at-import: a test module that runs its suite as it loads and exits when it fails
//   (python-json-pointer d3966dd's tests.py): the seal runtime, appended after its last line, did not
//   exist yet, every test raised NameError, and the gold diff FAILed (unsealed.runs-at-import).

import { describe, expect, it } from "vitest";
import { conformanceHooks, gradeNamed, type Shape } from "../conformance/shapes.js";
import { PYTEST, pyRepo, pyTask } from "../conformance/table.js";
import { expectVerdicts } from "./measure.js";

const none = () => ({});

const NOTIFY = `def notify_all(sender, names):
    """Sends each name once, not urgent."""
    for name in names[:-1]:
        sender.send(name, urgent=False)
`;

const NOTIFY_HIDDEN = `import unittest
from unittest import mock
from unittest.mock import call

from notify import notify_all


def test_each_name_once():
    sender = mock.Mock()
    notify_all(sender, ["ann", "bob"])
    assert sender.send.call_args_list == [call("ann", urgent=False), call("bob", urgent=False)]


def test_last_call():
    sender = mock.Mock()
    notify_all(sender, ["ann", "bob"])
    assert sender.send.call_args == (("bob",), {"urgent": False})


def test_mock_calls():
    sender = mock.Mock()
    notify_all(sender, ["ann"])
    assert sender.mock_calls == [call.send("ann", urgent=False)]


class NotifyCase(unittest.TestCase):
    def test_last(self):
        sender = mock.Mock()
        notify_all(sender, ["ann", "bob"])
        self.assertEqual(sender.send.call_args, call("bob", urgent=False))
`;

const MOCK_CALLS: Shape = {
  id: "seal-py-mock-calls",
  title: "unittest.mock call objects compared with call(…) and with a literal (args, kwargs)",
  from: {
    repo: {
      "notify/__init__.py": NOTIFY,
      "tests/__init__.py": "",
      "tests/test_basic.py":
        "from unittest import mock\n\nfrom notify import notify_all\n\n\ndef test_none():\n    sender = mock.Mock()\n    notify_all(sender, [])\n    assert not sender.send.called\n",
      ".gitignore": "__pycache__/\n",
    },
    hidden: { "tests/regression/__init__.py": "", "tests/regression/test_notify.py": NOTIFY_HIDDEN },
    task: pyTask,
  },
  hidden: `python3 -m pytest ${PYTEST} tests/regression`,
  gold: { "notify/__init__.py": NOTIFY.replace("names[:-1]", "names") },
  tamper: none,
  skip: none,
};

/** Correct, not gold's: an index loop and the keyword passed through a dict. */
const CALLS_OTHER = () => ({
  "notify/__init__.py": `def notify_all(sender, names):
    options = {"urgent": False}
    for i in range(len(names)):
        sender.send(names[i], **options)
`,
});
/** Wrong: urgent passed by position (pytest fails call("ann", urgent=False) against call("ann", False)). */
const CALLS_POSITIONAL = () => ({
  "notify/__init__.py": NOTIFY.replace("names[:-1]", "names").replace("urgent=False", "False"),
});
/** Unfixed, with unittest.mock's _Call.__eq__ answering True to anything. */
const CALLS_EQ_TRUE = () => ({
  "notify/__init__.py": `from unittest import mock as _mock

_mock._Call.__eq__ = lambda self, other: True
_mock._Call.__ne__ = lambda self, other: False

${NOTIFY}`,
});

const ALIAS_CONFTEST = `from unittest import TestCase as Case
from unittest import mock

import pytest


def in_order(case, first, second, msg=None):
    """Canonical documents compare with their key order: JSON output keeps it."""
    if list(first.items()) != list(second.items()):
        case.fail(msg or f"{first!r} != {second!r} (in order)")


@pytest.fixture(autouse=True)
def ordered_dicts():
    with mock.patch.multiple(Case, assertDictEqual=in_order):
        yield
`;

const CANON = `def canon(doc):
    """The canonical form of a JSON object: keys sorted, None values dropped."""
    return dict(doc)
`;

const ALIAS_PATCH: Shape = {
  id: "seal-py-unittest-alias-patch",
  title: "unittest: a conftest's patch.multiple on TestCase imported under another name",
  from: {
    repo: {
      "canon/__init__.py": CANON,
      "tests/__init__.py": "",
      "tests/conftest.py": ALIAS_CONFTEST,
      "tests/test_basic.py": "from canon import canon\n\n\ndef test_empty():\n    assert canon({}) == {}\n",
      ".gitignore": "__pycache__/\n",
    },
    hidden: {
      "tests/regression/__init__.py": "",
      "tests/regression/test_canon.py": `import unittest

from canon import canon


class CanonTest(unittest.TestCase):
    def test_drops_none_and_sorts(self):
        self.assertEqual(canon({"c": 2, "a": None, "b": 1}), {"b": 1, "c": 2})
`,
    },
    task: pyTask,
  },
  hidden: `python3 -m pytest ${PYTEST} tests/regression`,
  gold: {
    "canon/__init__.py": CANON.replace(
      "return dict(doc)",
      "return {k: doc[k] for k in sorted(doc) if doc[k] is not None}",
    ),
  },
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

const RUNS_AT_IMPORT: Shape = {
  id: "seal-py-runs-at-import",
  title: "a unittest module that runs its suite as it loads and exits when it fails",
  from: {
    repo: pyRepo,
    hidden: {
      "tests/regression/__init__.py": "",
      "tests/regression/test_suite.py": `import sys
import unittest

from calc.core import add


class AddCase(unittest.TestCase):
    def test_small(self):
        self.assertEqual(add(2, 3), 5)

    def test_negative(self):
        self.assertEqual(add(-2, -3), -5)


suite = unittest.TestSuite()
suite.addTest(unittest.defaultTestLoader.loadTestsFromTestCase(AddCase))
result = unittest.TextTestRunner(verbosity=1).run(suite)
if not result.wasSuccessful():
    sys.exit(1)
`,
    },
    task: pyTask,
  },
  hidden: `python3 -m pytest ${PYTEST} tests/regression`,
  gold: { "calc/core.py": pyRepo["calc/core.py"].replace("a - b", "a + b") },
  tamper: none,
  skip: none,
};

const c = conformanceHooks([MOCK_CALLS, ALIAS_PATCH, RUNS_AT_IMPORT]);

describe("seals: Python shapes a fresh plan judged wrong (seal-py-shapes)", () => {
  it("mock-calls: gold and another correct fix PASS on a fresh plan; urgent by position and a _Call.__eq__ that answers True FAIL", async () => {
    const graded = await gradeNamed(c, MOCK_CALLS, {
      gold: "gold",
      other: CALLS_OTHER,
      positional: CALLS_POSITIONAL,
      eqtrue: CALLS_EQ_TRUE,
    });
    expectVerdicts(graded, { pass: ["gold", "other"], fail: ["positional", "eqtrue"] });
    const seals = graded.gold!.result.seals;
    expect(seals?.source).toBe("planned");
    expect(seals?.outcome, JSON.stringify(seals)).toEqual({
      matched: 4,
      mismatch: 0,
      notPlain: 0,
      notRun: 0,
    });
  }, 1_600_000);

  it("unittest-alias-patch: unsorted keys FAIL under a conftest's patch.multiple(Case, assertDictEqual=…); gold PASSes", async () => {
    const graded = await gradeNamed(c, ALIAS_PATCH, { gold: "gold", nosort: NOSORT });
    expectVerdicts(graded, { pass: ["gold"], fail: ["nosort"] });
  }, 1_600_000);

  it("runs-at-import: gold PASSes, the base FAILs (the module is not sealed)", async () => {
    const graded = await gradeNamed(c, RUNS_AT_IMPORT, { gold: "gold", base: "baseline" });
    expectVerdicts(graded, { pass: ["gold"], fail: ["base"] });
    expect(graded.gold!.result.seals?.sealed.strong ?? 0).toBe(0);
  }, 1_600_000);
});
