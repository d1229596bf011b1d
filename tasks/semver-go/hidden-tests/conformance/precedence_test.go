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
