// Package linttest tests lint rules against YAML fixture files whose
// comments say which diagnostics are expected, in the manner of
// golang.org/x/tools/go/analysis/analysistest.
//
// Each *.yaml or *.yml file of a fixture directory is parsed as a package
// stream (parser.Parse with the file's name) and linted with the rules
// under test only. A comment
//
//	kind: Deployment # want XP102 "kind Deployment is not allowed"
//
// expects, on its own line, a diagnostic of rule XP102 (an ID or a name)
// whose message matches the regular expression (a Go double-quoted or
// back-quoted string). One line may carry several expectations:
//
//	# want XP101 "no meta object" XP003 `empty`
//
// A want compares the rule, the message and the line, and, when it states
// them, the severity and the column: the rule may be followed by
// ":severity" (error, warning or info, any case) and by "@column" (the
// 1-based column of the diagnostic's position), in that order:
//
//	  image: Example/Provider # want XP208:error@5 "not a valid image reference"
//	kind: Deployment # want XP102:error "not allowed" XP999@1 "other"
//
// A want without them accepts any severity and column, as before. A
// diagnostic that matches a want's rule and message but not its line,
// severity or column is reported as misplaced, saying which differs.
//
// Image-level diagnostics have no line (see linter.ImageFacts); expect them
// with "# want-image ID "regexp"" anywhere in the file. The image facts come
// from a sidecar file NAME.image.json beside NAME.yaml, holding a
// linter.ImageFacts in JSON. Directives configure a fixture's Lint call:
//
//	# linttest: crossplane-version=v2.0.0
//	# linttest: meta-group=meta.pkg.example.org
//
// (the meta group is given to both the parser and the linter).
//
// Every diagnostic without a matching expectation, and every expectation
// without a matching diagnostic, fails the test; a diagnostic that matches
// an expectation on another line is reported as misplaced.
//
// RunFixes also checks suggested fixes: it applies each fixture's fixes
// (linter.ApplyFixes) and compares the fixed text with the golden file
// NAME.yaml.golden beside it; with the test binary's -update flag (which
// the test package defines) it rewrites the goldens instead.
//
// RunSubject checks rules of the other scopes, graph rules
// (linter/graphrules, over a *deps.Graph) and change rules
// (linter/changerules, over an *apidiff.Result): it runs them over the
// subject the test built and checks their diagnostics against the want
// comments of the fixtures the subject was read from.
package linttest
