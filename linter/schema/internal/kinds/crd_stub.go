package kinds

// STUB until the per-release CRDs are merged: CRD answers from Crossplane
// v2.3.4's CRDs (descriptions stripped) whatever the release.

import (
	_ "embed"
	"encoding/json"
	"sync"
)

//go:embed stubdata/crds-v2.3.4.json
var stubCRDs []byte

var stubIndex = sync.OnceValue(func() map[string]json.RawMessage {
	var m map[string]json.RawMessage
	_ = json.Unmarshal(stubCRDs, &m)
	return m
})

// CRD returns the CustomResourceDefinition (as JSON) of Crossplane's kind
// group/kind at a Crossplane release.
func CRD(release, group, kind string) ([]byte, bool) {
	b, ok := stubIndex()[group+"/"+kind]
	return b, ok
}
