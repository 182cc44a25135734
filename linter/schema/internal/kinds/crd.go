package kinds

import (
	"bytes"
	_ "embed"
	"encoding/json"
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
// release installs for the kind of group (such as
// "apiextensions.crossplane.io", "CompositeResourceDefinition"), with its
// x-kubernetes-validations; false when the release or the kind is not
// embedded. release is one of Releases ("v2.1.0", "v2.2.4", "v2.3.4"), or
// a release line ("v2.2", or any patch version of it such as "v2.2.0"),
// which takes the embedded release of that line. Each call returns a copy.
func CRD(release, group, kind string) ([]byte, bool) {
	f := crdsData()
	byKind, ok := f.Releases[release]
	if !ok {
		line := lineOf(release)
		for _, r := range Releases() {
			if lineOf(r) == line {
				byKind, ok = f.Releases[r], true
			}
		}
	}
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

// Releases lists the Crossplane releases whose CRDs CRD holds, oldest
// first.
func Releases() []string {
	var rs []string
	for r := range crdsData().Releases {
		rs = append(rs, r)
	}
	sort.Strings(rs) // v2.x.y only: lexical order is release order
	return rs
}

// lineOf returns "vMAJOR.MINOR" of a version such as v2.2.4 or 2.2.
func lineOf(v string) string {
	v = "v" + strings.TrimPrefix(v, "v")
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 2 {
		return v
	}
	return parts[0] + "." + strings.SplitN(parts[1], "-", 2)[0]
}
