package report

import (
	"cmp"
	"fmt"
	"io"
	"strings"

	"github.com/xpkgkit/xpkgkit/internal/celskip"
	"github.com/xpkgkit/xpkgkit/internal/safetext"
	"github.com/xpkgkit/xpkgkit/linter"
)

// Format names an output format.
type Format string

// The output formats.
const (
	// FormatText is for people: "file:line:col: severity ID name: message"
	// lines grouped by source, and a summary line.
	FormatText Format = "text"
	// FormatJSON is a JSON array with one object per diagnostic.
	FormatJSON Format = "json"
	// FormatSARIF is a SARIF 2.1.0 log with one run, the rule catalog and
	// one result per diagnostic.
	FormatSARIF Format = "sarif"
	// FormatGitHub is GitHub Actions workflow commands (::error, ::warning,
	// ::notice), one per diagnostic.
	FormatGitHub Format = "github"
	// FormatJUnit is JUnit XML, which CI systems read natively: one test
	// suite per source, one failing test case per diagnostic (a source
	// without any has one passing test case), an unreadable source one
	// test case in error.
	FormatJUnit Format = "junit"
)

// Formats returns every format, in the order usage lists them.
func Formats() []Format {
	return []Format{FormatText, FormatJSON, FormatSARIF, FormatGitHub, FormatJUnit}
}

// ParseFormat returns the format named s.
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats() {
		if string(f) == s {
			return f, nil
		}
	}
	names := make([]string, 0, len(Formats()))
	for _, f := range Formats() {
		names = append(names, string(f))
	}
	return "", fmt.Errorf("unknown output format %q (want %s)", s, strings.Join(names, ", "))
}

// Source is what was found in one source given to the checker.
type Source struct {
	// Name is the source as given on the command line (StdinName for
	// standard input).
	Name string
	// Kind says what the source was found to be ("directory", "xpkg", ...);
	// empty when it could not be read.
	Kind string
	// Image is true when the source is an image: its diagnostics' Pos.File
	// is a file inside it (package.yaml), which reports name together with
	// the image.
	Image bool
	// Diagnostics are the source's diagnostics, sorted. Their Pos.File is
	// the name to show: a path the user can open for a directory or a
	// package.yaml file, the file inside the image for an image.
	// Image-level diagnostics have Line 0.
	Diagnostics []linter.Diagnostic
	// Suppressed are the diagnostics an annotation silenced, each with its
	// Suppression (the reason): JSON and SARIF carry them as suppressed;
	// the text and github formats leave them out and count them.
	Suppressed []linter.Diagnostic
	// Baselined are the diagnostics the baseline (--baseline) holds: they
	// count for nothing. JSON carries them apart, SARIF with baselineState
	// "unchanged"; the text and github formats leave them out and count
	// them.
	Baselined []linter.Diagnostic
	// Err is why the source could not be read or linted; nil when it was.
	// A source with an error has no diagnostics.
	Err error
	// SkippedCEL counts the CEL rule evaluations the lint left out
	// (linter.Result.Tallies): what was not checked.
	SkippedCEL celskip.Counts
}

// StdinName is how reports name standard input (SOURCE "-"), as
// xpkg.OpenReader names an unnamed reader.
const StdinName = "<stdin>"

// Unreadable source: the rule ID, name and severity of the finding that the
// JSON format writes for a source that could not be read or linted, so that
// the output stays an array of findings. Its message says why; its line is 0.
const (
	UnreadableRuleID   = "XP000"
	UnreadableRuleName = "source-unreadable"
)

// UnreadableRule returns the rule of the finding UnreadableRuleID, for
// --explain and the SARIF catalog: not a rule that runs, the checker's own
// report of what it could not check.
func UnreadableRule() *linter.Rule {
	return &linter.Rule{
		ID: UnreadableRuleID, Name: UnreadableRuleName, Severity: linter.SeverityError,
		Doc: `A source, or a part of its check, could not be read or checked

The checker could not open, read or lint a source (a missing file, a
registry that does not answer, a package over a limit, a configuration
file that does not parse), or could not finish a check the run asked for
(--deps: a dependency that cannot be fetched; --against: an old package
that cannot be read). The finding's message says why; the exit status is 2
("could not be checked"), whatever the other findings. The findings of the
package itself are still reported when only --deps or --against failed.
It is not a rule: it cannot be disabled, regraded or silenced.`,
	}
}

// Refused signature: the rule ID and name of the finding the checker gives
// a package (or a dependency, with --deps) whose required signature does
// not verify under --verify: Crossplane refuses it, an error.
const (
	SignatureRuleID   = "XP510"
	SignatureRuleName = "signature-refused"
)

// SignatureRule returns the rule of the finding SignatureRuleID, for
// --explain: not a rule that runs, the checker's report of --verify.
func SignatureRule() *linter.Rule {
	return &linter.Rule{
		ID: SignatureRuleID, Name: SignatureRuleName, Severity: linter.SeverityError,
		Doc: `A required signature does not verify

With --verify, a package pulled from a registry (and, with --deps, each
dependency) is verified as the ImageConfig that matches it requires
(spec.verification). A package with no signature, with signatures none of
which verifies for any of the policy's authorities, or with a signature
for another digest is refused: Crossplane's package manager, with
signature verification enabled (EnableAlphaSignatureVerification), checks
it with crossplane-runtime's pkg/xpkg/signature CosignValidator before it
creates a revision, and a failure leaves the package unpacked and
unhealthy with no revision (crossplane v2.4.0, cmd/crossplane/core and
test/e2e TestImageConfigVerification*). So the finding is an error and
the exit status 1. What could not be checked (a registry that does not answer, a
policy that cannot be applied, a trusted root not given) is exit 2, not
this finding.`,
	}
}

// UnreadableDiagnostic returns the finding that stands for a source that
// could not be read or linted.
func UnreadableDiagnostic(s *Source) linter.Diagnostic {
	d := linter.Diagnostic{
		RuleID: UnreadableRuleID, RuleName: UnreadableRuleName, Severity: linter.SeverityError,
		Source: s.Name,
	}
	d.Pos.File = s.Name
	if s.Err != nil {
		d.Message = s.Err.Error()
	}
	return d
}

// Options configure a Writer.
type Options struct {
	// Color makes the text format colour severities with ANSI escapes.
	Color bool
	// Rules is the rule catalog SARIF lists in tool.driver.rules and that
	// results point into. Results of rules not in it carry only a ruleId.
	Rules []*linter.Rule
	// Disabled lists the IDs of the rules turned off for this run; SARIF
	// records them as configuration overrides.
	Disabled []string
	// Severities maps rule IDs to the severity they were regraded to;
	// SARIF records them as configuration overrides.
	Severities map[string]linter.Severity
	// ToolVersion is the version SARIF gives the tool; empty for none.
	ToolVersion string
	// ToolName is the name SARIF gives the tool; empty for ToolName.
	ToolName string
	// Baseline says a baseline is in use: SARIF results carry a
	// baselineState, "new" or "unchanged" (for Source.Baselined).
	Baseline bool
	// MinSeverity is the least severity the text and GitHub formats show
	// (SeverityWarning hides info); the summary counts every diagnostic
	// all the same, and says how many it did not show. Zero shows all.
	// JSON, SARIF and JUnit carry every diagnostic.
	MinSeverity linter.Severity
}

// Writer writes a report: Source once for each source, in the order they
// were given, then Close.
type Writer interface {
	// Source adds one source's diagnostics (or its error) to the report.
	Source(s *Source) error
	// Close finishes the report: the summary line, or the rest of the
	// document, with stale baseline entries counted (the entries of the
	// baseline that no finding matched; 0 without a baseline). It does not
	// close the underlying io.Writer.
	Close(stale int) error
}

// Summary tallies a whole report: what the summary line says, and the
// JSON format's "summary" object.
type Summary struct {
	// Sources counts the sources, Unreadable those that could not be read
	// or linted.
	Sources    int `json:"sources"`
	Unreadable int `json:"unreadable"`
	// Errors, Warnings and Info count the findings that count, by
	// severity; Errors includes the finding (UnreadableRuleID) of each
	// unreadable source.
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	Info     int `json:"info"`
	// Suppressed counts the findings an annotation silenced; Baselined
	// those the baseline holds.
	Suppressed int `json:"suppressed"`
	Baselined  int `json:"baselined"`
	// StaleBaseline counts the baseline's entries that no finding matched
	// (fixed, or moved out of what the key names).
	StaleBaseline int `json:"staleBaseline"`
	// Hidden counts the diagnostics below Options.MinSeverity that the
	// text and GitHub formats did not show (counted in Errors, Warnings
	// and Info too); absent from JSON, which shows every one.
	Hidden int `json:"-"`
	// SkippedCEL counts the CEL rule evaluations left out, by reason
	// (transition rules, cost, ...); absent from JSON when none were.
	SkippedCEL celskip.Counts `json:"skippedCEL,omitzero"`
}

// Add counts one source.
func (s *Summary) Add(src *Source) {
	s.Sources++
	if src.Err != nil {
		// Its finding (UnreadableRuleID) is an error in every format:
		// the JSON and SARIF reports carry it, the text and GitHub
		// formats write it on stderr.
		s.Unreadable++
		s.Errors++
		return
	}
	var c Counts
	c.Add(src.Diagnostics)
	s.Errors += c.Errors
	s.Warnings += c.Warnings
	s.Info += c.Infos
	s.Suppressed += len(src.Suppressed)
	s.Baselined += len(src.Baselined)
	s.SkippedCEL.Add(src.SkippedCEL)
}

// Line returns the summary line: "2 sources: 1 error, 0 warnings, 0
// info", then the unreadable sources, the suppressed and baselined
// findings, the stale baseline entries and the CEL rule evaluations left
// out, each when there are any.
func (s Summary) Line() string {
	line := plural(s.Sources, "source") + ": " + Counts{Errors: s.Errors, Warnings: s.Warnings, Infos: s.Info}.String()
	if s.Unreadable > 0 {
		line += ", " + plural(s.Unreadable, "unreadable source")
	}
	var more []string
	if s.Suppressed > 0 {
		more = append(more, fmt.Sprintf("%d suppressed by annotation", s.Suppressed))
	}
	if s.Baselined > 0 {
		more = append(more, fmt.Sprintf("%d in the baseline", s.Baselined))
	}
	if s.Hidden > 0 {
		more = append(more, fmt.Sprintf("%d below --min-severity not shown", s.Hidden))
	}
	if s.StaleBaseline > 0 {
		more = append(more, plural(s.StaleBaseline, "baseline entry")+" no longer "+map[bool]string{true: "matches", false: "match"}[s.StaleBaseline == 1])
	}
	if c := s.SkippedCEL; c.Total() > 0 {
		var why []string
		for _, r := range []struct {
			n    int
			what string
		}{{c.Transition, "transition"}, {c.Cost, "over cost"}, {c.Partial, "presence on templates"}, {c.Blocked, "after schema errors"}, {c.Unevaluated, "without CEL"}} {
			if r.n > 0 {
				why = append(why, fmt.Sprintf("%d %s", r.n, r.what))
			}
		}
		more = append(more, fmt.Sprintf("%s not evaluated (%s)", plural(c.Total(), "CEL rule"), strings.Join(why, ", ")))
	}
	if len(more) > 0 {
		line += "; " + strings.Join(more, ", ")
	}
	return line
}

// New returns a Writer of format f writing to w.
func New(f Format, w io.Writer, opts Options) (Writer, error) {
	switch f {
	case FormatText:
		return &textWriter{w: errWriter{w: w}, color: opts.Color, min: opts.MinSeverity}, nil
	case FormatJSON:
		return &jsonWriter{w: w}, nil
	case FormatSARIF:
		return newSARIFWriter(w, opts), nil
	case FormatGitHub:
		return &githubWriter{w: errWriter{w: w}, name: cmp.Or(opts.ToolName, ToolName), min: opts.MinSeverity}, nil
	case FormatJUnit:
		return newJUnitWriter(w, cmp.Or(opts.ToolName, ToolName)), nil
	}
	_, err := ParseFormat(string(f))
	return nil, err
}

// Counts tallies diagnostics by severity.
type Counts struct {
	Errors, Warnings, Infos int
}

// Add counts ds.
func (c *Counts) Add(ds []linter.Diagnostic) {
	for _, d := range ds {
		switch d.Severity {
		case linter.SeverityError:
			c.Errors++
		case linter.SeverityWarning:
			c.Warnings++
		default:
			c.Infos++
		}
	}
}

// String returns e.g. "2 errors, 1 warning, 0 info".
func (c Counts) String() string {
	return fmt.Sprintf("%s, %s, %d info", plural(c.Errors, "error"), plural(c.Warnings, "warning"), c.Infos)
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	if strings.HasSuffix(word, "ry") {
		return fmt.Sprintf("%d %sies", n, strings.TrimSuffix(word, "y"))
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// Position formats where d is, as linter.Diagnostic.Where does:
// "file:line:col", "file:line" when there is no column, and "file" for an
// image-level diagnostic (line 0); the file is escaped (a package
// directory's file names are the package's data).
func Position(d linter.Diagnostic) string {
	d.Pos.File = safetext.Escape(d.Pos.File)
	d.Source = safetext.Escape(d.Source)
	return d.Where()
}

// errWriter is how the text and GitHub formats write: it remembers the
// first write error, so that formatters can write freely and check once,
// and it is their one escaping point. printf escapes every argument with
// safetext.Escape (a string, an error's text, a Stringer's, anything
// else's %v), whatever its origin: a diagnostic's message (a CEL rule's
// message, a value quoted in a schema's message), a rule's name, a path.
// So no argument can write a terminal escape or start a line of its own (a
// forged "file:1:1: error …" line, or a "::error" workflow command). Only
// the format, a constant of this package, and styled arguments, which the
// writer builds itself from escaped text, pass as they are.
type errWriter struct {
	w   io.Writer
	err error
}

// styled is text the writer builds itself: ANSI colour escapes around text
// that safetext.Escape escaped (see textWriter.paint). printf writes it as
// it is.
type styled string

func (e *errWriter) printf(format string, args ...any) {
	if e.err != nil {
		return
	}
	safe := make([]any, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case styled:
			safe[i] = string(v)
		case int:
			safe[i] = v
		case string:
			safe[i] = safetext.Escape(v)
		case error:
			safe[i] = safetext.Escape(v.Error())
		case fmt.Stringer:
			safe[i] = safetext.Escape(v.String())
		default:
			safe[i] = safetext.Escape(fmt.Sprint(v))
		}
	}
	_, e.err = fmt.Fprintf(e.w, format, safe...)
}

// shown returns the diagnostics of ds at or above min, and how many it left
// out.
func shown(ds []linter.Diagnostic, min linter.Severity) ([]linter.Diagnostic, int) {
	if min <= linter.SeverityInfo {
		return ds, 0
	}
	out := make([]linter.Diagnostic, 0, len(ds))
	for _, d := range ds {
		if d.Severity >= min {
			out = append(out, d)
		}
	}
	return out, len(ds) - len(out)
}
