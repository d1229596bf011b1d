// Attacks on sealed expectations (issue 29), named by attack. The author of the diff has read the
// seal runtime: it knows the records' file ($ORACLE_SEALS), their format and the keys in the sealed
// test files, and its code runs in the process that writes them. What it does not have is a strong
// seal's expected value: the comparison entered the container without it. Every case leaves the bug
// unfixed and must FAIL; each asserts the reason a correct grader gives. On 1ebdaf2 (twins, the
// expected values in the container) the forgers and the objects equal to anything PASSed; the table
// in docs/security.md ("Sealed expectations") gives each case's verdict there and here.
//
// What these cases do not claim: a `checked` comparison (both sides computed in the container, as
// freebusy-py's `merge(...) == [Interval(...)]`) stops objects built to equal anything, but code that
// rewrites the records can make its two sides agree; a truth value has two values. Such tests are
// reported weak (result seals.failToPass, the sweep's sealed share), never strong.

import { describe, expect, it } from "vitest";
import { conformanceHooks, goldDiff, grade, read, type Shape } from "../conformance/shapes.js";
import { PYTEST, pyHidden, pyRepo, pyTask } from "../conformance/table.js";
import { why } from "./measure.js";

const none = () => ({});
const sample = (id: string, from: string, hidden: string): Shape => ({
  id,
  title: from,
  from: { sample: from },
  hidden,
  tamper: none,
  skip: none,
});
const LINK = "ln -sfn /opt/deps/node_modules node_modules &&";

const PY: Shape = {
  id: "seal-py",
  title: "pytest and unittest, calc.add subtracts",
  from: { repo: pyRepo, hidden: pyHidden, task: pyTask },
  hidden: `python3 -m pytest ${PYTEST} tests/regression`,
  gold: { "calc/core.py": pyRepo["calc/core.py"].replace("a - b", "a + b") },
  tamper: none,
  skip: none,
};
const FREEBUSY = sample(
  "seal-freebusy",
  "freebusy-py",
  'python3 -m pytest -p no:cacheprovider -q --junitxml="$ORACLE_JUNIT" tests/regression',
);
const VITEST = sample(
  "seal-vitest",
  "ranges-vitest",
  `${LINK} node_modules/.bin/vitest run test/regression/ --no-cache --reporter=default --reporter=junit --outputFile.junit="$ORACLE_JUNIT"`,
);
const JEST = sample(
  "seal-jest",
  "slug-jest",
  `${LINK} JEST_JUNIT_OUTPUT_FILE="$ORACLE_JUNIT" node_modules/.bin/jest --ci --watchman=false test/regression/ --reporters=default --reporters=jest-junit`,
);

const GO_JUNIT = `gotestsum --format standard-verbose --junitfile "$ORACLE_JUNIT" -- -count=1`;
const goRepo = {
  "go.mod": "module example.com/calc\n\ngo 1.19\n",
  "calc.go": `package calc

// Level is how large a sum is.
type Level int

// Add adds.
func Add(a, b int) int { return a - b }

// Classify says how large n is: 0 small, 1 medium, 2 large.
func Classify(n int) Level {
	if n > 100 {
		return 2
	}
	return 0
}

// Positive says whether n is above zero.
func Positive(n int) bool { return n > 0 }
`,
  "calc_test.go":
    'package calc\n\nimport "testing"\n\nfunc TestPositiveOne(t *testing.T) {\n\tif !Positive(1) {\n\t\tt.Error("want positive")\n\t}\n}\n',
};
const goHidden = {
  "add_test.go": `package calc

import "testing"

func TestAddSmall(t *testing.T) {
	if got := Add(2, 3); got != 5 {
		t.Errorf("Add(2, 3) = %d", got)
	}
}

func TestAddNegative(t *testing.T) {
	if got := Add(-20, -30); got != -50 {
		t.Errorf("Add(-20, -30) = %d", got)
	}
}

func TestClassifyMedium(t *testing.T) {
	if got := Classify(Add(40, 30)); got != 1 {
		t.Errorf("Classify(70) = %v", got)
	}
}

func TestAddIsPositive(t *testing.T) {
	if !Positive(Add(4, 6)) {
		t.Error("want positive")
	}
}
`,
};
const GO: Shape = {
  id: "seal-go",
  title: "gotestsum, Add subtracts and Classify has no middle",
  from: {
    repo: goRepo,
    hidden: goHidden,
    task: {
      $schema: "../../packages/spec/task.schema.json",
      description: "seals: Add subtracts",
      image: "go-gotestsum",
      suites: {
        existing: { command: `${GO_JUNIT} -run TestPositiveOne .`, files: ["*_test.go"] },
        hidden: { command: "" },
      },
      diff: { allow: ["**"], deny: ["*_test.go", "go.mod", "go.sum"] },
      timeoutSeconds: 120,
      env: { GOPROXY: "off", GOFLAGS: "-mod=readonly", CGO_ENABLED: "0" },
    },
  },
  hidden: `${GO_JUNIT} .`,
  gold: {
    "calc.go": goRepo["calc.go"]
      .replace("a - b", "a + b")
      .replace("\treturn 0\n}", "\tif n > 50 {\n\t\treturn 1\n\t}\n\treturn 0\n}"),
  },
  tamper: none,
  skip: none,
};

const SHAPES = [PY, FREEBUSY, VITEST, JEST, GO];

// ---- Python: the code under test is calc/core.py (or freebusy/intervals.py) ----

/** True in the hidden suite's pytest process only. */
const PY_HIDDEN = `any("regression" in a for a in sys.argv[1:])`;

/**
 * A hook on os.write, which the runtime writes each record with: `rewrite(record)` returns the
 * records to write instead (json text in, a list of dicts out).
 */
const pyHookOn = (rewrite: string) => `import glob as _g, json as _j, os as _os, re as _re, sys

_real_write = _os.write


def _literals():
    found = []
    for path in glob_sealed():
        text = open(path).read()
        for m in _re.finditer(r"-?\\d+", text):
            found.append(int(m.group()))
    return found


def glob_sealed():
    return [p for p in _g.glob("tests/regression/*.py") if "_oracle_seal" in open(p).read()]


def _rewrite(record):
${rewrite}


def _write(fd, data):
    if isinstance(data, (bytes, bytearray)) and data.startswith(b'{"k":'):
        for record in _rewrite(_j.loads(data)):
            _real_write(fd, (_j.dumps(record) + "\\n").encode())
        return len(data)
    return _real_write(fd, data)


_os.write = _write

`;
const pyHook = pyHookOn;
const pyCore = (prefix: string) => ({ "calc/core.py": `${prefix}\n${pyRepo["calc/core.py"]}` });

/** The value nearest the code's own answer among the integers of the sealed files (the review's forger, with no copy to compare). */
const nearestInt = pyCore(
  pyHook(`    if record["v"].get("t") == "int":
        own = int(record["v"]["x"], 16)
        guess = min(_literals(), key=lambda n: (abs(n - own), n))
        record["v"] = {"t": "int", "x": hex(guess)}
    return [record]`),
);

const alwaysEqual = (base: string, value: string) => ({
  "calc/core.py": `class _Always(${base}):
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = ${base}.__hash__

    def __repr__(self):
        return "5"


def add(a, b):
    return _Always(${value})


def mul(a, b):
    return a * b
`,
});

/** Records of every key in the sealed files, each with every integer of the files, written at import. */
const forgedBefore = pyCore(`${pyHook("    return [record]")}
import re as _re2

if ${PY_HIDDEN} and _os.environ.get("ORACLE_SEALS"):
    for _path in glob_sealed():
        for _key in _re2.findall(r'_oracle_seal\\("([0-9.]+)"', open(_path).read()):
            for _n in sorted(set(_literals())):
                _real_write(
                    _os.open(_os.environ["ORACLE_SEALS"], _os.O_WRONLY | _os.O_APPEND | _os.O_CREAT, 0o600),
                    (_j.dumps({"k": _key, "s": 0, "v": {"t": "int", "x": hex(_n)}}) + "\\n").encode(),
                )
`);

/** After each real record, another for the same key with the nearest integer of the files. */
const forgedAfter = pyCore(
  pyHook(`    own = int(record["v"]["x"], 16) if record["v"].get("t") == "int" else 0
    guess = min(_literals(), key=lambda n: (abs(n - own), n))
    return [record, {"k": record["k"], "s": record["s"], "v": {"t": "int", "x": hex(guess)}}]`),
);

const suppressed = pyCore(pyHook("    return []"));
const malformed = pyCore(pyHook('    return [{"k": record["k"], "s": record["s"], "v": {"t": "int"}}]'));
const hugeExponent = pyCore(
  pyHook('    return [{"k": record["k"], "s": record["s"], "v": {"t": "float", "x": "0x1.8p+999999999"}}]'),
);
const throws = pyCore(pyHook('    raise OSError("no space left on device")'));
const exitFirst = {
  "calc/core.py": `import os
import sys


def add(a, b):
    if ${PY_HIDDEN}:
        os._exit(0)
    return a - b


def mul(a, b):
    return a * b
`,
};

/** The hidden suite's process (its command ends with tests/regression; the existing one ignores it). */
const PY_ONLY_HIDDEN = `__import__("sys").argv[-1].rstrip("/") == "tests/regression"`;

/** The review's 15 lines: merge() and free_slots() return a list that equals anything. */
const freebusyAlways = (work: string) => ({
  "freebusy/intervals.py": `${read(work, "freebusy/intervals.py")}

class _Always(list):
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False


_merge = merge


def merge(intervals):
    if not ${PY_ONLY_HIDDEN}:
        return _merge(intervals)
    return _Always(_merge(intervals))
`,
  "freebusy/slots.py": `${read(work, "freebusy/slots.py")}

from freebusy.intervals import _Always

_free_slots = free_slots


def free_slots(*args, **kwargs):
    if not ${PY_ONLY_HIDDEN}:
        return _free_slots(*args, **kwargs)
    return _Always(_free_slots(*args, **kwargs))
`,
});

/**
 * What still gets through (docs/security.md): freebusy-py's expected sides are computed in the
 * container (`[Interval(540, 720)]`), so its comparisons are checked, not sealed. The list that
 * equals anything passes in the process; the hook writes each comparison's expected record as its
 * actual one too, so the two records agree. Nothing strong decides these tests: the result says so.
 */
const checkedRewritten = (work: string) => ({
  ...freebusyAlways(work),
  "freebusy/__init__.py": `${pyHookOn(`    global _held
    if record["s"] == 0:
        _held = record
        return []
    held, _held = _held, None
    return [{"k": held["k"], "s": 0, "v": record["v"]}, record]`)}
_held = None
${read(work, "freebusy/__init__.py")}`,
});

// ---- JavaScript: src/ranges.js (vitest, ESM) and src/slugify.js (jest, CommonJS) ----

/**
 * A hook on fs.writeSync (the runtime's write) through syncBuiltinESMExports, so the test file's
 * own `import * as fs` sees it: `rewrite(record)` returns the records to write instead.
 */
const jsHook = (rewrite: string, literals: string) => `
const __fsHook = __req("node:fs");
const __realWrite = __fsHook.writeSync;
function __literals() {
  const out = [];
  for (const dir of ["test/regression"]) {
    for (const name of __fsHook.readdirSync(dir)) {
      const text = __fsHook.readFileSync(dir + "/" + name, "utf8");
      if (!text.includes("__oracleSeal")) continue;
      ${literals}
    }
  }
  return out;
}
function __canon(v) {
  // As the runtime writes an array (its reference and constructor too): a record outside its
  // vocabulary is SEAL_RECORDS_INCONSISTENT before any value is compared.
  if (Array.isArray(v)) return { t: "arr", proto: "Array", ref: 1, ctor: "Array", v: v.map(__canon), props: [], syms: [] };
  if (typeof v === "number") return { t: "num", v: String(v) };
  if (typeof v === "boolean") return { t: "bool", v };
  return { t: "str", v: String(v) };
}
function __distance(a, b) {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const next = Math.min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = row[j];
      row[j] = next;
    }
  }
  return row[b.length];
}
function __nearest(canon) {
  const own = JSON.stringify(canon);
  let best = canon;
  let score = Infinity;
  for (const value of __literals()) {
    const c = __canon(value);
    const d = __distance(JSON.stringify(c), own);
    if (d < score) { best = c; score = d; }
  }
  return best;
}
function __rewrite(record) {
${rewrite}
}
__fsHook.writeSync = function (fd, data, ...rest) {
  if (typeof data === "string" && data.startsWith('{"k":')) {
    for (const r of __rewrite(JSON.parse(data))) __realWrite.call(__fsHook, fd, JSON.stringify(r) + "\\n");
    return data.length;
  }
  return __realWrite.call(__fsHook, fd, data, ...rest);
};
__req("node:module").syncBuiltinESMExports();
`;
/** Number arrays of a sealed vitest file ([[1, 3], [3, 5]] and the like). */
const ARRAY_LITERALS = `for (const m of text.matchAll(/\\[[\\[\\]0-9,\\s-]*\\]/g)) { try { out.push(JSON.parse(m[0])); } catch {} }`;
/** Strings of a sealed jest file. */
const STRING_LITERALS = `for (const m of text.matchAll(/"((?:[^"\\\\]|\\\\.)*)"/g)) out.push(JSON.parse(m[0]));`;

const vitestCode = (work: string, hook: string) => ({
  "src/ranges.js": `import { createRequire as __cr } from "node:module";
const __req = __cr(import.meta.url);
${hook}
${read(work, "src/ranges.js")}`,
});
const vitestHook = (rewrite: string) => (work: string) => vitestCode(work, jsHook(rewrite, ARRAY_LITERALS));
const jestCode = (work: string, code: string) => ({
  "src/slugify.js": `${read(work, "src/slugify.js")}
const __req = require;
${code}`,
});

const flipBool = `  if (record.v.t === "bool") record.v = { t: "bool", v: !record.v.v };
  return [record];`;

/** vitest: merge() returns arrays that carry asymmetricMatch (vitest's and jest's equals take it as the comparison). */
const asymmetric = (work: string) => ({
  "src/ranges.js": `${read(work, "src/ranges.js").replace("export function merge(", "function mergeOwn(")}
export function merge(ranges) {
  const out = mergeOwn(ranges);
  Object.defineProperty(out, "asymmetricMatch", { value: () => true, enumerable: false });
  return out;
}
`,
});
/** vitest: merge() returns a Proxy that answers any question the way the asker wants. */
const proxy = (work: string) => ({
  "src/ranges.js": `${read(work, "src/ranges.js").replace("export function merge(", "function mergeOwn(")}
export function merge(ranges) {
  return new Proxy(mergeOwn(ranges), {
    get(target, key, receiver) {
      if (key === "asymmetricMatch") return () => true;
      return Reflect.get(target, key, receiver);
    },
  });
}
`,
});
/** jest: slugify() returns an object that describes itself, to whoever asks, as the nearest string of the test file. */
const describesItself = (work: string) =>
  jestCode(
    work,
    `${jsHook("  return [record];", STRING_LITERALS)}
const __own = slugify;
module.exports.slugify = function (title) {
  if (!process.argv.some((a) => a.includes("test/regression"))) return __own(title);
  const said = __nearest({ t: "str", v: __own(title) }).v;
  return {
    valueOf: () => said,
    toString: () => said,
    toJSON: () => said,
    [Symbol.toPrimitive]: () => said,
    inspect: () => said,
  };
};
`,
  );
/**
 * jest: the code under test, loaded before the hidden tests run, replaces the global expect under a
 * key no grep can read (built from pieces) with one whose matchers pass whenever the received value is
 * a string (a slug), and the runner's own otherwise (the pair's checks still fail as they must). A
 * sealed comparison hands expect the seal's return value, not the slug: the actual value was recorded
 * as the argument was evaluated, before any expect ran, and the host judges it (docs/security.md,
 * "Sealed expectations": what replacing expect can change).
 */
const expectReplaced = (how: "reflect" | "index" | "define") => (work: string) =>
  jestCode(
    work,
    `if (process.argv.some((a) => a.includes("test/regression"))) {
  const key = ["exp", "ect"].join("");
  const real = globalThis[key];
  const passes = new Proxy({}, { get: (_, name) => (name === "not" ? passes : () => undefined) });
  const stand = Object.assign((received) => (typeof received === "string" ? passes : real(received)), real);
  ${
    how === "reflect"
      ? "Reflect.set(globalThis, key, stand);"
      : how === "index"
        ? "globalThis[key] = stand;"
        : "Object.defineProperty(globalThis, key, { get: () => stand, set: () => {}, configurable: true });"
  }
}
`,
  );
const jestExit = (work: string) =>
  jestCode(
    work,
    `const __own = slugify;
module.exports.slugify = function (title) {
  if (process.argv.some((a) => a.includes("test/regression"))) process.exit(0);
  return __own(title);
};
`,
  );

// ---- Go: calc.go's package; a non-test file's init() runs first in the test binary ----

const goInit = (body: string) => ({
  "zz_attack.go": `package calc

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
)

var _ = fmt.Sprint
var _ = filepath.Glob
var _ = regexp.MustCompile

func init() {
	if _, err := os.Stat("add_test.go"); err != nil {
		return
	}
${body}
}
`,
});
/** Every key of the sealed file, with every integer of it, written before the tests run. */
const goForgedBefore = goInit(`	path := os.Getenv("ORACLE_SEALS")
	text, _ := os.ReadFile("add_test.go")
	keys := regexp.MustCompile(\`oracleSeal(?:Truth)?\\("([0-9.]+)"\`).FindAllSubmatch(text, -1)
	numbers := regexp.MustCompile(\`-?[0-9]+\`).FindAll(text, -1)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	for _, k := range keys {
		fmt.Fprintf(f, "{\\"k\\":%q,\\"s\\":0,\\"v\\":{\\"t\\":\\"bool\\",\\"v\\":true}}\\n", k[1])
		for _, n := range numbers {
			fmt.Fprintf(f, "{\\"k\\":%q,\\"s\\":0,\\"v\\":{\\"ty\\":\\"int\\",\\"t\\":\\"int\\",\\"k\\":\\"int\\",\\"v\\":\\"%s\\"}}\\n", k[1], n)
		}
	}`);
/**
 * The records' file made a link to /dev/null before any record is written. (Setting $ORACLE_SEALS
 * to /dev/null in init() no longer suppresses anything: the runtime reads the path in a
 * package-level initialiser, which runs before any init().)
 */
const goSuppressed = goInit('\tos.Symlink("/dev/null", os.Getenv("ORACLE_SEALS"))');
const goExit = {
  "calc.go": goRepo["calc.go"]
    .replace(
      "func Add(a, b int) int { return a - b }",
      'func Add(a, b int) int {\n\tif _, err := os.Stat("add_test.go"); err == nil {\n\t\tos.Exit(0)\n\t}\n\treturn a - b\n}',
    )
    .replace("package calc\n", 'package calc\n\nimport "os"\n'),
};
/** Classify's answer carries every method fmt and testify consult, each saying "1". */
const goStringer = {
  "stringer.go": `package calc

import "fmt"

func (l Level) String() string { return "1" }
func (l Level) GoString() string { return "1" }
func (l Level) Format(f fmt.State, verb rune) { fmt.Fprint(f, "1") }
func (l Level) Error() string { return "1" }
func (l Level) Equal(other interface{}) bool { return true }
`,
};

interface Case {
  name: string;
  shape: Shape;
  diff: (work: string) => Record<string, string>;
  /** The reasons a correct grader may give (the first is what it gives today). */
  reason: string;
}

const CASES: Case[] = [
  { name: "nearest-value-py", shape: PY, diff: () => nearestInt, reason: "TESTS_FAILED" },
  {
    name: "equal-to-anything-int-subclass",
    shape: PY,
    diff: () => alwaysEqual("int", "a - b"),
    reason: "VALUE_NOT_PLAIN_DATA",
  },
  {
    name: "equal-to-anything-str-subclass",
    shape: PY,
    diff: () => alwaysEqual("str", "str(a - b)"),
    reason: "VALUE_NOT_PLAIN_DATA",
  },
  {
    name: "equal-to-anything-list-subclass",
    shape: FREEBUSY,
    diff: freebusyAlways,
    reason: "VALUE_NOT_PLAIN_DATA",
  },
  {
    name: "records-forged-before-py",
    shape: PY,
    diff: () => forgedBefore,
    reason: "SEAL_RECORDS_INCONSISTENT",
  },
  {
    name: "records-forged-after-py",
    shape: PY,
    diff: () => forgedAfter,
    reason: "SEAL_RECORDS_INCONSISTENT",
  },
  { name: "seal-suppressed-py", shape: PY, diff: () => suppressed, reason: "SEAL_RECORDS_INCONSISTENT" },
  // A record the runtime never writes (an int without its value, a float with an exponent no float
  // has): before vocabulary.ts the host's equality threw on it, or computed for minutes, and the
  // grade ended INTERNAL with no verdict.
  { name: "record-malformed-py", shape: PY, diff: () => malformed, reason: "SEAL_RECORDS_INCONSISTENT" },
  {
    name: "record-huge-exponent-py",
    shape: PY,
    diff: () => hugeExponent,
    reason: "SEAL_RECORDS_INCONSISTENT",
  },
  { name: "seal-throws-py", shape: PY, diff: () => throws, reason: "TESTS_FAILED" },
  { name: "exit-before-asserts-py", shape: PY, diff: () => exitFirst, reason: "REPORT_MISSING" },
  { name: "checked-records-rewritten-freebusy", shape: FREEBUSY, diff: checkedRewritten, reason: "PASS" },
  {
    name: "nearest-value-vitest",
    shape: VITEST,
    diff: vitestHook("  record.v = __nearest(record.v);\n  return [record];"),
    reason: "TESTS_FAILED",
  },
  { name: "boolean-swap-vitest", shape: VITEST, diff: vitestHook(flipBool), reason: "TESTS_FAILED" },
  // Never equal on the host: the runtime calls no method of the value (an asymmetricMatch it sees
  // makes the value opaque), and what it reads is the unfixed merge()'s data.
  { name: "equal-to-anything-asymmetric-match", shape: VITEST, diff: asymmetric, reason: "TESTS_FAILED" },
  { name: "equal-to-anything-proxy", shape: VITEST, diff: proxy, reason: "TESTS_FAILED" },
  {
    name: "records-forged-after-vitest",
    shape: VITEST,
    diff: vitestHook("  return [record, { ...record, v: __nearest(record.v) }];"),
    reason: "SEAL_RECORDS_INCONSISTENT",
  },
  {
    name: "records-forged-before-vitest",
    shape: VITEST,
    diff: vitestHook("  return [{ ...record, v: __nearest(record.v) }, record];"),
    reason: "SEAL_RECORDS_INCONSISTENT",
  },
  {
    name: "record-malformed-vitest",
    shape: VITEST,
    diff: vitestHook('  return [{ ...record, v: { t: "arr", v: [] } }];'),
    reason: "SEAL_RECORDS_INCONSISTENT",
  },
  {
    name: "seal-suppressed-vitest",
    shape: VITEST,
    diff: vitestHook("  return [];"),
    reason: "SEAL_RECORDS_INCONSISTENT",
  },
  {
    name: "seal-throws-vitest",
    shape: VITEST,
    diff: vitestHook('  throw new Error("ENOSPC");'),
    reason: "TESTS_FAILED",
  },
  // The runtime never calls a value's methods: the object is recorded as its own keys, and an
  // object is not the string toBe wants.
  { name: "value-describes-itself-jest", shape: JEST, diff: describesItself, reason: "TESTS_FAILED" },
  { name: "exit-before-asserts-jest", shape: JEST, diff: jestExit, reason: "REPORT_MISSING" },
  // The global expect replaced under a computed key (brief s27 jsfix, item 2): the seals still decide.
  {
    name: "expect-replaced-reflect-computed-key-jest",
    shape: JEST,
    diff: expectReplaced("reflect"),
    reason: "TESTS_FAILED",
  },
  {
    name: "expect-replaced-index-computed-key-jest",
    shape: JEST,
    diff: expectReplaced("index"),
    reason: "TESTS_FAILED",
  },
  {
    name: "expect-defined-computed-key-jest",
    shape: JEST,
    diff: expectReplaced("define"),
    reason: "TESTS_FAILED",
  },
  {
    name: "records-forged-before-go",
    shape: GO,
    diff: () => goForgedBefore,
    reason: "SEAL_RECORDS_INCONSISTENT",
  },
  { name: "seal-suppressed-go", shape: GO, diff: () => goSuppressed, reason: "SEAL_RECORDS_INCONSISTENT" },
  // go test turns os.Exit(0) inside a test into a failure of that test.
  { name: "exit-before-asserts-go", shape: GO, diff: () => goExit, reason: "TESTS_FAILED" },
  { name: "stringer-go", shape: GO, diff: () => goStringer, reason: "TESTS_FAILED" },
];

const c = conformanceHooks(SHAPES);

describe.concurrent("seals: attacks by code that writes records", () => {
  it("each shape's gold diff PASSes with strong seals, so the attacks below meet seals", async () => {
    const graded = await Promise.all(SHAPES.map((shape) => grade(c, shape, "gold", goldDiff(c, shape))));
    for (const [i, g] of graded.entries()) {
      expect({ verdict: g.result.verdict, reason: g.result.reason }, why(g)).toEqual({
        verdict: "PASS",
        reason: "PASS",
      });
      if (SHAPES[i] !== FREEBUSY) expect(g.result.seals?.ran?.strong ?? 0, why(g)).toBeGreaterThan(0);
    }
  }, 1_200_000);

  for (const attack of CASES) {
    it(`${attack.name} ${attack.reason === "PASS" ? "PASSes, reported weak" : `FAILs ${attack.reason}`} (${attack.shape.id})`, async () => {
      const g = await grade(c, attack.shape, attack.name, attack.diff);
      console.info(`${attack.name}: ${g.result.verdict} ${g.result.reason}`);
      // A replaced expect may meet the pair first (its reason then); what the case holds is that a
      // strong seal, not the runner's (replaced) expect, decided the hidden tests.
      const replaced = attack.name.startsWith("expect-");
      const reason = replaced && g.result.verdict === "FAIL" ? attack.reason : g.result.reason;
      expect({ verdict: g.result.verdict, reason }, why(g)).toEqual({
        verdict: attack.reason === "PASS" ? "PASS" : "FAIL",
        reason: attack.reason,
      });
      // A hole stays a reported one: no strong seal ran in the grade it PASSed.
      if (attack.reason === "PASS") expect(g.result.seals?.ran?.strong ?? 0, why(g)).toBe(0);
      if (replaced) expect(g.result.seals?.decided?.strong ?? [], why(g)).not.toEqual([]);
    }, 1_200_000);
  }
});
