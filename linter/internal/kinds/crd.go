package kinds

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
)

// crdsJSON is crds.json: Crossplane's own CRDs per release (gen_crds.go,
// run by go generate: see the package documentation),
// descriptions dropped, x-kubernetes-validations kept, each distinct CRD
// stored once.
//
//go:embed crds.json
var crdsJSON []byte

type crdsFile struct {
	Releases map[string]map[string]string `json:"releases"`
	CRDs     map[string]json.RawMessage   `json:"crds"`
}

var crdsData = sync.OnceValue(func() *crdsFile {
	var f crdsFile
	if err := json.Unmarshal(crdsJSON, &f); err != nil {
		return &crdsFile{} // embedded data, tested: never happens
	}
	return &f
})

// CRD returns, as JSON, the whole CustomResourceDefinition Crossplane
// release r installs for the kind of group (such as
// "apiextensions.crossplane.io", "CompositeResourceDefinition"), with its
// x-kubernetes-validations; false when the release or the kind is not
// embedded (1.x has no ManagedResourceDefinition and no ops.crossplane.io
// kinds). r is one of Releases ("v1.20.11", "v2.0.2", "v2.1.0", "v2.2.4",
// "v2.3.4", "v2.4.0"), or a release line ("v2.2", or any patch version of
// it such as "v2.2.0"), which takes the embedded release of that line.
// Each call returns a copy.
func CRD(r, group, kind string) ([]byte, bool) {
	f := crdsData()
	byKind, ok := release(r)
	if !ok {
		return nil, false
	}
	key, ok := byKind[group+"/"+kind]
	if !ok {
		return nil, false
	}
	crd, ok := f.CRDs[key]
	if !ok {
		return nil, false
	}
	return bytes.Clone(crd), true
}

// Same reports whether releases a and b (releases or lines, as CRD takes
// them) are both embedded and install the same CRD, byte for byte, for
// every kind: v2.0.2's equal v2.1.0's, and v2.4.0's v2.3.4's.
func Same(a, b string) bool {
	ra, ok := release(a)
	if !ok {
		return false
	}
	rb, ok := release(b)
	if !ok {
		return false
	}
	if len(ra) != len(rb) {
		return false
	}
	for k, v := range ra {
		if rb[k] != v {
			return false
		}
	}
	return true
}

// release returns the group/kind to key map of release or of the newest
// embedded release of its line.
func release(r string) (map[string]string, bool) {
	f := crdsData()
	if byKind, ok := f.Releases[r]; ok {
		return byKind, true
	}
	var byKind map[string]string
	line := lineOf(r)
	for _, e := range Releases() {
		if lineOf(e) == line {
			byKind = f.Releases[e]
		}
	}
	return byKind, byKind != nil
}

// Releases lists the Crossplane releases whose CRDs CRD holds, oldest
// first.
func Releases() []string {
	var rs []string
	for r := range crdsData().Releases {
		rs = append(rs, r)
	}
	sort.Slice(rs, func(i, j int) bool { return lineOf(rs[i]) < lineOf(rs[j]) })
	return rs
}

// lineOf returns "vMAJOR.MINOR" of a version such as v2.2.4 or 2.2, with
// both numbers zero-padded so that lines compare as strings.
func lineOf(v string) string {
	v = strings.TrimPrefix(v, "v")
	major, rest, _ := strings.Cut(v, ".")
	minor, _, _ := strings.Cut(rest, ".")
	minor, _, _ = strings.Cut(minor, "-")
	return fmt.Sprintf("v%03s.%03s", major, minor)
}
