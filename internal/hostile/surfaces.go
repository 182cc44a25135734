package hostile

// Surface is one input the CLI or the library reads, paired with a case
// that is its worst case. Name is the surface:
//
//   - "flag:--NAME", a flag of xpkg-lint (lintcmd) that names a file,
//     a directory, a source or a pattern, or that reads or writes package
//     files (--fix, --diff, --write-baseline);
//   - "config:KEY", a key of .xpkg-lint.yaml (lintcmd's
//     config.schema.json); "file:NAME", a configuration file the program
//     finds by name;
//   - "validator:ENTRY", an entry point into code xpkgkit does not own that
//     can be quadratic or unbounded (apiextensions-apiserver, kube-openapi's
//     validators, the CEL compiler);
//   - "endpoint:METHOD PATH", an endpoint of a server among the examples;
//   - "arg:SOURCE", the source itself.
//
// Case is the name of a case of Cases, Controls, FileCases, APIDiffCases
// or DepsCases.
type Surface struct {
	Name string
	Case string
}

// Surfaces returns every surface with its worst case, one line per surface
// and case (a surface may have several lines). TestSurfacesCovered fails
// when a flag that names a file or pattern, a configuration key, a
// configuration file, a validator entry point or a server endpoint has no
// line here, or no line in surfaceGaps: register a new surface by adding a
// line.
func Surfaces() []Surface {
	return []Surface{
		{"arg:SOURCE", "parser-cost-flow-lists-near-node-limit-xpkg"},
		{"arg:SOURCE", "parser-cost-dir-200k-files"},

		// Files beside the package (cases_files.go).
		{"flag:--fix", "files-fix-link-at-temp"},
		{"flag:--fix", "files-fix-fifo-at-temp"},
		{"flag:--fix", "files-fix-linked-package-file"},
		{"flag:--diff", "files-diff-fifo-at-temp"},
		{"flag:--baseline", "files-baseline-dangling-link"},
		{"flag:--baseline", "files-baseline-entries"},
		{"flag:--baseline", "files-baseline-fifo"},
		{"flag:--write-baseline", "files-baseline-dangling-link"},
		{"flag:--config", "files-config-flag-fifo"},
		{"flag:--ignore", "files-ignore-flag-long-glob"},
		{"flag:--image-config", "files-image-config-fifo"},
		{"flag:--against", "files-against-unparseable-old"},
		{"flag:--against", "apidiff-cost-wide-schema"},
		{"flag:--against", "files-against-fifo"},
		{"flag:--registry-config", "files-registry-config-fifo"},
		{"flag:--verify-key", "files-verify-key-fifo"},
		{"flag:--trusted-root", "files-trusted-root-fifo"},
		{"flag:--deps-from", "deps-cost-unresolved"},
		{"flag:--deps-from", "deps-cost-version-choice"},
		{"flag:--deps-cache", "files-deps-cache-fifo"},
		{"config:ignore", "files-ignore-long-globs"},
		{"config:ignore", "files-ignore-globs-at-cap"},
		{"config:disable", "files-config-disable-over-cap"},
		{"config:severity", "files-config-severity-over-cap"},
		{"config:fail-on", "files-config-huge-fail-on"},
		{"config:crossplane-version", "files-config-huge-version"},
		{"config:deps-from", "files-config-deps-from-over-cap"},
		{"config:against", "files-config-against-unparseable-old"},
		{"config:image-config", "files-config-image-config-fifo"},
		{"config:baseline", "files-config-baseline-dangling-link"},
		{"config:baseline", "files-config-baseline-outside"},
		{"config:exclude", "files-config-exclude-at-cap"},
		{"config:max-crds", "files-config-huge-max-crds"},
		{"config:max-apiserver-memory", "files-config-huge-max-apiserver-memory"},
		{"file:.xpkg-lint.yaml", "files-config-fifo"},
		{"file:.xpkg-lint.yml", "files-config-link"},

		// Code xpkgkit does not own (the API-server gateway).
		{"validator:cel-compile", "cel-cost-thousands-of-rules"},
		{"validator:cel-compile", "cel-cost-long-strings"},
		{"validator:cel-regex", "cel-cost-regex"},
		{"validator:cel-cost-estimate", "cel-cost-max-estimated"},
		{"validator:cel-compile", "gateway-cel-rules-crd"},
		{"validator:cel-compile", "gateway-cel-aliased-versions"},
		{"validator:cel-compile", "gateway-cel-long-rules"},
		{"validator:cel-compile", "gateway-run-rules-at-cap"},
		{"validator:cel-compile", "gateway-run-rule-bytes-at-cap"},
		{"validator:cel-regex", "gateway-regex-data"},
		{"validator:cel-regex", "gateway-regex-concat"},
		{"validator:cel-regex", "gateway-regex-literals"},
		{"validator:apiextensions-apiserver-crd", "gateway-default-items-crd"},
		{"validator:apiextensions-apiserver-crd", "gateway-regex-default"},
		{"validator:apiextensions-apiserver-derived-crd", "gateway-default-items-xrd"},
		{"validator:apiextensions-apiserver-derived-crd", "gateway-cel-rules-xrd"},
		{"validator:apiextensions-apiserver-derived-crd", "gateway-xrd-8mb-five"},
		{"validator:apiextensions-apiserver-composition", "gateway-xrd-8mb"},
		{"validator:apiextensions-apiserver-composition", "gateway-xrd-8mb-five"},
		{"validator:kube-openapi-validate", "gateway-pattern-defaults"},
		{"validator:kube-openapi-validate", "gateway-pattern-program"},

		// The verdict cache in the cache directory (cases_cache.go).
		{"flag:--cache-dir", "cache-cost-100k-one-pack"},
		{"flag:--cache-dir", "cache-cost-100k-many-packs"},
		{"flag:--cache-dir", "cache-cost-full"},
		{"flag:--cache-dir", "cache-cost-lying-packs"},
		{"flag:--cache-dir", "cache-cost-fifo-packs"},
		{"flag:--cache-dir", "cache-cost-fifo-cache"},

		// examples/verify-upload's endpoint (cases_graph.go).
		{"endpoint:POST /verify", "server-verify-held"},
		{"endpoint:POST /verify", "server-verify-trickle"},

		// The language server's stdin (cases_lsp.go): framing, edits,
		// requests on a deep document.
		{"endpoint:xpkg-lsp stdio", "lsp-message-100mb"},
		{"endpoint:xpkg-lsp stdio", "lsp-edits-at-cap"},
		{"endpoint:xpkg-lsp stdio", "lsp-deep-requests"},
	}
}

// surfaceGaps are the surfaces known to have no worst-case generator in
// this package yet, each with why; TestSurfacesCovered logs them. A
// surface moves from here to Surfaces with its case.
func surfaceGaps() map[string]string {
	return map[string]string{}
}

// validatorEntryPoints and serverEndpoints are the entry points and
// endpoints the coverage test requires a case (or a gap) for: a listed
// table, as they cannot be derived from a flag set. Add a line when a new
// one appears.
func validatorEntryPoints() []string {
	return []string{
		"validator:cel-compile", "validator:cel-regex", "validator:cel-cost-estimate",
		"validator:apiextensions-apiserver-crd", "validator:apiextensions-apiserver-derived-crd",
		"validator:apiextensions-apiserver-composition", "validator:kube-openapi-validate",
	}
}

func serverEndpoints() []string {
	return []string{"endpoint:POST /verify", "endpoint:xpkg-lsp stdio"}
}
