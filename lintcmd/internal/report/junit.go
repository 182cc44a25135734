package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/xpkgkit/xpkgkit/internal/safetext"
)

// The JUnit XML elements (the schema Jenkins, GitLab, GitHub test
// reporters, CircleCI and Azure Pipelines read): testsuites, testsuite,
// testcase with failure or error.
type (
	junitSuites struct {
		XMLName  xml.Name     `xml:"testsuites"`
		Name     string       `xml:"name,attr"`
		Tests    int          `xml:"tests,attr"`
		Failures int          `xml:"failures,attr"`
		Errors   int          `xml:"errors,attr"`
		Suites   []junitSuite `xml:"testsuite"`
	}
	junitSuite struct {
		Name     string      `xml:"name,attr"`
		Tests    int         `xml:"tests,attr"`
		Failures int         `xml:"failures,attr"`
		Errors   int         `xml:"errors,attr"`
		Cases    []junitCase `xml:"testcase"`
	}
	junitCase struct {
		Name      string        `xml:"name,attr"`
		Classname string        `xml:"classname,attr"`
		File      string        `xml:"file,attr,omitempty"`
		Line      int           `xml:"line,attr,omitempty"`
		Failure   *junitProblem `xml:"failure,omitempty"`
		Error     *junitProblem `xml:"error,omitempty"`
	}
	junitProblem struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Text    string `xml:",chardata"`
	}
)

// junitWriter writes JUnit XML: one test suite per source, named by it;
// one failing test case per diagnostic ("RULE name" its class name, where
// it is its name, the severity the failure's type); a source without
// diagnostics has one passing test case, and a source that could not be
// read one test case in error (XP000). Every text is escaped
// (safetext.Escape: XML 1.0 cannot hold most control characters at all).
type junitWriter struct {
	w   io.Writer
	doc junitSuites
}

func newJUnitWriter(w io.Writer, tool string) *junitWriter {
	return &junitWriter{w: w, doc: junitSuites{Name: safetext.Escape(tool)}}
}

func (j *junitWriter) Source(s *Source) error {
	suite := junitSuite{Name: safetext.Escape(s.Name)}
	switch {
	case s.Err != nil:
		d := UnreadableDiagnostic(s)
		suite.Cases = append(suite.Cases, junitCase{
			Name: safetext.Escape(s.Name), Classname: UnreadableRuleID + " " + UnreadableRuleName,
			Error: &junitProblem{Message: safetext.Escape(d.Message), Type: "error", Text: safetext.Escape(d.Message)},
		})
		suite.Errors = 1
	case len(s.Diagnostics) == 0:
		suite.Cases = append(suite.Cases, junitCase{Name: safetext.Escape(s.Name), Classname: "lint"})
	}
	for _, d := range s.Diagnostics {
		c := junitCase{
			Name:      Position(d),
			Classname: safetext.Escape(d.RuleID + " " + d.RuleName),
			File:      safetext.Escape(d.Pos.File),
			Line:      d.Pos.Line,
			Failure: &junitProblem{
				Message: safetext.Escape(d.Message),
				Type:    d.Severity.String(),
				Text:    fmt.Sprintf("%s: %s %s %s: %s", Position(d), d.Severity, safetext.Escape(d.RuleID), safetext.Escape(d.RuleName), safetext.Escape(d.Message)),
			},
		}
		if s.Image {
			c.File = safetext.Escape(s.Name)
			c.Line = 0
		}
		suite.Cases = append(suite.Cases, c)
		suite.Failures++
	}
	suite.Tests = len(suite.Cases)
	j.doc.Suites = append(j.doc.Suites, suite)
	j.doc.Tests += suite.Tests
	j.doc.Failures += suite.Failures
	j.doc.Errors += suite.Errors
	return nil
}

func (j *junitWriter) Close(int) error {
	var b strings.Builder
	b.WriteString(xml.Header)
	enc := xml.NewEncoder(&b)
	enc.Indent("", "  ")
	if err := enc.Encode(j.doc); err != nil {
		return err
	}
	b.WriteString("\n")
	_, err := io.WriteString(j.w, b.String())
	return err
}

var _ Writer = (*junitWriter)(nil)
