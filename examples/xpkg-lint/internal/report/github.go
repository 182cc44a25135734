package report

import (
	"strconv"
	"strings"

	"github.com/xpkgkit/xpkgkit/linter"
)

// githubWriter writes GitHub Actions workflow commands: one annotation per
// diagnostic, then a summary line.
type githubWriter struct {
	w          errWriter
	sources    int
	unreadable int
	total      Counts
}

func (g *githubWriter) Source(s *Source) error {
	g.sources++
	if s.Err != nil {
		g.unreadable++
		return g.w.err
	}
	g.total.Add(s.Diagnostics)
	for _, d := range s.Diagnostics {
		g.w.printf("%s\n", GitHubCommand(s.Name, d))
	}
	return g.w.err
}

func (g *githubWriter) Close() error {
	line := "xpkg-lint: " + plural(g.sources, "source") + ": " + g.total.String()
	if g.unreadable > 0 {
		line += ", " + plural(g.unreadable, "unreadable source")
	}
	g.w.printf("%s\n", line)
	return g.w.err
}

// GitHubCommand returns the workflow command that annotates d, found in
// source: "::error file=F,line=L,col=C,title=ID name::message" (::warning
// for a warning, ::notice for info). An image-level diagnostic (line 0)
// annotates the source itself, without line or column, and none when the
// source is standard input ("-").
func GitHubCommand(source string, d linter.Diagnostic) string {
	cmd := "notice"
	switch d.Severity {
	case linter.SeverityError:
		cmd = "error"
	case linter.SeverityWarning:
		cmd = "warning"
	}
	var b strings.Builder
	b.WriteString("::")
	b.WriteString(cmd)
	b.WriteString(" ")
	if d.Pos.Line > 0 {
		b.WriteString("file=")
		b.WriteString(escapeProperty(d.Pos.File))
		b.WriteString(",line=")
		b.WriteString(strconv.Itoa(d.Pos.Line))
		if d.Pos.Column > 0 {
			b.WriteString(",col=")
			b.WriteString(strconv.Itoa(d.Pos.Column))
		}
		b.WriteString(",")
	} else if source != "" && source != "-" {
		b.WriteString("file=")
		b.WriteString(escapeProperty(source))
		b.WriteString(",")
	}
	b.WriteString("title=")
	b.WriteString(escapeProperty(d.RuleID + " " + d.RuleName))
	b.WriteString("::")
	b.WriteString(escapeData(d.Message))
	return b.String()
}

// escapeData escapes a workflow command's message: '%', CR and LF.
func escapeData(s string) string {
	return dataEscaper.Replace(s)
}

// escapeProperty escapes a workflow command's property value: as
// escapeData, plus ':' and ','.
func escapeProperty(s string) string {
	return propertyEscaper.Replace(s)
}

var (
	dataEscaper     = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	propertyEscaper = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
)
