// Package report writes the diagnostics of a checker (xpkg-lint, or a
// program of package checker) in its output formats:
// text for people (grouped by source, with a summary line, coloured on a
// terminal), JSON for scripts, SARIF 2.1.0 for code-scanning services, and
// GitHub Actions workflow commands, which show as annotations on a pull
// request.
//
// A Writer receives one Source at a time, in the order the sources were
// given, and Close finishes the output (the summary line, or the JSON or
// SARIF document):
//
//	w, err := report.New(report.FormatSARIF, os.Stdout, report.Options{Rules: rules.Builtin()})
//	...
//	for _, s := range sources {
//		w.Source(s)
//	}
//	err = w.Close()
package report
