package report_test

import (
	"os"

	"github.com/xpkgkit/xpkgkit/lintcmd/internal/report"
	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/parser"
)

func Example() {
	w, err := report.New(report.FormatText, os.Stdout, report.Options{})
	if err != nil {
		panic(err)
	}
	w.Source(&report.Source{
		Name: "provider-example",
		Kind: "directory",
		Diagnostics: []linter.Diagnostic{{
			RuleID:   "XP205",
			RuleName: "source-url",
			Severity: linter.SeverityWarning,
			Message:  `meta.crossplane.io/source "tbd" is not a URL`,
			Pos:      parser.Position{File: "provider-example/crossplane.yaml", Line: 7, Column: 5},
		}},
	})
	if err := w.Close(0); err != nil {
		panic(err)
	}
	// Output:
	// provider-example (directory): 0 errors, 1 warning, 0 info
	// provider-example/crossplane.yaml:7:5: warning XP205 source-url: meta.crossplane.io/source "tbd" is not a URL
	//
	// 1 source: 0 errors, 1 warning, 0 info
}

func ExampleGitHubCommand() {
	d := linter.Diagnostic{
		RuleID:   "XP202",
		RuleName: "crossplane-constraint",
		Severity: linter.SeverityError,
		Message:  `spec.crossplane.version "v1,x" is not a semver constraint`,
		Pos:      parser.Position{File: "package/crossplane.yaml", Line: 9, Column: 5},
	}
	os.Stdout.WriteString(report.GitHubCommand(&report.Source{Name: "package"}, d) + "\n")
	// Output:
	// ::error file=package/crossplane.yaml,line=9,col=5,title=XP202 crossplane-constraint::spec.crossplane.version "v1,x" is not a semver constraint
}
