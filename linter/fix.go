package linter

import "github.com/xpkgkit/xpkgkit/parser"

// ReportFixf is Reportf with a suggested fix attached, when fix is not
// nil: xpkg-lint --fix applies it, and reports list it.
func (p *Pass) ReportFixf(fix *SuggestedFix, obj *parser.Object, path []string, format string, args ...any) {
	n := len(p.diags)
	p.report(0, obj, path, format, args...)
	if fix != nil && len(p.diags) > n {
		p.diags[n].SuggestedFixes = []SuggestedFix{*fix}
	}
}
