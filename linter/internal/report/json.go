package report

import (
	"encoding/json"
	"io"

	"github.com/xpkgkit/xpkgkit/linter"
)

// jsonWriter collects every diagnostic and writes one indented array of
// linter.Diagnostic in its JSON encoding (linter/diagnostic.schema.json):
// each source's diagnostics with their source, then its suppressed ones;
// an unreadable source as one UnreadableRuleID finding; [] when there is
// nothing.
type jsonWriter struct {
	w     io.Writer
	diags []linter.Diagnostic
}

func (j *jsonWriter) Source(s *Source) error {
	if s.Err != nil {
		j.diags = append(j.diags, UnreadableDiagnostic(s))
		return nil
	}
	for _, list := range [][]linter.Diagnostic{s.Diagnostics, s.Suppressed} {
		for _, d := range list {
			d.Source = s.Name
			j.diags = append(j.diags, d)
		}
	}
	return nil
}

func (j *jsonWriter) Close() error {
	if j.diags == nil {
		j.diags = []linter.Diagnostic{}
	}
	enc := json.NewEncoder(j.w)
	enc.SetIndent("", "  ")
	return enc.Encode(j.diags)
}
