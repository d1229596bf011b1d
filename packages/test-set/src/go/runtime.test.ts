import { beforeAll, describe, expect, it } from "vitest";
import { loadParsers, type Parsers } from "../parsers.js";
import { judgeSeals } from "../seal/judge.js";
import { planSeals } from "../seal/seal-run.js";
import { runGo } from "../testing/run-go.js";

/** The Go runtime under Debian's Go 1.19, end to end: a sealed file builds and runs, its records are judged. */
let parsers: Parsers;
beforeAll(async () => {
  parsers = await loadParsers(["go"]);
});

const TEST = `package calc_test

import (
	"fmt"
	"reflect"
	"testing"

	"example.com/calc"
)

func TestAdd(t *testing.T) {
	want := 5
	if got := calc.Add(2, 3); got != want {
		t.Errorf(fmt.Sprintf("Add(2, 3) = %d, want %d", got, want))
	}
}

func TestWords(t *testing.T) {
	got, err := calc.Words("a b")
	if err != nil {
		t.Fatalf("words: %v", err)
	}
	if !reflect.DeepEqual(got, []string{"a", "b"}) {
		t.Errorf("got %v", got)
	}
	var any interface{} = calc.Add(1, 1)
	if any != 2 {
		t.Error("two")
	}
	if f := calc.Ratio(); f != 0.1 {
		t.Error("ratio")
	}
}
`;
const CORRECT = `package calc

import "strings"

func Add(a, b int) int { return a + b }

func Words(s string) ([]string, error) { return strings.Fields(s), nil }

func Ratio() float64 { return 0.1 }
`;

/** `text` sealed as calc/calc_test.go, run beside `calc` (and `extra` files) in module example.com. */
function sealAndRun(text: string, calc: string, extra: Record<string, string> = {}) {
  const plan = planSeals(parsers, [{ path: "calc/calc_test.go", text }]);
  const files = {
    // The oldest go line modules carry (go 1.12): the runtime uses no later language feature (0o600 did not build).
    "go.mod": "module example.com\n\ngo 1.12\n",
    ...extra,
    "calc/calc.go": calc,
    "calc/calc_test.go": plan.files[0]!.text,
    ...Object.fromEntries(plan.added.map((a) => [a.path, a.text])),
  };
  const run = runGo(files, "calc");
  return { plan, run, judged: judgeSeals(plan, run.records, run.tests) };
}

const grade = (calc: string) => sealAndRun(TEST, calc);

describe("the Go seal runtime under go 1.19", () => {
  it("a sealed file builds at go 1.12 (no generics, no 0o literals), empties its messages, and a correct fix matches every seal", () => {
    const { plan, run, judged } = grade(CORRECT);
    expect(plan.files[0]!.text).not.toMatch(/want %d|\[\]string\{"a", "b"\}|want := 5/);
    expect(
      run.tests.map((t) => t.outcome),
      run.output,
    ).toEqual(["passed", "passed"]);
    expect(judged.inconsistent).toBeNull();
    expect(Object.values(judged.sites)).toEqual(["matched", "matched", "matched", "matched", "matched"]);
  });

  it("a test that clears the environment (os.Clearenv) loses no record: $ORACLE_SEALS is read as the package initialises", () => {
    const text = TEST.replace("import (\n", 'import (\n\t"os"\n').replace(
      "func TestAdd(t *testing.T) {\n",
      "func TestAdd(t *testing.T) {\n\tos.Clearenv()\n",
    );
    const { run, judged } = sealAndRun(text, CORRECT);
    expect(
      run.tests.map((t) => t.outcome),
      run.output,
    ).toEqual(["passed", "passed"]);
    expect(judged.inconsistent).toBeNull();
    expect(Object.values(judged.sites)).toEqual(["matched", "matched", "matched", "matched", "matched"]);
  });

  it("a wrong value fails its seal with both values (the test binary said pass)", () => {
    const { run, judged } = grade(CORRECT.replace("a + b", "a - b"));
    expect(run.tests.map((t) => t.outcome)).toEqual(["passed", "passed"]);
    expect(judged.tests[0]).toMatchObject({ outcome: "failed" });
    expect(judged.tests[0]!.message).toBe(
      "calc/calc_test.go:13: if got != want {\n  expected: 5\n  actual:   -1",
    );
    expect(judged.tests[1]!.message).toMatch(/if any != 2 \{\n {2}expected: 2\n {2}actual: {3}0/);
  });

  it("a want := literal that only the sealed condition reads stays used: the file builds (toml's shape: a message without want)", () => {
    const text = TEST.replace(
      "func TestWords",
      'func TestLabel(t *testing.T) {\n\tgot := calc.Label("a")\n\twant := "HELLO a!"\n\tif got != want {\n\t\tt.Error("\\n" + got)\n\t}\n\twant2 := []string{"HELLO x!"}\n\tif got := []string{calc.Label("x")}; !reflect.DeepEqual(got, want2) {\n\t\tt.Fatal("words")\n\t}\n}\n\nfunc TestWords',
    );
    const { plan, run, judged } = sealAndRun(
      text,
      `${CORRECT}\nfunc Label(s string) string { return "HELLO " + s + "!" }\n`,
    );
    expect(plan.files[0]!.text).not.toContain("HELLO");
    expect(
      run.tests.map((t) => t.outcome),
      run.output,
    ).toEqual(["passed", "passed", "passed"]);
    expect(judged.inconsistent).toBeNull();
    expect(new Set(Object.values(judged.sites))).toEqual(new Set(["matched"]));
  });

  it("a local declared after a sealed if is not kept used in its block (a closure parameter of the same name): the file builds", () => {
    const text = `package calc_test

import (
	"sort"
	"testing"

	"example.com/calc"
)

func TestSorted(t *testing.T) {
	xs := []int{calc.Add(1, 0), calc.Add(2, 0)}
	if !sort.SliceIsSorted(xs, func(a, b int) bool { return xs[a] < xs[b] }) {
		t.Errorf("not sorted: %v", xs)
	}
	a := 2
	b := 3
	if calc.Add(a, b) != 5 {
		t.Errorf("Add(%d, %d)", a, b)
	}
}
`;
    const { plan, run, judged } = sealAndRun(text, CORRECT);
    expect(plan.files[0]!.text).toMatch(/t\.FailNow\(\)\n\t\t_ = xs\n\t\}/);
    expect(
      run.tests.map((t) => t.outcome),
      run.output,
    ).toEqual(["passed"]);
    expect(judged.inconsistent).toBeNull();
    expect(Object.values(judged.sites)).toEqual(["matched", "matched"]);
  });

  it("an emptied block keeps used only the locals in scope there (a struct key or a closure parameter of another scope's name): the file builds", () => {
    const text = `package calc_test

import (
	"testing"

	"example.com/calc"
)

func TestKeyInBlock(t *testing.T) {
	for n := 0; n < 1; n++ {
		_ = n
	}
	if got := calc.Add(1, 1); got != 2 {
		t.Errorf("got %v %d", struct{ n int }{n: got}, func(x int) int { return x }(got))
	}
	for x := 0; x < 1; x++ {
		_ = x
	}
}
`;
    const { run, judged } = sealAndRun(text, CORRECT);
    expect(
      run.tests.map((t) => t.outcome),
      run.output,
    ).toEqual(["passed"]);
    expect(Object.values(judged.sites)).toEqual(["matched"]);
  });

  it("a want declared again in an inner scope (:=, var, a parameter, a range variable) is no constant: the inner comparison is not sealed against the outer value", () => {
    const shadow = (inner: string) => `package calc_test

import (
	"testing"

	"example.com/calc"
)

func TestShadow(t *testing.T) {
	want := 5
	if got := calc.Add(2, 3); got != want {
		t.Errorf("got %d", got)
	}
	for _, tt := range []struct{ a, b int }{{1, 2}} {
${inner}
		if got := calc.Add(tt.a, tt.b); got != want {
			t.Errorf("got %d", got)
		}
	}
}
`;
    for (const inner of [
      "\t\twant := tt.a + tt.b",
      "\t\tvar want = tt.a + tt.b",
      "\t\twant, _ := tt.a+tt.b, 0",
    ]) {
      const { plan, run, judged } = sealAndRun(shadow(inner), CORRECT);
      expect(
        run.tests.map((t) => t.outcome),
        run.output,
      ).toEqual(["passed"]);
      expect(judged.inconsistent).toBeNull();
      expect(judged.tests[0], inner).toMatchObject({ outcome: "passed" });
      expect(plan.sites.map((s) => s.expected)).not.toContainEqual({ t: "const", c: "int", v: "5" });
    }
    // A parameter or a range variable of the same name: the outer want is no constant either.
    for (const inner of [
      "\t\tf := func(want int) int { return want }\n\t\t_ = f",
      "\t\tfor _, want := range []int{0} {\n\t\t\t_ = want\n\t\t}",
    ]) {
      const plan = planSeals(parsers, [{ path: "calc/calc_test.go", text: shadow(inner) }]);
      expect(
        plan.sites.map((s) => s.expected),
        inner,
      ).not.toContainEqual({ t: "const", c: "int", v: "5" });
    }
  });

  it("a slice literal changed in place or shared (want[i] = …, sort.Ints(want), w := want) is no constant: a correct fix passes, a wrong one fails", () => {
    const changed = (change: string) => `package calc_test

import (
	"reflect"
	"sort"
	"testing"

	"example.com/calc"
)

func TestChanged(t *testing.T) {
	want := []int{1, 2}
${change}
	got := []int{calc.Add(1, 1), calc.Add(0, 1)}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	_ = sort.Ints
}
`;
    for (const change of [
      "\tfor i, j := 0, len(want)-1; i < j; i, j = i+1, j-1 {\n\t\twant[i], want[j] = want[j], want[i]\n\t}",
      "\tsort.Sort(sort.Reverse(sort.IntSlice(want)))",
      "\tw := want\n\tw[0], w[1] = 2, 1",
    ]) {
      const right = sealAndRun(changed(change), CORRECT);
      expect(
        right.plan.sites.map((s) => s.expected),
        change,
      ).not.toContainEqual(expect.objectContaining({ t: "list" }));
      expect(
        right.run.tests.map((t) => t.outcome),
        right.run.output,
      ).toEqual(["passed"]);
      expect(right.judged.tests[0], change).toMatchObject({ outcome: "passed" });
      const wrong = sealAndRun(changed(change), CORRECT.replace("a + b", "a - b"));
      expect(wrong.judged.tests[0], change).toMatchObject({ outcome: "failed" });
    }
    // Read only (compared, its length taken, an element printed): still sealed.
    const read = planSeals(parsers, [
      {
        path: "calc/calc_test.go",
        text: changed('\tif len(want) != 2 {\n\t\tt.Fatalf("%d", want[0])\n\t}'),
      },
    ]);
    expect(read.sites.length).toBeGreaterThan(0);
  });

  it("a slice column the actual side passes on (Uniq(tt.want)) is not sealed against its rows: a Uniq that zeroes its argument fails, as go test says", () => {
    const text = `package calc_test

import (
	"reflect"
	"testing"

	"example.com/calc"
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
		if got := calc.Uniq(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Uniq(%v) = %v, want %v", tt.in, got, tt.want)
		}
		if got := calc.Uniq(tt.want); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Uniq(%v) = %v, want it unchanged", tt.want, got)
		}
	}
}
`;
    const uniq = (zero: string) => `${CORRECT}
func Uniq(xs []int) []int {
	seen := map[int]bool{}
	out := []int{}
	for i, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
		${zero}
		_ = i
	}
	return out
}
`;
    const right = sealAndRun(text, uniq(""));
    expect(right.plan.sites).toEqual([]);
    expect(
      right.run.tests.map((t) => t.outcome),
      right.run.output,
    ).toEqual(["passed"]);
    // Correct values, argument zeroed: go test compares with the zeroed row and fails.
    const clobber = sealAndRun(text, uniq("xs[i] = 0"));
    expect(
      clobber.run.tests.map((t) => t.outcome),
      clobber.run.output,
    ).toEqual(["failed"]);
    expect(clobber.judged.tests[0]).toMatchObject({ outcome: "failed" });
    // Read only (compared, printed): the column is still sealed and leaves the file.
    const read = planSeals(parsers, [
      { path: "calc/calc_test.go", text: text.replace("calc.Uniq(tt.want)", "calc.Uniq(tt.in)") },
    ]);
    expect(read.sites.map((s) => s.rows !== undefined)).toEqual([true, true]);
  });

  it("a round trip: a local or column the actual side (or an if's init) reads too keeps its value, and a correct fix matches", () => {
    const text = `package calc_test

import (
	"testing"

	"example.com/calc"
)

func TestRoundTrip(t *testing.T) {
	s := "1.2.3"
	if got := calc.Norm(s); got != s {
		t.Errorf("Norm(%q) = %q", s, got)
	}
}

func TestAddZero(t *testing.T) {
	n := 5
	if calc.Add(n, 0) != n {
		t.Error("add zero")
	}
}

func TestNormTable(t *testing.T) {
	for _, tt := range []struct {
		in string
	}{
		{"1.2.3"},
		{"1.0.0-rc.1"},
	} {
		if got := calc.Norm(tt.in); got != tt.in {
			t.Errorf("Norm(%q) = %q", tt.in, got)
		}
	}
}

func TestWhole(t *testing.T) {
	check := func(r struct{ a, want int }) bool { return calc.Add(r.a, 1) == r.want }
	for _, tt := range []struct{ a, want int }{{1, 2}, {4, 5}} {
		if !check(tt) {
			t.Error("check")
		}
		if got := calc.Add(tt.a, 1); got != tt.want {
			t.Error(got)
		}
	}
}
`;
    const norm = `${CORRECT}\nfunc Norm(s string) string { return strings.TrimSpace(s) }\n`;
    const { plan, run, judged } = sealAndRun(text, norm);
    expect(plan.files[0]!.text).toContain('s := "1.2.3"');
    expect(plan.files[0]!.text).toContain("n := 5");
    expect(plan.files[0]!.text).toContain('{"1.0.0-rc.1"}');
    expect(plan.files[0]!.text).toContain("{4, 5}");
    expect(
      run.tests.map((t) => t.outcome),
      run.output,
    ).toEqual(["passed", "passed", "passed", "passed"]);
    expect(judged.inconsistent).toBeNull();
    expect(new Set(Object.values(judged.sites))).toEqual(new Set(["matched"]));
    expect(judged.tests.map((t) => t.outcome)).toEqual(["passed", "passed", "passed", "passed"]);
    // A Norm that loses the last byte fails the round trips, a wrong Add the others.
    const wrong = sealAndRun(
      text,
      norm.replace("strings.TrimSpace(s)", "s[:len(s)-1]").replace("a + b", "a + b + 1"),
    );
    expect(wrong.judged.tests.map((t) => t.outcome)).toEqual(["failed", "failed", "failed", "failed"]);
  });

  it("testify: assert.Equal(t, want, got) with want := <literal> builds once sealed, and matches", () => {
    // A stand-in for testify's assert package, replaced in go.mod (no module proxy here).
    const text = `package calc_test

import (
	"testing"

	"example.com/calc"
	"github.com/stretchr/testify/assert"
)

func TestAddTestify(t *testing.T) {
	want := 5
	got := calc.Add(2, 3)
	assert.Equal(t, want, got)
	assert.True(t, got > 4)
}
`;
    const { plan, run, judged } = sealAndRun(text, CORRECT, {
      "go.mod":
        "module example.com\n\ngo 1.16\n\nrequire github.com/stretchr/testify v1.8.0\n\nreplace github.com/stretchr/testify => ./testify\n",
      "testify/go.mod": "module github.com/stretchr/testify\n\ngo 1.16\n",
      "testify/assert/assert.go":
        'package assert\n\ntype TestingT interface{ Errorf(string, ...interface{}) }\n\nfunc Equal(t TestingT, expected, actual interface{}, msg ...interface{}) bool {\n\tif expected != actual {\n\t\tt.Errorf("not equal")\n\t\treturn false\n\t}\n\treturn true\n}\n\nfunc True(t TestingT, value bool, msg ...interface{}) bool {\n\tif !value {\n\t\tt.Errorf("not true")\n\t}\n\treturn value\n}\n',
    });
    expect(plan.sites).toHaveLength(2);
    expect(
      run.tests.map((t) => t.outcome),
      run.output,
    ).toEqual(["passed"]);
    expect(judged.inconsistent).toBeNull();
    expect(Object.values(judged.sites)).toEqual(["matched", "matched"]);
  });

  it("testify: a sealed assert.Nil agrees with testify's isNil (a typed nil pointer, slice, map, func, one in an interface), NoError with err != nil", () => {
    // A stand-in for testify's Nil (reflect: a nil chan, func, interface, map, pointer or slice) and NoError.
    const assert = `package assert

import "reflect"

type TestingT interface{ Errorf(string, ...interface{}) }

func Nil(t TestingT, object interface{}, msg ...interface{}) bool {
	if object == nil {
		return true
	}
	v := reflect.ValueOf(object)
	switch v.Kind() {
	case reflect.Chan, reflect.Func, reflect.Interface, reflect.Map, reflect.Ptr, reflect.Slice, reflect.UnsafePointer:
		if v.IsNil() {
			return true
		}
	}
	t.Errorf("not nil")
	return false
}

func NoError(t TestingT, err error, msg ...interface{}) bool {
	if err != nil {
		t.Errorf("error")
		return false
	}
	return true
}
`;
    const text = `package calc_test

import (
	"testing"

	"example.com/calc"
	"github.com/stretchr/testify/assert"
)

func TestNil(t *testing.T) {
	assert.Nil(t, calc.Find(-1))
	var s []int
	assert.Nil(t, s)
	var m map[string]int
	assert.Nil(t, m)
	var f func()
	assert.Nil(t, f)
	var i interface{} = calc.Find(-1)
	assert.Nil(t, i)
	assert.Nil(t, nil)
	assert.NoError(t, calc.Check(1))
}

func TestTypedNilError(t *testing.T) {
	assert.NoError(t, calc.Check(-1))
}
`;
    const calc = `${CORRECT}
type V struct{ N int }

func Find(n int) *V {
	if n < 0 {
		return nil
	}
	return &V{n}
}

type E struct{}

func (*E) Error() string { return "e" }

func Check(n int) error {
	if n < 0 {
		var e *E
		return e
	}
	return nil
}
`;
    const extra = {
      "go.mod":
        "module example.com\n\ngo 1.16\n\nrequire github.com/stretchr/testify v1.8.0\n\nreplace github.com/stretchr/testify => ./testify\n",
      "testify/go.mod": "module github.com/stretchr/testify\n\ngo 1.16\n",
      "testify/assert/assert.go": assert,
    };
    const { plan, judged } = sealAndRun(text, calc, extra);
    expect(plan.sites.map((s) => s.kind)).toEqual(Array(8).fill("go.nil"));
    expect(judged.inconsistent).toBeNull();
    expect(judged.tests.map((t) => t.outcome)).toEqual(["passed", "failed"]);
    // A Find that never returns nil fails its seals as it fails testify.
    const wrong = sealAndRun(
      text,
      calc.replace("return nil\n\t}\n\treturn &V{n}", "return &V{}\n\t}\n\treturn &V{n}"),
      extra,
    );
    expect(wrong.judged.tests.map((t) => t.outcome)).toEqual(["failed", "failed"]);
  });

  it("a Stringer speaks for nothing: the value is read by reflection", () => {
    const text = TEST.replace(
      "func TestWords",
      'func TestName(t *testing.T) {\n\tif got := calc.Name(); got != "five" {\n\t\tt.Error("name")\n\t}\n}\n\nfunc TestWords',
    );
    const plan = planSeals(parsers, [{ path: "calc/calc_test.go", text }]);
    const calc = `${CORRECT}\ntype Label string\n\nfunc (Label) String() string { return "five" }\n\nfunc Name() Label { return "four" }\n`;
    const run = runGo(
      {
        // The oldest go line modules carry (go 1.12): the runtime uses no later language feature (0o600 did not build).
        "go.mod": "module example.com\n\ngo 1.12\n",
        "calc/calc.go": calc,
        "calc/calc_test.go": plan.files[0]!.text,
        ...Object.fromEntries(plan.added.map((a) => [a.path, a.text])),
      },
      "calc",
    );
    const judged = judgeSeals(plan, run.records, run.tests);
    const name = plan.sites.find((s) => s.test.entry === "TestName")!;
    expect(judged.sites[name.key], run.output).toBe("mismatch");
  });

  it("an init() that prints passing lines: the runner reports more passing runs than wrote their records", () => {
    const printed = grade(
      `${CORRECT}\nfunc init() { print("=== RUN   TestAdd\\n--- PASS: TestAdd (0.00s)\\n") }\n`,
    );
    expect(printed.judged.inconsistent).toMatch(
      /TestAdd: the runner reports 2 passing run\(s\), but 1 wrote/,
    );
    const exited = grade(
      `${CORRECT.replace('import "strings"', 'import (\n\t"os"\n\t"strings"\n)')}\nfunc init() {\n\tif len(os.Args) > 0 {\n\t\tprint("=== RUN   TestAdd\\n--- PASS: TestAdd (0.00s)\\n=== RUN   TestWords\\n--- PASS: TestWords (0.00s)\\n")\n\t\tos.Exit(0)\n\t}\n}\n`,
    );
    expect(
      exited.run.tests.map((t) => t.outcome),
      exited.run.output,
    ).toEqual(["passed", "passed"]);
    expect(exited.judged.inconsistent).toMatch(/the runner reports 1 passing run\(s\), but 0 wrote/);
  });
});

describe("Go table tests under go 1.19", () => {
  const TABLE = `package calc_test

import (
	"reflect"
	"testing"

	"example.com/calc"
)

func TestTable(t *testing.T) {
	tests := []struct {
		name string
		a, b int
		want int
	}{
		{"small", 2, 3, 5},
		{name: "big", a: 20, b: 3, want: 23},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := calc.Add(tt.a, tt.b); got != tt.want {
				t.Errorf("Add(%d, %d) = %d, want %d", tt.a, tt.b, got, tt.want)
			}
		})
	}
}

func TestWordsTable(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"a b", []string{"a", "b"}},
		{"", nil},
	} {
		got, _ := calc.Words(c.in)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("Words(%q) = %v", c.in, got)
		}
	}
}
`;
  function run(calc: string) {
    const plan = planSeals(parsers, [{ path: "calc/table_test.go", text: TABLE }]);
    const files = {
      // The oldest go line modules carry (go 1.12): the runtime uses no later language feature (0o600 did not build).
      "go.mod": "module example.com\n\ngo 1.12\n",
      "calc/calc.go": calc,
      "calc/table_test.go": plan.files[0]!.text,
      ...Object.fromEntries(plan.added.map((a) => [a.path, a.text])),
    };
    const ran = runGo(files, "calc");
    return { plan, ran, judged: judgeSeals(plan, ran.records, ran.tests) };
  }
  const CALC = `package calc

import "strings"

func Add(a, b int) int { return a + b }

func Words(s string) ([]string, error) {
	if s == "" {
		return nil, nil
	}
	return strings.Fields(s), nil
}
`;

  it("the want column leaves the file; each row is one run of the comparison; a correct fix matches them all", () => {
    const { plan, ran, judged } = run(CALC);
    expect(plan.files[0]!.text).toContain('{"small", 2, 3, *new(int)}');
    expect(plan.files[0]!.text).toContain('{name: "big", a: 20, b: 3, want: *new(int)}');
    expect(plan.sites.map((s) => [s.kind, s.rows?.length, s.strength])).toEqual([
      ["go.eq", 2, "strong"],
      ["go.deepEqual", 2, "strong"],
    ]);
    expect(judged.inconsistent, ran.output).toBeNull();
    expect(Object.values(judged.sites)).toEqual(["matched", "matched"]);
  });

  it("wrong from 10 on: the second row fails, named by its row", () => {
    const { judged } = run(
      CALC.replace("return a + b", "if a >= 10 {\n\t\treturn a + b + 1\n\t}\n\treturn a + b"),
    );
    const table = judged.tests.find((t) => t.id.endsWith("::TestTable"))!;
    expect(table.outcome).toBe("failed");
    expect(table.message).toMatch(/\(row 2 of its table\)\n {2}expected: 23\n {2}actual: {3}24/);
  });
  it("a row can leave the loop early (continue, break, goto, a subtest's return or skip): its rows are not sealed", () => {
    const loop = (body: string) => `package calc_test

import (
	"testing"

	"example.com/calc"
)

func TestLoop(t *testing.T) {
	for _, tc := range []struct {
		a, want int
		skip    bool
	}{
		{1, 2, false},
		{9, 0, true},
	} {
${body}
	}
}
`;
    const check = "\t\tif got := calc.Add(tc.a, 1); got != tc.want {\n\t\t\tt.Error(got)\n\t\t}\n";
    const leaving = [
      `\t\tif tc.skip {\n\t\t\tcontinue\n\t\t}\n${check}`,
      `\t\tif tc.skip {\n\t\t\tbreak\n\t\t}\n${check}`,
      `\t\tt.Run("r", func(t *testing.T) {\n\t\t\tif tc.skip {\n\t\t\t\treturn\n\t\t\t}\n${check.replaceAll("\t\t", "\t\t\t")}\t\t})\n`,
      `\t\tt.Run("r", func(t *testing.T) {\n\t\t\tif tc.skip {\n\t\t\t\tt.Skip()\n\t\t\t}\n${check.replaceAll("\t\t", "\t\t\t")}\t\t})\n`,
    ];
    for (const body of leaving) {
      const plan = planSeals(parsers, [{ path: "calc/loop_test.go", text: loop(body) }]);
      expect(plan.sites, body).toEqual([]);
      expect(
        plan.unsealed.map((u) => u.rule),
        body,
      ).toEqual(["unsealed.early-exit"]);
    }
    // A continue or break of a loop inside the row, or a break of a switch, leaves the row whole.
    const inner = `\t\tfor i := 0; i < 2; i++ {\n\t\t\tif i == 1 {\n\t\t\t\tcontinue\n\t\t\t}\n\t\t}\n\t\tswitch tc.a {\n\t\tcase 1:\n\t\t\tbreak\n\t\t}\n${check}`;
    const whole = planSeals(parsers, [{ path: "calc/loop_test.go", text: loop(inner) }]);
    expect(whole.sites.map((s) => s.rows?.length)).toEqual([2]);
  });
});

describe("a column of interface type under go 1.19: got != tt.want compares as interfaces", () => {
  // Go converts a concrete got to the column's interface: its dynamic type must be the cell's (an
  // int64(11) is not `want any: 11`), and it is never a nil interface (a nil *ValidationError returned
  // as its own type is no nil `want error`: the classic typed-nil bug). s27 attack review, findings 5 and 6.
  const TABLE = `package calc_test

import (
	"reflect"
	"testing"

	"example.com/calc"
)

func TestCount(t *testing.T) {
	tests := []struct {
		in   string
		want any
	}{
		{"héllo wörld", 11},
		{"ab", 2},
	}
	for _, tt := range tests {
		if got := calc.Count(tt.in); got != tt.want {
			t.Errorf("Count(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		in   string
		want error
	}{
		{"ok", nil},
		{in: "fine"},
	}
	for _, tt := range tests {
		if err := calc.Validate(tt.in); err != tt.want {
			t.Errorf("Validate(%q) = %v, want %v", tt.in, err, tt.want)
		}
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want interface{}
	}{
		{"a", "a"},
		{"1", 1},
	}
	for _, tt := range tests {
		if got := calc.Parse(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Parse(%q) = %v", tt.in, got)
		}
		if got := calc.Parse(tt.in); got != tt.want {
			t.Errorf("Parse(%q) = %v", tt.in, got)
		}
	}
}
`;
  const calc = (count: string, validate: string) => `package calc

import "strconv"

type ValidationError struct{ Msg string }

func (e *ValidationError) Error() string { return e.Msg }

func Count(s string) ${count} { return ${count}(len([]rune(s))) }

${validate}

func Parse(s string) interface{} {
	if n, err := strconv.Atoi(s); err == nil {
		return n
	}
	return s
}
`;
  const ERROR = "func Validate(s string) error { return nil }";
  const TYPED_NIL = "func Validate(s string) *ValidationError { return nil }";

  /** go test's own outcome of each test of `text`, and the sealed run's judged outcome; `extra` is source added after `code`. */
  function both(code: string, text = TABLE, extra = "") {
    const plan = planSeals(parsers, [{ path: "calc/iface_test.go", text }]);
    const files = (test: string, added: Record<string, string>) => ({
      "go.mod": "module example.com\n\ngo 1.18\n",
      "calc/calc.go": extra ? `${code}\n${extra}` : code,
      "calc/iface_test.go": test,
      ...added,
    });
    const real = runGo(files(text, {}), "calc");
    const ran = runGo(
      files(plan.files[0]!.text, Object.fromEntries(plan.added.map((a) => [a.path, a.text]))),
      "calc",
    );
    const judged = judgeSeals(plan, ran.records, ran.tests);
    const outcome = (tests: typeof real.tests) =>
      Object.fromEntries(tests.map((t) => [t.id.split("::").pop(), t.outcome]));
    const sealed = Object.fromEntries(
      judged.tests.map((t) => [t.id.split("::").pop(), t.outcome === "passed" ? "passed" : "failed"]),
    );
    return {
      plan,
      real: outcome(real.tests),
      sealed: { ...outcome(ran.tests), ...sealed },
      output: ran.output,
    };
  }

  it("plans every comparison (a missing error cell is nil), and the judge agrees with go test on right and wrong types", () => {
    const right = both(calc("int", ERROR));
    expect(right.plan.sites.map((s) => [s.kind, s.rows?.length])).toEqual([
      ["go.eq", 2],
      ["go.nil", 2],
      ["go.deepEqual", 2],
      ["go.eq", 2],
    ]);
    expect(right.real).toEqual({ TestCount: "passed", TestValidate: "passed", TestParse: "passed" });
    expect(right.sealed, right.output).toEqual(right.real);
    const wrongType = both(calc("int64", TYPED_NIL));
    expect(wrongType.real).toEqual({ TestCount: "failed", TestValidate: "failed", TestParse: "passed" });
    expect(wrongType.sealed, wrongType.output).toEqual(wrongType.real);
  });

  it("a nil cell of a column whose type may be an interface the host does not know is not sealed", () => {
    const plan = planSeals(parsers, [
      {
        path: "calc/v_test.go",
        text: TABLE.replace("want error", "want calc.Checker").replace('\t\t{in: "fine"},\n', ""),
      },
    ]);
    expect(plan.sites.map((s) => s.test.entry)).toEqual(["TestCount", "TestParse", "TestParse"]);
  });

  it("interface-column-named: a column of a named empty interface (driver.Value, a package's own `type Value any`) compares as interfaces too", () => {
    // attack review s28: an int64 count against `want driver.Value: 11` PASSed the sealed run (the
    // host converted 11 to got's type, the column's type unknown to it) where go test fails.
    const text = TABLE.replace("want any", "want driver.Value").replace(
      '\t"reflect"\n',
      '\t"database/sql/driver"\n\t"reflect"\n',
    );
    const named = `${text}
func TestCountOwn(t *testing.T) {
	tests := []struct {
		in   string
		want calc.Value
	}{
		{"héllo wörld", 11},
		{"ab", 2},
	}
	for _, tt := range tests {
		if got := calc.Count(tt.in); got != tt.want {
			t.Errorf("Count(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestCelsius(t *testing.T) {
	tests := []struct {
		in   string
		want calc.Celsius
	}{
		{"ab", 2},
	}
	for _, tt := range tests {
		if got := calc.Temp(tt.in); got != tt.want {
			t.Errorf("Temp(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}
`;
    const extra =
      "type Value any\n\ntype Celsius float64\n\nfunc Temp(s string) Celsius { return Celsius(len(s)) }\n";
    const run = (count: string) => both(calc(count, ERROR), named, extra);
    const right = run("int");
    expect(
      right.plan.sites.filter((s) => ["TestCount", "TestCountOwn", "TestCelsius"].includes(s.test.entry))
        .length,
    ).toBe(3);
    expect(right.real).toMatchObject({ TestCount: "passed", TestCountOwn: "passed", TestCelsius: "passed" });
    expect(right.sealed, right.output).toEqual(right.real);
    const wrongType = run("int64");
    expect(wrongType.real).toMatchObject({
      TestCount: "failed",
      TestCountOwn: "failed",
      TestCelsius: "passed",
    });
    expect(wrongType.sealed, wrongType.output).toEqual(wrongType.real);
  });
});
