// The Go must-fail / must-pass pair bound its sum as `total := a + b` (sealpy3, issue 29): in a hidden
// test file whose tests take `total *testing.T`, that line is "no new variables on left side of :=",
// the package's test binary did not build, and every run failed, gold's too. The pair now binds a
// local the file never spells (sentinel-go.ts, localName).

import { describe, it } from "vitest";
import { conformanceHooks, gradeNamed, type Shape } from "../conformance/shapes.js";
import { expectVerdicts } from "./measure.js";

const none = () => ({});

const GO_JUNIT = `gotestsum --format standard-verbose --junitfile "$ORACLE_JUNIT" -- -count=1`;

const calc = (body: string) => `package calc

// Add adds.
func Add(a, b int) int { return ${body} }
`;

const HIDDEN = `package calc

import "testing"

func TestAddSmall(total *testing.T) {
\tif got := Add(2, 3); got != 5 {
\t\ttotal.Errorf("Add(2, 3) = %d", got)
\t}
}

func TestAddNegative(total *testing.T) {
\tif got := Add(-2, 7); got != 5 {
\t\ttotal.Errorf("Add(-2, 7) = %d", got)
\t}
}
`;

const SHAPE: Shape = {
  id: "go-pair-total",
  title: "Go: the hidden tests' *testing.T is named total",
  from: {
    repo: {
      "go.mod": "module example.com/calc\n\ngo 1.19\n",
      "calc.go": calc("a - b"),
      "zero_test.go":
        'package calc\n\nimport "testing"\n\nfunc TestAddZero(t *testing.T) {\n\tif got := Add(0, 0); got != 0 {\n\t\tt.Errorf("Add(0, 0) = %d", got)\n\t}\n}\n',
    },
    hidden: { "add_test.go": HIDDEN },
    task: {
      $schema: "../../packages/spec/task.schema.json",
      description: "Add subtracts; the hidden tests name their *testing.T total",
      image: "go-gotestsum",
      suites: {
        existing: { command: `${GO_JUNIT} .`, files: ["*_test.go"] },
        hidden: { command: "" },
      },
      diff: { allow: ["**"], deny: ["*_test.go", "go.mod", "go.sum"] },
      timeoutSeconds: 120,
      env: { GOPROXY: "off", GOFLAGS: "-mod=readonly", CGO_ENABLED: "0" },
    },
  },
  hidden: `${GO_JUNIT} .`,
  gold: { "calc.go": calc("a + b") },
  tamper: none,
  skip: none,
};

const c = conformanceHooks([SHAPE]);

describe.concurrent("sentinels: the Go pair in a file whose *testing.T is total (go-pair-total)", () => {
  it("the gold diff and another correct one PASS; a wrong one FAILs", async () => {
    const graded = await gradeNamed(c, SHAPE, {
      gold: "gold",
      "correct-other": () => ({ "calc.go": calc("b + a") }),
      "wrong-double": () => ({ "calc.go": calc("a + a") }),
    });
    expectVerdicts(graded, { pass: ["gold", "correct-other"], fail: ["wrong-double"] });
  }, 1_600_000);
});
