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
// WithSeverity); inside a package, the annotation meta.AnnotationSuppress
// silences rules for one object, or for the whole package when it is on
// the meta object.
//
// A rule's Scope says what it inspects. Package rules (ScopePackage) run
// in Lint; graph rules (ScopeGraph, linter/graphrules's Rules) run over a
// resolved dependency graph in graphrules.Lint, which is LintSubject with
// the *deps.Graph as the subject each rule's RunOn receives; change rules
// (ScopeChange, linter/changerules's Rules) run over the API changes
// between two versions of a package in changerules.Lint, LintSubject with
// the *apidiff.Result as the subject. All
// are described the same way (ID, name,
// Doc, Severity, Bad and Good examples) and configured by the same
// RuleOptions: a rule set may hold rules of every scope, each runner runs
// those of its own and knows the others by name, so one configuration
// serves a package, its graph and its API changes. The parser's document errors become diagnostics of XP001
// yaml-syntax (syntax errors, limit errors and anything unclassified),
// XP002 missing-type (no or unknown apiVersion/kind, a document that is not
// an object) and XP005 field-type (a value of the wrong type), so a user
// sees one list.
//
// # Severity policy
//
// Every built-in rule holds to one policy, so that a run with no error
// means Crossplane will accept the package, and a run with an error means
// it will not, or that the package cannot work:
//
//   - SeverityError: Crossplane's build (crossplane xpkg build) or its
//     package manager refuses the package, or the API server rejects one of
//     the package's objects (or the package revision carrying its metadata)
//     at install, or the package cannot work as written (a dependency that
//     can never resolve, a CRD that can never be served). The Doc of every
//     error-severity rule names the Crossplane or Kubernetes code behind the
//     claim, as package and function at a stated version, so a reader can
//     check it.
//   - SeverityWarning: Crossplane accepts the package, but something in it
//     is deprecated, ignored, ambiguous or likely a mistake.
//   - SeverityInfo: documentation and good practice.
//
// Where the answer depends on the Crossplane version, a rule follows the
// release line (1.20, 2.0 ... 2.4) of WithCrossplaneVersion, and
// DefaultCrossplaneVersion (v2.4, the newest stable line) when no version
// is given; one table says what changes at each line (RULES.md, "By
// target"), and Result.Target names the line a Lint call followed.
// WithSeverity regrades a rule's diagnostics whatever the policy says.
//
// The tests hold the rules to the policy: testdata/verdicts is a table of
// small packages, each with the Crossplane release it is judged at, the
// verdict that release reaches on it and the line of Crossplane's code
// that decides it, and the linter must reach the same verdict (exit 1 exactly when Crossplane refuses the
// package or it cannot work); every rule's Bad example must draw it and
// its Good example no error; and every fixture states the severity it
// expects.
//
// Package linttest tests rules against YAML fixtures annotated with
// "# want ID "regexp"" comments, which may also state the severity and
// column expected ("# want XP208:error@5 "regexp"").
package linter

//go:generate go run ./internal/catalog/gen -o RULES.md
