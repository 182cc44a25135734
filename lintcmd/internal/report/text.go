package report

import (
	"github.com/xpkgkit/xpkgkit/internal/safetext"
	"github.com/xpkgkit/xpkgkit/linter"
)

// ANSI escapes of the text format's colours.
const (
	ansiReset  = "\x1b[0m"
	ansiBold   = "\x1b[1m"
	ansiRed    = "\x1b[1;31m"
	ansiYellow = "\x1b[1;33m"
	ansiCyan   = "\x1b[1;36m"
)

// textWriter writes the text format: for each source a header line with
// its counts, then one line per diagnostic; a blank line between sources;
// and a summary line at the end.
type textWriter struct {
	w       errWriter
	color   bool
	min     linter.Severity // Options.MinSeverity
	printed int
	sum     Summary
}

// paint escapes s and, with colour on, puts it between the ANSI escape
// code and a reset.
func (t *textWriter) paint(code, s string) styled {
	s = safetext.Escape(s)
	if !t.color {
		return styled(s)
	}
	return styled(code + s + ansiReset)
}

func (t *textWriter) Source(s *Source) error {
	t.sum.Add(s)
	if s.Err != nil {
		// The error itself goes to stderr; the summary counts it.
		return t.w.err
	}
	if t.printed > 0 {
		t.w.printf("\n")
	}
	t.printed++
	var c Counts
	c.Add(s.Diagnostics)
	head := s.Name
	if s.Kind != "" {
		head += " (" + s.Kind + ")"
	}
	if len(s.Diagnostics) == 0 {
		t.w.printf("%s: no problems\n", t.paint(ansiBold, head))
		return t.w.err
	}
	t.w.printf("%s: %s\n", t.paint(ansiBold, head), c)
	ds, hidden := shown(s.Diagnostics, t.min)
	t.sum.Hidden += hidden
	for _, d := range ds {
		// linter.Diagnostic.String's format, every part escaped (printf)
		// and the severity coloured.
		t.w.printf("%s: %s %s %s: %s\n", Position(d), t.severity(d.Severity), d.RuleID, d.RuleName, d.Message)
	}
	return t.w.err
}

func (t *textWriter) severity(s linter.Severity) styled {
	switch s {
	case linter.SeverityError:
		return t.paint(ansiRed, s.String())
	case linter.SeverityWarning:
		return t.paint(ansiYellow, s.String())
	}
	return t.paint(ansiCyan, s.String())
}

func (t *textWriter) Close(stale int) error {
	if t.printed > 0 {
		t.w.printf("\n")
	}
	t.sum.StaleBaseline = stale
	t.w.printf("%s\n", t.paint(ansiBold, t.sum.Line()))
	return t.w.err
}
