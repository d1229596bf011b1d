# semver-go: Semantic Versioning 2.0.0 parsing and precedence in Go (standard library only),
# tested with go test through gotestsum's JUnit output.
# The bug: pre-release identifiers are compared as strings, so 1.0.0-beta.11 sorts before
# 1.0.0-beta.2 and 1.0.0-rc.10 before 1.0.0-rc.9; the spec compares numeric identifiers numerically.

file go.mod <<'EOF'
module example.com/semver

go 1.19
EOF
file semver.go <<'EOF'
// Package semver parses Semantic Versioning 2.0.0 versions and orders them by precedence.
package semver

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Version is a parsed semantic version. Build metadata is kept but never affects precedence.
type Version struct {
	Major, Minor, Patch uint64
	Prerelease          []string
	Build               []string
}

var pattern = regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)` +
	`(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?` +
	`(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$`)

// Parse reads a version such as "1.4.0-rc.1+build.7". A leading "v" is not accepted.
func Parse(text string) (Version, error) {
	m := pattern.FindStringSubmatch(text)
	if m == nil {
		return Version{}, fmt.Errorf("semver: %q is not a semantic version", text)
	}
	var v Version
	var err error
	for i, field := range []*uint64{&v.Major, &v.Minor, &v.Patch} {
		if *field, err = strconv.ParseUint(m[i+1], 10, 64); err != nil {
			return Version{}, fmt.Errorf("semver: %q: %w", text, err)
		}
	}
	if m[4] != "" {
		v.Prerelease = strings.Split(m[4], ".")
	}
	if m[5] != "" {
		v.Build = strings.Split(m[5], ".")
	}
	return v, nil
}

// MustParse is Parse for constants; it panics on an invalid version.
func MustParse(text string) Version {
	v, err := Parse(text)
	if err != nil {
		panic(err)
	}
	return v
}

// String formats the version back into its canonical text.
func (v Version) String() string {
	s := fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch)
	if len(v.Prerelease) > 0 {
		s += "-" + strings.Join(v.Prerelease, ".")
	}
	if len(v.Build) > 0 {
		s += "+" + strings.Join(v.Build, ".")
	}
	return s
}
EOF
file semver_test.go <<'EOF'
package semver

import (
	"reflect"
	"testing"
)

func TestParse(t *testing.T) {
	v, err := Parse("1.4.0-rc.1+build.7")
	if err != nil {
		t.Fatal(err)
	}
	want := Version{Major: 1, Minor: 4, Patch: 0, Prerelease: []string{"rc", "1"}, Build: []string{"build", "7"}}
	if !reflect.DeepEqual(v, want) {
		t.Fatalf("Parse = %#v, want %#v", v, want)
	}
}

func TestParseRejects(t *testing.T) {
	for _, text := range []string{"", "1", "1.2", "v1.2.3", "01.2.3", "1.2.3-", "1.2.3-01", "1.2.3+", "1.2.3-a..b"} {
		if _, err := Parse(text); err == nil {
			t.Errorf("Parse(%q) succeeded, want an error", text)
		}
	}
}

func TestStringRoundTrips(t *testing.T) {
	for _, text := range []string{"0.0.0", "1.2.3", "1.0.0-alpha.1", "1.0.0+20130313144700", "1.0.0-beta+exp.sha.5114f85"} {
		if got := MustParse(text).String(); got != text {
			t.Errorf("String() = %q, want %q", got, text)
		}
	}
}
EOF
file README.md <<'EOF'
# semver

Semantic Versioning 2.0.0 for Go, standard library only.

    v, err := semver.Parse("1.4.0-rc.1+build.7")

Run the tests with `go test ./...`.
EOF
commit 2024-07-01T13:00:00Z "Parse semantic versions"

file compare.go <<'EOF'
package semver

import "strings"

// Compare returns -1, 0 or +1 as a has lower, equal or higher precedence than b
// (Semantic Versioning 2.0.0, section 11). Build metadata is ignored.
func Compare(a, b Version) int {
	if c := compareUint(a.Major, b.Major); c != 0 {
		return c
	}
	if c := compareUint(a.Minor, b.Minor); c != 0 {
		return c
	}
	if c := compareUint(a.Patch, b.Patch); c != 0 {
		return c
	}
	return comparePrerelease(a.Prerelease, b.Prerelease)
}

// Less reports whether a has lower precedence than b.
func Less(a, b Version) bool { return Compare(a, b) < 0 }

// comparePrerelease orders pre-release identifier lists: a version without one ranks above any
// version with one; otherwise identifiers are compared left to right, and a longer list of equal
// prefix ranks higher.
func comparePrerelease(a, b []string) int {
	switch {
	case len(a) == 0 && len(b) == 0:
		return 0
	case len(a) == 0:
		return 1
	case len(b) == 0:
		return -1
	}
	for i := 0; i < len(a) && i < len(b); i++ {
		if c := strings.Compare(a[i], b[i]); c != 0 {
			return c
		}
	}
	return compareUint(uint64(len(a)), uint64(len(b)))
}

func compareUint(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
EOF
file compare_test.go <<'EOF'
package semver

import "testing"

func TestCompare(t *testing.T) {
	cases := []struct {
		a, b string
		want int
	}{
		{"1.0.0", "2.0.0", -1},
		{"2.0.0", "2.1.0", -1},
		{"2.1.0", "2.1.1", -1},
		{"1.2.3", "1.10.0", -1},
		{"1.0.0", "1.0.0", 0},
		{"1.0.0-alpha", "1.0.0", -1},
		{"1.0.0-alpha", "1.0.0-beta", -1},
		{"1.0.0-alpha", "1.0.0-alpha.1", -1},
		{"1.0.0-rc.1", "1.0.0-beta.1", 1},
		{"1.0.0+build.1", "1.0.0+build.2", 0},
	}
	for _, c := range cases {
		if got := Compare(MustParse(c.a), MustParse(c.b)); got != c.want {
			t.Errorf("Compare(%s, %s) = %d, want %d", c.a, c.b, got, c.want)
		}
		if got := Compare(MustParse(c.b), MustParse(c.a)); got != -c.want {
			t.Errorf("Compare(%s, %s) = %d, want %d", c.b, c.a, got, -c.want)
		}
	}
}
EOF
commit 2024-07-02T09:20:00Z "Compare versions by precedence"

file sort.go <<'EOF'
package semver

import "sort"

// Sort orders versions by ascending precedence. Versions of equal precedence (differing only in
// build metadata) keep their relative order.
func Sort(versions []Version) {
	sort.SliceStable(versions, func(i, j int) bool { return Less(versions[i], versions[j]) })
}

// Max returns the version of highest precedence, and false when there is none.
func Max(versions []Version) (Version, bool) {
	if len(versions) == 0 {
		return Version{}, false
	}
	best := versions[0]
	for _, v := range versions[1:] {
		if Less(best, v) {
			best = v
		}
	}
	return best, true
}
EOF
file sort_test.go <<'EOF'
package semver

import (
	"reflect"
	"testing"
)

func parseAll(t *testing.T, texts ...string) []Version {
	t.Helper()
	out := make([]Version, len(texts))
	for i, text := range texts {
		out[i] = MustParse(text)
	}
	return out
}

func TestSort(t *testing.T) {
	got := parseAll(t, "2.0.0", "1.0.0-beta", "1.0.0", "1.0.0-alpha", "0.9.1")
	Sort(got)
	want := parseAll(t, "0.9.1", "1.0.0-alpha", "1.0.0-beta", "1.0.0", "2.0.0")
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Sort = %v, want %v", got, want)
	}
}

func TestSortIsStableForBuildMetadata(t *testing.T) {
	got := parseAll(t, "1.0.0+b", "1.0.0+a")
	Sort(got)
	if got[0].String() != "1.0.0+b" {
		t.Fatalf("Sort reordered versions of equal precedence: %v", got)
	}
}

func TestMax(t *testing.T) {
	if _, ok := Max(nil); ok {
		t.Fatal("Max(nil) reported a version")
	}
	best, _ := Max(parseAll(t, "1.2.0", "1.10.0", "1.9.9"))
	if best.String() != "1.10.0" {
		t.Fatalf("Max = %v, want 1.10.0", best)
	}
}
EOF
file README.md <<'EOF'
# semver

Semantic Versioning 2.0.0 for Go, standard library only: parse, compare, sort.

    v, err := semver.Parse("1.4.0-rc.1+build.7")
    semver.Less(semver.MustParse("1.0.0-rc.1"), v) // true
    semver.Sort(versions)

Run the tests with `go test ./...`.
EOF
commit 2024-07-08T17:35:00Z "Add Sort and Max"

# The fix: compare identifiers as the spec says (numeric numerically, numeric below alphanumeric).
file compare.go <<'EOF'
package semver

import (
	"strconv"
	"strings"
)

// Compare returns -1, 0 or +1 as a has lower, equal or higher precedence than b
// (Semantic Versioning 2.0.0, section 11). Build metadata is ignored.
func Compare(a, b Version) int {
	if c := compareUint(a.Major, b.Major); c != 0 {
		return c
	}
	if c := compareUint(a.Minor, b.Minor); c != 0 {
		return c
	}
	if c := compareUint(a.Patch, b.Patch); c != 0 {
		return c
	}
	return comparePrerelease(a.Prerelease, b.Prerelease)
}

// Less reports whether a has lower precedence than b.
func Less(a, b Version) bool { return Compare(a, b) < 0 }

// comparePrerelease orders pre-release identifier lists: a version without one ranks above any
// version with one; otherwise identifiers are compared left to right, and a longer list of equal
// prefix ranks higher.
func comparePrerelease(a, b []string) int {
	switch {
	case len(a) == 0 && len(b) == 0:
		return 0
	case len(a) == 0:
		return 1
	case len(b) == 0:
		return -1
	}
	for i := 0; i < len(a) && i < len(b); i++ {
		if c := compareIdentifier(a[i], b[i]); c != 0 {
			return c
		}
	}
	return compareUint(uint64(len(a)), uint64(len(b)))
}

// compareIdentifier compares numeric identifiers numerically and others in ASCII order; a numeric
// identifier ranks below an alphanumeric one.
func compareIdentifier(a, b string) int {
	na, errA := strconv.ParseUint(a, 10, 64)
	nb, errB := strconv.ParseUint(b, 10, 64)
	switch {
	case errA == nil && errB == nil:
		return compareUint(na, nb)
	case errA == nil:
		return -1
	case errB == nil:
		return 1
	}
	return strings.Compare(a, b)
}

func compareUint(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
EOF
gold

hidden conformance/precedence_test.go <<'EOF'
// Package conformance_test checks the precedence rules of Semantic Versioning 2.0.0, section 11,
// through the public API only.
package conformance_test

import (
	"math/rand"
	"testing"

	"example.com/semver"
)

// specOrder is the example of section 11.4 of the specification, lowest precedence first.
var specOrder = []string{
	"1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta",
	"1.0.0-beta.2", "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0",
}

func TestSpecExampleIsAscending(t *testing.T) {
	for i := 1; i < len(specOrder); i++ {
		a, b := semver.MustParse(specOrder[i-1]), semver.MustParse(specOrder[i])
		if !semver.Less(a, b) {
			t.Errorf("want %s < %s", a, b)
		}
	}
}

func TestNumericIdentifiersCompareNumerically(t *testing.T) {
	for _, pair := range [][2]string{{"1.0.0-2", "1.0.0-10"}, {"1.0.0-rc.9", "1.0.0-rc.10"}, {"2.0.0-alpha.1.99", "2.0.0-alpha.1.100"}} {
		if !semver.Less(semver.MustParse(pair[0]), semver.MustParse(pair[1])) {
			t.Errorf("want %s < %s", pair[0], pair[1])
		}
	}
}

func TestNumericIdentifiersRankBelowAlphanumeric(t *testing.T) {
	if !semver.Less(semver.MustParse("1.0.0-999"), semver.MustParse("1.0.0-0a")) {
		t.Error("want 1.0.0-999 < 1.0.0-0a")
	}
}

func TestSortShuffledSpecExample(t *testing.T) {
	versions := make([]semver.Version, len(specOrder))
	for i, j := range rand.New(rand.NewSource(7)).Perm(len(specOrder)) {
		versions[i] = semver.MustParse(specOrder[j])
	}
	semver.Sort(versions)
	for i, v := range versions {
		if v.String() != specOrder[i] {
			t.Fatalf("Sort: position %d is %s, want %s (got %v)", i, v, specOrder[i], versions)
		}
	}
}
EOF

cat > "$task/task.json.in" <<'EOF'
{
  "$schema": "../../packages/spec/task.schema.json",
  "id": "semver-go",
  "description": "Go semantic-version precedence; numeric pre-release identifiers must compare numerically. Tests: go test via gotestsum --junitfile.",
  "image": "go-gotestsum",
  "framework": "go",
  "repo": { "mirror": "repo.bundle", "baseCommit": "@BASE_COMMIT@" },
  "suites": {
    "existing": {
      "command": "gotestsum --format standard-verbose --junitfile \"$ORACLE_JUNIT\" -- -count=1 .",
      "files": ["*_test.go", "**/*_test.go", "go.mod", "go.sum", "**/testdata/**"]
    },
    "hidden": {
      "command": "gotestsum --format standard-verbose --junitfile \"$ORACLE_JUNIT\" -- -count=1 ./conformance"
    }
  },
  "diff": {
    "allow": ["**"],
    "deny": ["*_test.go", "**/*_test.go", "**/testdata/**", "conformance/**", "go.mod", "go.sum", "vendor/**", "go.work", "go.work.sum"]
  },
  "timeoutSeconds": 120,
  "env": { "GOPROXY": "off", "GOFLAGS": "-mod=readonly", "CGO_ENABLED": "0" }
}
EOF
