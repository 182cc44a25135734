// Package apiserver validates a package as the Kubernetes API server does,
// with the API server's own code (k8s.io/apiextensions-apiserver v0.37.2,
// the version matching k8s.io/apimachinery in go.mod), never a copy:
//
//   - XP420 crd-apiserver: each apiextensions.k8s.io/v1
//     CustomResourceDefinition of the package, validated as on create
//     (ValidateCustomResourceDefinition: names, versions, conversion,
//     structural schema, defaults, list types, CEL rules compiled within
//     the cost limits);
//   - XP421 xrd-derived-crd-apiserver: the CRDs Crossplane derives from each
//     CompositeResourceDefinition, with errors at the XRD's fields;
//   - XP422 kind-apiserver: each object of Crossplane's own kinds, as the
//     package manager sends it (its round trip through the target's Go
//     types: internal/sent), against Crossplane's CRD of the kind (required
//     fields, enums, patterns, formats, defaults, CEL rules);
//   - XP423 mrd-derived-crd-apiserver: the CRD Crossplane derives from
//     each active ManagedResourceDefinition, with errors at the MRD's
//     fields;
//   - CEL: an Extension for linter/schema Validators that evaluates the CEL
//     rules of a package's CRDs on its examples (XP408) and composed
//     resources (XP409), with the API server's CEL validator and cost
//     limits.
//
// It is a separate package so that a program that imports only linter
// does not link the API server's code (about 60 more modules; see the
// README's dependency table). Opt in with LintOptions, beside the
// built-in rules:
//
//	opts := append([]linter.Option{linter.WithRuleSet(rules.Builtin()...)}, apiserver.LintOptions()...)
//	res, err := linter.Lint(ctx, pkg, opts...)
//
// Every call into the API server's code goes through one gateway (the
// files gateway*.go), which pre-counts what the call can do (default and
// enum values, CEL rules and their bytes, schema nodes), refuses a call
// over its limits or its rule run's budget with an info diagnostic
// ("not validated: …" naming the limit), and runs under the context.
//
// Costs are bounded: CRDs (and the CRDs derived from XRDs) are validated
// concurrently, up to GOMAXPROCS at once and at most 256 KiB of their source
// beyond the first, and reported in the package's order; CEL rules compile
// once per definition version and only when an object of it is
// validated, and CEL evaluation spends at most DefaultBudget per set of
// options (the API server's per-object budget applies within it).
package apiserver
