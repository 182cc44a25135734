// Package kinds holds, as data, the schemas of the kinds a Crossplane
// package may hold: Crossplane's own kinds from Crossplane's CRDs, and
// Kubernetes' (CustomResourceDefinition, webhook configurations) from
// Kubernetes' published OpenAPI. kinds.json records the versions they come
// from. go generate (generate.sh) regenerates it (gen.go) and crds.json
// (gen_crds.go): it fetches their inputs, Crossplane's CRDs at the commits
// fetch-crds.sh pins (from GitHub, or from the clone CROSSPLANE_GIT names)
// and the k8s.io/kubernetes module. Then regenerate the type tables derived
// from kinds.json with `go test ./linter/schema -run TestKindTypeTables -update`
// (the test fails while they are stale).
package kinds

import _ "embed"

//go:generate sh generate.sh

// JSON is the content of kinds.json.
//
//go:embed kinds.json
var JSON []byte
