// Package schema validates Kubernetes objects against OpenAPI v3
// structural schemas, as the API server validates custom resources: against
// CustomResourceDefinitions (apiextensions.k8s.io v1 and v1beta1), against
// the CRDs Crossplane derives from CompositeResourceDefinitions (for the
// composite resource and, where claimNames are set, the claim, with the
// fields Crossplane adds to both), and, through PackageKinds, against the
// schemas of the kinds a Crossplane package may hold.
//
// The engine is kube-openapi's validator (k8s.io/kube-openapi/pkg/validation),
// the one the API server runs, after the conversions the
// apiextensions-apiserver applies to a CRD's schema: x-kubernetes-int-or-string
// becomes integer-or-string, formats the API server does not know are
// dropped, nullable is honoured. Around it, this package does what the API
// server does besides: it prunes unknown fields (reporting each as
// KindUnknownField, which the API server does not refuse), drops nulls of
// non-nullable fields that have no default, applies defaults, keeps
// x-kubernetes-preserve-unknown-fields subtrees and the apiVersion, kind and
// metadata of x-kubernetes-embedded-resource objects (which must have an
// apiVersion and a kind), and checks x-kubernetes-list-type set and map
// uniqueness and patterns.
//
// Not checked: CEL rules (x-kubernetes-validations) are not evaluated
// (an Extension may: WithExtension); each Result counts those left
// unevaluated in Result.CEL. ObjectMeta (names, labels, annotations) is
// not validated. Patterns inside anyOf, oneOf and not branches are skipped and listed in Result.Skipped. The
// internal/schemaparity module compares verdicts with the
// apiextensions-apiserver's own validation.
//
// Validators are lazy and safe for concurrent use: New reads only the
// definitions' outlines, and a definition version's schema is converted the
// first time an object of that version is validated. Schemas are bounded by
// Limits (nodes, depth, enum size, pattern length, nesting of anyOf, oneOf,
// allOf and not), and patterns are compiled with Go's linear-time regexp
// into the Validator's own cache, not kube-openapi's process-wide one.
package schema
