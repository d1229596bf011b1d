import { describe, expect, it } from "vitest";
import { goFilesToKeep, goHelperNames, goRunNames, goUses } from "./go-tests.js";

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
  it("reads the helpers a test file declares (not its tests, init, methods, comments or literals)", () => {
    expect(goHelperNames(muxTest)).toEqual(
      ["Testify", "a", "b", "c", "newRequest", "one", "other", "pair", "routeTest"].sort(),
    );
  });
  it("reads the tests, examples and fuzz targets go test runs (not TestMain, Testify, benchmarks)", () => {
    expect(goRunNames(muxTest)).toEqual(["ExampleRouter", "FuzzParse", "TestHost"]);
  });
  it("tells use as a word outside comments and strings", () => {
    expect(goUses('func TestM(t *testing.T) { r := newRequest("GET", "/") }', ["newRequest"])).toBe(true);
    expect(goUses('// newRequest\nvar s = "newRequest"\nvar newRequestX = 1', ["newRequest"])).toBe(false);
  });
  it("keeps a changed file whose helper a staying file of its folder uses, and what that one needs in turn", () => {
    const texts = new Map([
      ["mux_test.go", "package mux\nfunc newRequest() {}\nfunc TestA(t *testing.T) { deep() }\n"],
      ["deep_test.go", "package mux\nfunc deep() {}\n"],
      ["alone_test.go", "package mux\nfunc TestAlone(t *testing.T) {}\n"],
      ["middleware_test.go", "package mux\nfunc TestMW(t *testing.T) { newRequest() }\n"],
      ["sub/x_test.go", "package sub\nfunc TestX(t *testing.T) { newRequest() }\n"],
      ["sub/y_test.go", "package sub\nfunc helperY() {}\n"],
    ]);
    expect(
      goFilesToKeep(
        ["alone_test.go", "deep_test.go", "mux_test.go", "sub/y_test.go"],
        ["middleware_test.go", "sub/x_test.go"],
        texts,
      ),
    ).toEqual(["deep_test.go", "mux_test.go"]);
  });
});
