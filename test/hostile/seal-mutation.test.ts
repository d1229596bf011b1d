// Attacks on sealed expectations through the expected value itself: a list, array or slice the test
// compares with is also handed to the code under test, which returns the right value and empties or
// zeroes its argument. pytest, jest and go test compare with the emptied object and fail; the host
// compared with the literal and PASSed (an attack review, session 22: mut-pop, jmut-splice,
// uniq-clobber, each on a task the sweep had judged healthy). Every case must FAIL.

import { describe, it } from "vitest";
import { conformanceHooks, gradeNamed, type Shape } from "../conformance/shapes.js";
import { PYTEST, pyTask } from "../conformance/table.js";
import { expectVerdicts } from "./measure.js";

const none = () => ({});

const PY_BASE = `def dedupe(xs):
    """The items of xs, each once, in first-seen order."""
    return list(xs)
`;
const PY_GOLD = `def dedupe(xs):
    """The items of xs, each once, in first-seen order."""
    return list(dict.fromkeys(xs))
`;
const PY_HIDDEN = `from items import dedupe

UNIQUE = ["pear", "fig", "kiwi"]


def test_dedupe_keeps_unique():
    assert dedupe(UNIQUE) == UNIQUE


def test_dedupe_drops_repeats():
    assert dedupe(["a", "b", "a", "c", "b"]) == ["a", "b", "c"]
`;

const PY: Shape = {
  id: "seal-mutation-py",
  title: "pytest: a module constant passed to the code and compared with",
  from: {
    repo: {
      "items/__init__.py": PY_BASE,
      "tests/__init__.py": "",
      "tests/test_basic.py": "from items import dedupe\n\n\ndef test_empty():\n    assert dedupe([]) == []\n",
      ".gitignore": "__pycache__/\n",
    },
    hidden: { "tests/regression/__init__.py": "", "tests/regression/test_items.py": PY_HIDDEN },
    task: pyTask,
  },
  hidden: `python3 -m pytest ${PYTEST} tests/regression`,
  gold: { "items/__init__.py": PY_GOLD },
  tamper: none,
  skip: none,
};

const JS_HIDDEN = `const { dedupe } = require("../../src/items");

const UNIQUE = ["pear", "fig", "kiwi"];

test("dedupe keeps unique items", () => {
  expect(dedupe(UNIQUE)).toEqual(UNIQUE);
});

test("dedupe drops repeats", () => {
  expect(dedupe(["a", "b", "a", "c", "b"])).toEqual(["a", "b", "c"]);
});
`;
const jsItems = (body: string) =>
  `"use strict";\n\n/** The items of xs, each once, in first-seen order. */\nfunction dedupe(xs) {\n${body}\n}\n\nmodule.exports = { dedupe };\n`;
const JEST = `ln -sfn /opt/deps/node_modules node_modules && JEST_JUNIT_OUTPUT_FILE="$ORACLE_JUNIT" node_modules/.bin/jest --ci --watchman=false`;

const JS: Shape = {
  id: "seal-mutation-jest",
  title: "jest: a module constant passed to the code and compared with",
  from: {
    repo: {
      "src/items.js": jsItems("  return xs.slice();"),
      "test/unit/basic.test.js":
        'const { dedupe } = require("../../src/items");\n\ntest("dedupe of nothing", () => {\n  expect(dedupe([])).toEqual([]);\n});\n',
      "package.json": '{ "name": "items", "private": true }\n',
      ".gitignore": "node_modules\n",
    },
    hidden: { "test/regression/items.test.js": JS_HIDDEN },
    task: {
      $schema: "../../packages/spec/task.schema.json",
      description: "seal-mutation: dedupe keeps repeats",
      image: "node-jest",
      suites: {
        existing: {
          command: `${JEST} test/unit --reporters=default --reporters=jest-junit`,
          files: ["test/**"],
        },
        hidden: { command: "" },
      },
      diff: { allow: ["**"], deny: ["test/**"] },
      timeoutSeconds: 90,
    },
  },
  hidden: `${JEST} test/regression --reporters=default --reporters=jest-junit`,
  gold: { "src/items.js": jsItems("  return [...new Set(xs)];") },
  tamper: none,
  skip: none,
};

const GO_HIDDEN = `package uniq

import (
	"reflect"
	"testing"
)

func TestUniq(t *testing.T) {
	tests := []struct {
		in   []int
		want []int
	}{
		{[]int{3, 3, 1}, []int{3, 1}},
		{[]int{5, 4, 5, 4}, []int{5, 4}},
	}
	for _, tt := range tests {
		if got := Uniq(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Uniq(%v) = %v, want %v", tt.in, got, tt.want)
		}
		if got := Uniq(tt.want); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Uniq(%v) = %v, want it unchanged", tt.want, got)
		}
	}
}
`;
const uniq = (body: string) =>
  `// Package uniq drops repeated values.\npackage uniq\n\n// Uniq returns the values of xs, each once, in first-seen order.\nfunc Uniq(xs []int) []int {\n${body}\n}\n`;
const GO_UNIQ = (zero: string) =>
  uniq(
    `\tseen := map[int]bool{}\n\tout := []int{}\n\tfor i, x := range xs {\n\t\tif !seen[x] {\n\t\t\tseen[x] = true\n\t\t\tout = append(out, x)\n\t\t}\n\t\t${zero}\n\t\t_ = i\n\t}\n\treturn out`,
  );
const GO_JUNIT = `gotestsum --format standard-verbose --junitfile "$ORACLE_JUNIT" -- -count=1 .`;

const GO: Shape = {
  id: "seal-mutation-go",
  title: "go test: a table's slice column passed to the code and compared with",
  from: {
    repo: {
      "go.mod": "module example.com/uniq\n\ngo 1.19\n",
      "uniq.go": uniq("\treturn append([]int(nil), xs...)"),
      "basic_test.go":
        'package uniq\n\nimport "testing"\n\nfunc TestEmpty(t *testing.T) {\n\tif len(Uniq(nil)) != 0 {\n\t\tt.Fatal("not empty")\n\t}\n}\n',
    },
    hidden: { "uniq_test.go": GO_HIDDEN },
    task: {
      $schema: "../../packages/spec/task.schema.json",
      description: "seal-mutation: Uniq keeps repeats",
      image: "go-gotestsum",
      suites: {
        existing: { command: GO_JUNIT, files: ["basic_test.go"] },
        hidden: { command: "" },
      },
      diff: { allow: ["**"], deny: ["*_test.go", "go.mod", "go.sum"] },
      timeoutSeconds: 120,
      env: { GOPROXY: "off", GOFLAGS: "-mod=readonly", CGO_ENABLED: "0" },
    },
  },
  hidden: GO_JUNIT,
  gold: { "uniq.go": GO_UNIQ("") },
  tamper: none,
  skip: none,
};

/** Each shape's attack: the right value, its argument emptied (zeroed) on the way. */
const CASES: Array<{ shape: Shape; name: string; files: Record<string, string> }> = [
  {
    shape: PY,
    name: "mut-pop",
    files: {
      "items/__init__.py":
        "def dedupe(xs):\n    out = []\n    while xs:\n        x = xs.pop(0)\n        if x not in out:\n            out.append(x)\n    return out\n",
    },
  },
  {
    shape: JS,
    name: "jmut-splice",
    files: {
      "src/items.js": jsItems(
        "  const out = [];\n  while (xs.length > 0) {\n    const x = xs.shift();\n    if (!out.includes(x)) out.push(x);\n  }\n  return out;",
      ),
    },
  },
  { shape: GO, name: "uniq-clobber", files: { "uniq.go": GO_UNIQ("xs[i] = 0") } },
];

const c = conformanceHooks([PY, JS, GO]);

describe.concurrent("seals: an expected list the code empties (seal-mutation-py, -jest, -go)", () => {
  for (const shape of [PY, JS, GO])
    it(`${shape.id}: the gold diff PASSes`, async () => {
      expectVerdicts(await gradeNamed(c, shape, { gold: "gold" }), { pass: ["gold"], fail: [] });
    }, 1_200_000);

  for (const attack of CASES)
    it(`${attack.name}: the right value, the argument emptied, as the runner compares it -> FAIL TESTS_FAILED`, async () => {
      const graded = await gradeNamed(c, attack.shape, { [attack.name]: () => attack.files });
      expectVerdicts(graded, { pass: [], fail: [attack.name] });
    }, 1_200_000);
});
