import { describe, expect, it } from "vitest";
import { goFilesToKeep, goHelperNames, goModWarnings, goRunNames, goUses } from "./go-tests.js";

const muxTest = `package mux

import (
	"net/http"
	"testing"
)

// func fake() in a comment
type routeTest struct {
	title string
}

var (
	a, b = 1, 2
	c    = "func notAFunc() {"
)

const one = 1

type (
	pair struct{ x int }
	other = pair
)

func newRequest(method, url string) *http.Request {
	req, _ := http.NewRequest(method, url, nil)
	return req
}

func (r routeTest) String() string { return r.title }

func init() {}

func TestHost(t *testing.T) {
	s := \`
func rawHelper() {}
\`
	_ = s
}

func Testify() {}

func TestMain(m *testing.M) {}

func BenchmarkX(b *testing.B) {}

func ExampleRouter() {}

func FuzzParse(f *testing.F) {}
`;

describe("Go test files", () => {
  it("reads the helpers a test file declares (not its tests, init, methods, comments or literals)", async () => {
    expect(await goHelperNames(muxTest)).toEqual(
      ["Testify", "a", "b", "c", "newRequest", "one", "other", "pair", "routeTest"].sort(),
    );
  });
  it("reads the tests, examples and fuzz targets go test runs (not TestMain, Testify, benchmarks)", async () => {
    expect(await goRunNames(muxTest)).toEqual(["ExampleRouter", "FuzzParse", "TestHost"]);
  });
  it("tells use as a word outside comments and strings", async () => {
    expect(
      await goUses('package m\nfunc TestM(t *testing.T) { r := newRequest("GET", "/") }', ["newRequest"]),
    ).toBe(true);
    expect(
      await goUses('package m\n// newRequest\nvar s = "newRequest"\nvar newRequestX = 1', ["newRequest"]),
    ).toBe(false);
  });
  it("keeps a changed file whose helper a staying file of its folder uses, and what that one needs in turn", async () => {
    const texts = new Map([
      ["mux_test.go", "package mux\nfunc newRequest() {}\nfunc TestA(t *testing.T) { deep() }\n"],
      ["deep_test.go", "package mux\nfunc deep() {}\n"],
      ["alone_test.go", "package mux\nfunc TestAlone(t *testing.T) {}\n"],
      ["middleware_test.go", "package mux\nfunc TestMW(t *testing.T) { newRequest() }\n"],
      ["sub/x_test.go", "package sub\nfunc TestX(t *testing.T) { newRequest() }\n"],
      ["sub/y_test.go", "package sub\nfunc helperY() {}\n"],
    ]);
    expect(
      await goFilesToKeep(
        ["alone_test.go", "deep_test.go", "mux_test.go", "sub/y_test.go"],
        ["middleware_test.go", "sub/x_test.go"],
        texts,
      ),
    ).toEqual(["deep_test.go", "mux_test.go"]);
  });
  it("reads literals, comments and groups by the syntax tree (where the hand lexer misread them)", async () => {
    const text = `//go:build linux && !race

package mux

import "testing"

/* func TestInBlockComment(t *testing.T) {} */
// func TestInComment(t *testing.T) {}

var (
	open  = '{'
	raw   = \`{
func rawTest() {
\`
	total = 1 +
		notAName
)

func Map[T any](x T) T { return x }

type Box[T any] struct{ v T }

func (b Box[T]) Get() T { return b.v }

func (routeTest) Method() {}

func TestAfterBraces(t *testing.T) {
	_ = "}"
	_ = '}'
}

func TestLast(t *testing.T) {}
`;
    expect(await goHelperNames(text)).toEqual(["Box", "Map", "open", "raw", "total"]);
    expect(await goRunNames(text)).toEqual(["TestAfterBraces", "TestLast"]);
    // the methods Get and Method are no helpers; a field or a selector names what it reads
    expect(await goUses(text, ["Get", "Method"])).toBe(true);
    expect(await goUses(text, ["rawTest", "TestInComment", "notAFunc"])).toBe(false);
  });
  it("reads a file that does not parse as unknown: kept when its folder has others, and using every name", async () => {
    expect(await goHelperNames("package m\nfunc broken( {\n")).toBeNull();
    expect(await goRunNames("package m\nfunc TestBroken( {\n")).toBeNull();
    expect(await goUses("package m\nfunc TestBroken( {\n", ["anything"])).toBe(true);
    const texts = new Map([
      ["a_test.go", "package m\nfunc broken( {\n"],
      ["b_test.go", "package m\nfunc TestB(t *testing.T) {}\n"],
      ["c_test.go", "package m\nfunc helperC() {}\n"],
      ["d_test.go", "package m\nfunc TestD(t *testing.T) {}\n"],
    ]);
    // a_test.go stays, and then, as a file that uses every name, keeps c_test.go too
    expect(await goFilesToKeep(["a_test.go", "c_test.go"], ["b_test.go"], texts)).toEqual([
      "a_test.go",
      "c_test.go",
    ]);
    expect(await goFilesToKeep(["c_test.go"], ["b_test.go"], texts)).toEqual([]);
    texts.set("b_test.go", "package m\nfunc TestB( {\n");
    expect(await goFilesToKeep(["c_test.go"], ["b_test.go"], texts)).toEqual(["c_test.go"]);
  });
});

describe("goModWarnings", () => {
  it("says nothing of a go line Go 1.19 reads, however new (it is advisory before Go 1.21)", () => {
    for (const go of ["1.16", "1.19", "1.20", "1.22"])
      expect(
        goModWarnings(`module m\n\ngo ${go}\n\nrequire (\n\tgithub.com/x/y v1.0.0 // indirect\n)\n`),
      ).toEqual([]);
    expect(goModWarnings("")).toEqual([]);
  });

  it("warns of what Go 1.19 cannot load: a go line in the Go 1.21+ form, a toolchain or godebug directive", () => {
    expect(goModWarnings("module m\n\ngo 1.21.0\n")).toEqual([
      expect.stringContaining("'go 1.21.0' line is in the form of Go 1.21 and later"),
    ]);
    expect(goModWarnings("module m\n\ngo 1.22rc1 // pre-release\n")).toHaveLength(1);
    expect(goModWarnings("module m\n\ngo 1.21\n\ntoolchain go1.21.5\n")).toEqual([
      expect.stringContaining("unknown directive: toolchain"),
    ]);
    expect(goModWarnings("module m\n\ngo 1.23\n\ngodebug (\n\tpanicnil=1\n)\n")).toEqual([
      expect.stringContaining("'godebug' directive"),
    ]);
  });
});
