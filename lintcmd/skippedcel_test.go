package lintcmd

import (
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/lintcmd/internal/report"
)

// TestSkippedCELSummary checks that every output format says how many CEL
// rule evaluations were left out: here the transition rule of the
// package's CRD, on its example.
func TestSkippedCELSummary(t *testing.T) {
	t.Parallel()
	want := map[report.Format][]string{
		report.FormatText:   {"1 CEL rule not evaluated (1 transition)"},
		report.FormatGitHub: {"1 CEL rule not evaluated (1 transition)"},
		report.FormatJSON:   {`"skippedCEL": {`, `"transition": 1,`},
		report.FormatSARIF:  {`"skippedCEL": {`, `"transition": 1,`},
	}
	for _, format := range report.Formats() {
		t.Run(string(format), func(t *testing.T) {
			t.Parallel()
			r := runCLI(t, nil, "-o", string(format), "testdata/skipped-cel")
			if r.code != ExitOK {
				t.Errorf("exit code %d, want %d; stdout:\n%s\nstderr:\n%s", r.code, ExitOK, r.stdout, r.stderr)
			}
			for _, w := range want[format] {
				if !strings.Contains(r.stdout, w) {
					t.Errorf("want %q in:\n%s", w, r.stdout)
				}
			}
		})
	}
}
