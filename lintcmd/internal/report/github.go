package report

import (
	"strconv"
	"strings"

	"github.com/xpkgkit/xpkgkit/internal/safetext"
	"github.com/xpkgkit/xpkgkit/linter"
)

// githubWriter writes GitHub Actions workflow commands: one annotation per
// diagnostic, then a summary line.
type githubWriter struct {
	w    errWriter
	name string          // the tool's name
	min  linter.Severity // Options.MinSeverity
	sum  Summary
}

func (g *githubWriter) Source(s *Source) error {
	g.sum.Add(s)
	if s.Err != nil {
		return g.w.err
	}
	ds, hidden := shown(s.Diagnostics, g.min)
	g.sum.Hidden += hidden
	for _, d := range ds {
		g.w.printf("%s\n", GitHubCommand(s, d))
	}
	return g.w.err
}

func (g *githubWriter) Close(stale int) error {
	g.sum.StaleBaseline = stale
	g.w.printf("%s: %s\n", g.name, g.sum.Line())
	return g.w.err
}

// GitHubCommand returns the workflow command that annotates d, found in
// source s: "::error file=F,line=L,col=C,title=ID name::message" (::warning
// for a warning, ::notice for info). A diagnostic inside an image annotates
// the image (file=the image, no line: the lines are those of a file inside
// it), and its message starts with that file's position
// ("package.yaml:12:3: "), so that several images' findings stay apart. An
// image-level diagnostic (line 0) annotates the source itself, and nothing
// when the source is standard input (StdinName or "-"); a line-0
// diagnostic of a directory that names one of its files (XP006: a file
// not read) annotates that file, without a line.
func GitHubCommand(s *Source, d linter.Diagnostic) string {
	cmd := "notice"
	switch d.Severity {
	case linter.SeverityError:
		cmd = "error"
	case linter.SeverityWarning:
		cmd = "warning"
	}
	source := safetext.Escape(s.Name)
	onStdin := s.Name == "" || s.Name == StdinName || s.Name == "-"
	// Every value is escaped (safetext.Escape: the one escaping point of
	// what a user sees), then escaped again as the workflow command needs.
	msg := safetext.Escape(d.Message)
	fileOf := !s.Image && isFileOf(s, d)
	d.Pos.File = safetext.Escape(d.Pos.File)
	var b strings.Builder
	b.WriteString("::")
	b.WriteString(cmd)
	b.WriteString(" ")
	switch {
	case d.Pos.Line > 0 && !s.Image:
		b.WriteString("file=")
		b.WriteString(escapeProperty(d.Pos.File))
		b.WriteString(",line=")
		b.WriteString(strconv.Itoa(d.Pos.Line))
		if d.Pos.Column > 0 {
			b.WriteString(",col=")
			b.WriteString(strconv.Itoa(d.Pos.Column))
		}
		b.WriteString(",")
	case fileOf:
		// A file of a directory that was not read (XP006): it exists,
		// but no line of it was read.
		b.WriteString("file=")
		b.WriteString(escapeProperty(d.Pos.File))
		b.WriteString(",")
	case !onStdin:
		b.WriteString("file=")
		b.WriteString(escapeProperty(source))
		b.WriteString(",")
	}
	if s.Image && d.Pos.Line > 0 {
		msg = Position(d) + ": " + msg
	}
	b.WriteString("title=")
	b.WriteString(escapeProperty(safetext.Escape(d.RuleID + " " + d.RuleName)))
	b.WriteString("::")
	b.WriteString(escapeData(msg))
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

// isFileOf reports whether d, of a source that is not an image, names a
// file other than the source itself (and other than standard input).
func isFileOf(s *Source, d linter.Diagnostic) bool {
	f := d.Pos.File
	return f != "" && f != s.Name && f != StdinName && f != "-"
}
