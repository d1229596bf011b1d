// Correct fixes under hidden tests that change their own process: they clear the environment, mock
// the modules the seal runtime writes with, or count their assertions. A seal must not make such a
// test fail for a correct diff. Found by an attack review (session 21): each gold diff FAILed
// SEAL_RECORDS_INCONSISTENT or TESTS_FAILED, and the sweep quarantined the valid tasks GOLD_FAILS.
// These tasks are graded unswept, as a grade of a new task is: nothing is left unsealed for them.

import { describe, expect, it } from "vitest";
import { conformanceHooks, gradeNamed, type Shape } from "./conformance/shapes.js";
import { PYTEST, pyRepo, pyTask, VITEST_RUN, vitestTask } from "./conformance/table.js";
import { expectVerdicts, why } from "./hostile/measure.js";

const none = () => ({});
const LINK = "ln -sfn /opt/deps/node_modules node_modules &&";

const PY: Shape = {
  id: "seal-env-py",
  title: "pytest: tests that clear os.environ and mock os.write and json.dumps",
  from: {
    repo: pyRepo,
    hidden: {
      "tests/regression/__init__.py": "",
      "tests/regression/test_env.py": `import os
from unittest import mock

from calc.core import add


@mock.patch.dict(os.environ, {"MODE": "strict"}, clear=True)
def test_add_without_environment():
    assert add(2, 3) == 5


@mock.patch("json.dumps", return_value="{}")
@mock.patch("os.write")
def test_add_with_writers_mocked(write, dumps):
    assert add(10, 20) == 30
`,
    },
    task: pyTask,
  },
  hidden: `python3 -m pytest ${PYTEST} tests/regression`,
  gold: { "calc/core.py": pyRepo["calc/core.py"].replace("a - b", "a + b") },
  tamper: none,
  skip: none,
};

const jsRepo = {
  "src/calc.js": "exports.add = (a, b) => a - b;\n",
  "test/zero.test.js":
    'const { add } = require("../src/calc");\n\ntest("adds zero", () => {\n  expect(add(0, 0)).toBe(0);\n});\n',
  "package.json": '{ "name": "calc", "private": true }\n',
  ".gitignore": "node_modules\n",
};
const JEST_JUNIT = `JEST_JUNIT_OUTPUT_FILE="$ORACLE_JUNIT" node_modules/.bin/jest --ci --watchman=false`;
const JEST: Shape = {
  id: "seal-env-jest",
  title: "jest: tests that replace process.env, mock fs and count their assertions",
  from: {
    repo: jsRepo,
    hidden: {
      "test/regression/add.test.js": `jest.mock("fs");
const { add } = require("../../src/calc");

describe("add", () => {
  const saved = process.env;
  beforeEach(() => {
    process.env = { PORT: "9000" };
  });
  afterEach(() => {
    process.env = saved;
  });

  it("adds small numbers", () => {
    expect.assertions(1);
    expect(add(2, 3)).toBe(5);
  });

  it("adds larger numbers", () => {
    expect.hasAssertions();
    expect(add(10, 20)).toEqual(30);
  });
});
`,
    },
    task: {
      $schema: "../../packages/spec/task.schema.json",
      description: "seals: add() subtracts",
      image: "node-jest",
      suites: {
        existing: {
          command: `${LINK} ${JEST_JUNIT} test/zero.test.js --reporters=default --reporters=jest-junit`,
          files: ["test/**"],
        },
        hidden: { command: "" },
      },
      diff: { allow: ["**"], deny: ["test/**"] },
      timeoutSeconds: 90,
    },
  },
  hidden: `${LINK} ${JEST_JUNIT} test/regression/ --reporters=default --reporters=jest-junit`,
  gold: { "src/calc.js": jsRepo["src/calc.js"].replace("a - b", "a + b") },
  tamper: none,
  skip: none,
};

const config = (body: string) => `import fs from "node:fs";

/** The port a JSON config file names. */
export function port(path) {
  return ${body};
}
`;
const vitestTest = (title: string, body: string) => `import { test, expect, vi } from "vitest";
import fs from "node:fs";
import { port } from "../../src/config.js";

vi.mock("node:fs");

test("${title}", () => {
  ${body}
});
`;
// vi.mock("node:fs") (hoisted) replaced the runtime's own import of fs with an automock on node 18,
// which has no process.getBuiltinModule: every record was lost and gold FAILed
// SEAL_RECORDS_INCONSISTENT (attack review s22, finding 12).
const VITEST: Shape = {
  id: "seal-env-vitest",
  title: "vitest: a test that mocks node:fs",
  from: {
    repo: {
      "package.json": `${JSON.stringify({ name: "cfg", version: "0.1.0", private: true, type: "module", devDependencies: { vitest: "2.1.9" } }, null, 2)}\n`,
      "src/config.js": config('JSON.parse(fs.readFileSync(path, "utf8")).port'),
      "test/unit/basic.test.js": vitestTest(
        "reads the port",
        'vi.mocked(fs.readFileSync).mockReturnValue(\'{"port": 1}\');\n  expect(port("/a.json")).toEqual(1);',
      ),
      ".gitignore": "node_modules\n",
    },
    hidden: {
      "test/regression/config.test.js": vitestTest(
        "the port is a number",
        'vi.mocked(fs.readFileSync).mockReturnValue(\'{"port": "8080"}\');\n  expect(port("/etc/app.json")).toBe(8080);',
      ),
    },
    task: vitestTask("seals: port() returns the file's string"),
  },
  hidden: `${VITEST_RUN} test/regression/config.test.js`,
  gold: { "src/config.js": config('Number(JSON.parse(fs.readFileSync(path, "utf8")).port)') },
  tamper: none,
  skip: none,
};

const GO_JUNIT = `gotestsum --format standard-verbose --junitfile "$ORACLE_JUNIT" -- -count=1`;
const goRepo = {
  "go.mod": "module example.com/calc\n\ngo 1.19\n",
  "calc.go": "package calc\n\n// Add adds.\nfunc Add(a, b int) int { return a - b }\n",
  "zero_test.go":
    'package calc\n\nimport "testing"\n\nfunc TestAddZero(t *testing.T) {\n\tif got := Add(0, 0); got != 0 {\n\t\tt.Errorf("Add(0, 0) = %d", got)\n\t}\n}\n',
};
const GO: Shape = {
  id: "seal-env-go",
  title: "go: a test that clears the environment",
  from: {
    repo: goRepo,
    hidden: {
      "add_test.go": `package calc

import (
	"os"
	"testing"
)

func TestAddWithoutEnvironment(t *testing.T) {
	os.Clearenv()
	if got := Add(2, 3); got != 5 {
		t.Errorf("Add(2, 3) = %d", got)
	}
}
`,
    },
    task: {
      $schema: "../../packages/spec/task.schema.json",
      description: "seals: Add subtracts",
      image: "go-gotestsum",
      suites: {
        existing: { command: `${GO_JUNIT} -run TestAddZero .`, files: ["*_test.go"] },
        hidden: { command: "" },
      },
      diff: { allow: ["**"], deny: ["*_test.go", "go.mod", "go.sum"] },
      timeoutSeconds: 120,
      env: { GOPROXY: "off", GOFLAGS: "-mod=readonly", CGO_ENABLED: "0" },
    },
  },
  hidden: `${GO_JUNIT} .`,
  gold: { "calc.go": goRepo["calc.go"].replace("a - b", "a + b") },
  tamper: none,
  skip: none,
};

const SHAPES = [PY, JEST, VITEST, GO];

const c = conformanceHooks(SHAPES);

describe.concurrent("seals under tests that change their own process", () => {
  for (const shape of SHAPES)
    it(`${shape.title}: the gold diff PASSes with its seals run; the base FAILs (${shape.id})`, async () => {
      const graded = await gradeNamed(c, shape, { gold: "gold", baseline: "baseline" });
      expectVerdicts(graded, { pass: ["gold"], fail: ["baseline"] });
      expect(graded.gold!.result.seals?.ran?.strong ?? 0, why(graded.gold!)).toBeGreaterThan(0);
    }, 1_200_000);
});
