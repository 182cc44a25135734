// Package kinds holds, as data, the schemas of the kinds a Crossplane
// package may hold: Crossplane's own kinds from Crossplane's CRDs, and
// Kubernetes' (CustomResourceDefinition, webhook configurations) from
// Kubernetes' published OpenAPI. kinds.json records the versions they come
// from; regenerate it with go generate (gen.go), then the type tables
// derived from it with `go test ./linter/schema -run TestKindTypeTables -update`
// (the test fails while they are stale).
package kinds

import _ "embed"

//go:generate go run gen.go -crds ../../../../../shared/crossplane-crds/v2.1.0 -crossplane v2.1.0 -kubernetes v1.37.2 -kubernetes-v1beta1 v1.21.14 -o kinds.json

// JSON is the content of kinds.json.
//
//go:embed kinds.json
var JSON []byte
