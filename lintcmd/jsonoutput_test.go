package lintcmd

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/lintcmd/internal/report"
	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/meta"
	"github.com/xpkgkit/xpkgkit/xpkg/xpkgtest"
)

// TestJSONSchema validates -o json output against linter's
// diagnostic.schema.json (its report definition), and checks that its
// lists decode into []linter.Diagnostic: the CLI's shape of a diagnostic
// and the library's are one.
func TestJSONSchema(t *testing.T) {
	t.Parallel()
	sv, err := newSchemaValidator(linter.DiagnosticSchema())
	if err != nil {
		t.Fatal(err)
	}
	suppressed := xpkgtest.NewProvider("provider-suppressed").
		WithoutAnnotation(meta.AnnotationDescription).
		WithAnnotation(meta.AnnotationSuppress, "XP206: described in the README")
	image := xpkgtest.NewProvider("provider-image").WithCrossplaneConstraint("not-a-version").MustImage(t).XpkgFile(t)
	tests := []struct {
		name  string
		args  []string
		stdin []byte
		code  int
		check func(t *testing.T, ds []linter.Diagnostic)
	}{
		{name: "problems", args: []string{badPackage, warnPackage}, code: ExitFindings},
		{name: "clean has empty arrays", args: []string{cleanPackage}, code: ExitOK, check: func(t *testing.T, ds []linter.Diagnostic) {
			if len(ds) != 0 {
				t.Errorf("%d diagnostics, want none", len(ds))
			}
		}},
		{name: "image-level on stdin", args: []string{"--crossplane-version", "v2.1.0", "-"}, stdin: twoBaseLayersXpkg(t), code: ExitFindings},
		{name: "unreadable source is an XP000 finding", args: []string{cleanPackage, "testdata/no-such-package"}, code: ExitError, check: func(t *testing.T, ds []linter.Diagnostic) {
			if len(ds) != 1 || ds[0].RuleID != report.UnreadableRuleID || ds[0].RuleName != report.UnreadableRuleName ||
				ds[0].Severity != linter.SeverityError || ds[0].Source != "testdata/no-such-package" || ds[0].Message == "" {
				t.Errorf("got %+v, want one XP000 source-unreadable error", ds)
			}
		}},
		{name: "suppressed with its reason", args: []string{suppressed.PackageYAMLFile(t)}, code: ExitOK, check: func(t *testing.T, ds []linter.Diagnostic) {
			i := slices.IndexFunc(ds, func(d linter.Diagnostic) bool { return d.RuleID == "XP206" })
			if i < 0 || ds[i].Suppression == nil || ds[i].Suppression.Reason != "described in the README" {
				t.Errorf("got %+v, want XP206 suppressed with its reason", ds)
			}
		}},
		{name: "inside an image: source is the image, file the file inside", args: []string{image}, code: ExitFindings, check: func(t *testing.T, ds []linter.Diagnostic) {
			if len(ds) == 0 {
				t.Fatal("no diagnostics")
			}
			for _, d := range ds {
				if d.Source != image || (d.Pos.Line > 0 && d.Pos.File != "package.yaml") {
					t.Errorf("source %q file %q, want %q and package.yaml", d.Source, d.Pos.File, image)
				}
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := runCLI(t, tt.stdin, append([]string{"-o", "json"}, tt.args...)...)
			if r.code != tt.code {
				t.Errorf("exit code %d, want %d; stderr %s", r.code, tt.code, r.stderr)
			}
			if strings.TrimSpace(r.stdout) == "null" {
				t.Fatal("output is null")
			}
			errs, err := sv.validate([]byte(r.stdout))
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range errs {
				t.Errorf("output violates diagnostic.schema.json: %s", e)
			}
			var rep report.JSONReport
			if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
				t.Fatalf("output does not decode into a report of []linter.Diagnostic: %v", err)
			}
			// Encoding what was decoded gives the output back.
			again, err := json.MarshalIndent(rep, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			if string(again)+"\n" != r.stdout {
				t.Errorf("re-encoded output differs:\n%s\nwant:\n%s", again, r.stdout)
			}
			// The summary counts what the lists hold, XP000 findings
			// (unreadable sources) included.
			var c report.Counts
			c.Add(rep.Diagnostics)
			if sum := rep.Summary; sum.Errors != c.Errors || sum.Warnings != c.Warnings || sum.Info != c.Infos ||
				sum.Suppressed != len(rep.Suppressed) || sum.Baselined != len(rep.Baselined) || sum.Sources != len(tt.args)-2*countFlags(tt.args) {
				t.Errorf("summary %+v does not count the lists (%+v, %d suppressed)", sum, c, len(rep.Suppressed))
			}
			if tt.check != nil {
				tt.check(t, append(rep.Diagnostics, rep.Suppressed...))
			}
		})
	}
	// The schema refuses what is not a finding.
	for _, bad := range []string{`null`, `{}`, `[{}]`, `{"diagnostics":[],"suppressed":[],"baselined":[]}`, `{"diagnostics":[{}],"suppressed":[],"baselined":[],"summary":{"sources":1,"unreadable":0,"errors":0,"warnings":0,"info":0,"suppressed":0,"baselined":0,"staleBaseline":0}}`, `[{"rule":"XP1","name":"x","severity":"fatal","message":"","file":"","document":0,"line":0,"column":0}]`} {
		if errs, err := sv.validate([]byte(bad)); err != nil || len(errs) == 0 {
			t.Errorf("schema accepts %s", bad)
		}
	}
}

// countFlags counts the flags of args, each taking one value ("--flag V").
func countFlags(args []string) int {
	n := 0
	for _, a := range args {
		if strings.HasPrefix(a, "--") {
			n++
		}
	}
	return n
}
