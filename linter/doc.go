// Package linter is the framework that checks parsed Crossplane packages
// against rules and reports every problem as a positioned diagnostic. It
// knows no rule of its own: the built-in rules are package linter/rules
// (rules.Builtin, documented in RULES.md), and a program that imports
// only this package links none of them.
//
// The design follows golang.org/x/tools/go/analysis: a Rule is a plain
// value (a stable ID such as "XP102", a short name, a Doc, a default
// Severity, the package kinds it applies to, and a Run function); Run
// receives a Pass (the parsed package, the target, the inputs the caller
// gave) and reports through Pass.Report, Pass.Reportf and
// Pass.ReportFixf. A rule returning an error means the rule broke, not
// that it found something. Rules share work through Pass.Shared (one
// value per Lint call and key), read the caller's inputs through
// Pass.Input (WithInput; Rule.Requires names those a rule cannot run
// without), and may regrade their own diagnostics in one place
// (Rule.Regrade).
//
// Lint runs the rules it is given (WithRuleSet, WithRules) that fit the
// package's kind, in parallel, and returns the diagnostics sorted by
// file, line, column and rule ID:
//
//	pkg, err := parser.Parse(ctx, r, parser.WithFile("package.yaml"))
//	...
//	res, err := linter.Lint(ctx, pkg, linter.WithRules(myRules...), linter.WithCrossplaneVersion("v2.0.0"))
//	...
//	for _, d := range res.Diagnostics {
//		fmt.Println(d)
//	}
//	if res.AtOrAbove(linter.SeverityError) { ... }
//
// Rules are disabled or regraded by ID or name (WithDisabled,
// WithSeverity); inside a package, the annotation meta.AnnotationSuppress
// silences rules for one object, or for the whole package when it is on
// the meta object, and the rule marked Rule.SuppressionCheck reports the
// entries that silenced nothing.
//
// A rule's Scope says what it inspects. Package rules (ScopePackage) run
// in Lint; graph rules (ScopeGraph, linter/graphrules's Rules) run over a
// resolved dependency graph in graphrules.Lint, which is LintSubject with
// the *deps.Graph as the subject each rule's RunOn receives; change rules
// (ScopeChange, linter/changerules's Rules) run over the API changes
// between two versions of a package in changerules.Lint, LintSubject with
// the *apidiff.Result as the subject. All
// are described the same way (ID, name, Doc, Severity, Bad and Good
// examples) and configured by the same Options: a rule set may hold rules
// of every scope, each runner runs those of its own and knows the others
// by name, so one configuration serves a package, its graph and its API
// changes.
//
// Where the answer depends on the Crossplane version, a rule follows the
// release line of WithCrossplaneVersion (Pass.Target), and
// DefaultCrossplaneVersion (v2.4, the newest stable line) when no version
// is given; Result.Target names the line a Lint call followed.
//
// Package linttest tests rules against YAML fixtures annotated with
// "# want ID "regexp"" comments, which may also state the severity and
// column expected ("# want XP208:error@5 "regexp"").
package linter
