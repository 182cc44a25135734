package report

import (
	"encoding/json"
	"io"

	"github.com/xpkgkit/xpkgkit/linter"
)

// JSONReport is the JSON format: one object (linter/diagnostic.schema.json,
// definition "report") with the findings that count, the suppressed ones,
// the baselined ones, and the summary. Every list is an array, [] when
// empty, never null.
type JSONReport struct {
	// Diagnostics are the findings that count, each with its source; an
	// unreadable source is one UnreadableRuleID finding.
	Diagnostics []linter.Diagnostic `json:"diagnostics"`
	// Suppressed are the findings an annotation silenced, each with its
	// "suppressed" reason.
	Suppressed []linter.Diagnostic `json:"suppressed"`
	// Baselined are the findings the baseline holds.
	Baselined []linter.Diagnostic `json:"baselined"`
	// Summary tallies the report.
	Summary Summary `json:"summary"`
}

// jsonWriter collects every diagnostic and writes one indented JSONReport.
type jsonWriter struct {
	w   io.Writer
	rep JSONReport
}

func (j *jsonWriter) Source(s *Source) error {
	j.rep.Summary.Add(s)
	if s.Err != nil {
		j.rep.Diagnostics = append(j.rep.Diagnostics, UnreadableDiagnostic(s))
		return nil
	}
	for _, l := range []struct {
		from []linter.Diagnostic
		to   *[]linter.Diagnostic
	}{{s.Diagnostics, &j.rep.Diagnostics}, {s.Suppressed, &j.rep.Suppressed}, {s.Baselined, &j.rep.Baselined}} {
		for _, d := range l.from {
			d.Source = s.Name
			*l.to = append(*l.to, d)
		}
	}
	return nil
}

func (j *jsonWriter) Close(stale int) error {
	j.rep.Summary.StaleBaseline = stale
	for _, l := range []*[]linter.Diagnostic{&j.rep.Diagnostics, &j.rep.Suppressed, &j.rep.Baselined} {
		if *l == nil {
			*l = []linter.Diagnostic{}
		}
	}
	enc := json.NewEncoder(j.w)
	enc.SetIndent("", "  ")
	return enc.Encode(j.rep)
}
