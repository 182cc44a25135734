// Package linter checks parsed Crossplane packages against rules and reports
// every problem as a positioned diagnostic.
//
// The design follows golang.org/x/tools/go/analysis: a Rule is a plain
// value (a stable ID such as "XP102", a short name, a Doc, a default
// Severity, the package kinds it applies to, and a Run function); Run
// receives a Pass (the parsed package, the image facts, the options) and
// reports through Pass.Report and Pass.Reportf. A rule returning an error
// means the rule broke, not that it found something.
//
// Lint runs the built-in rules (Builtin; documented in RULES.md) that fit
// the package's kind, plus any rules of the caller's (WithRules), in
// parallel, and returns the diagnostics sorted by file, line, column and
// rule ID:
//
//	pkg, err := parser.Parse(ctx, r, parser.WithFile("package.yaml"))
//	...
//	res, err := linter.Lint(ctx, pkg, linter.WithCrossplaneVersion("v2.0.0"))
//	...
//	for _, d := range res.Diagnostics {
//		fmt.Println(d)
//	}
//	if res.AtOrAbove(linter.SeverityError) { ... }
//
// Rules are disabled or regraded by ID or name (WithDisabled,
// WithSeverity); inside a package, the annotation SuppressAnnotation
// silences rules for one object, or for the whole package when it is on
// the meta object. The parser's document errors become diagnostics of XP001
// yaml-syntax (syntax errors, limit errors and anything unclassified),
// XP002 missing-type (no or unknown apiVersion/kind, a document that is not
// an object) and XP005 field-type (a value of the wrong type), so a user
// sees one list.
//
// Package linttest tests rules against YAML fixtures annotated with
// "# want ID "regexp"" comments.
package linter

//go:generate go run ./internal/catalog/gen -o RULES.md
