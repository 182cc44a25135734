package rules_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/parser"
)

// TestSuppressionReason checks that suppressed diagnostics are carried in
// Result.Suppressed with the reason given after the colon, and that a
// reason's words are not taken for rule names.
func TestSuppressionReason(t *testing.T) {
	t.Parallel()
	crd := func(ignore string) string {
		return provider + `---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: bucket.example.org
  annotations:
    lint.xpkgkit.dev/ignore: ` + ignore + `
spec:
  group: example.org
  names: {kind: Bucket, plural: buckets}
  versions: [{name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}]
`
	}
	tests := []struct {
		name       string
		stream     string
		want       []string // "line:ID" of Diagnostics
		suppressed []string // "line:ID:reason" of Suppressed
	}{
		{
			name:       "reason after a colon",
			stream:     crd(`"XP401: mirrored package, source is private"`),
			suppressed: []string{"17:XP401:mirrored package, source is private"},
		},
		{
			name:       "no reason",
			stream:     crd(`"crd-name"`),
			suppressed: []string{"17:XP401:"},
		},
		{
			name:       "two clauses, each with its reason; the second silences nothing",
			stream:     crd(`"crd-name: generated; XP104 XP105: kept for compatibility"`),
			want:       []string{"19:XP004", "19:XP004"},
			suppressed: []string{"17:XP401:generated"},
		},
		{
			name:       "the object's reason before the package's",
			stream:     strings.Replace(crd(`"crd-name: a local reason wins"`), "  annotations:\n", "  annotations:\n    lint.xpkgkit.dev/ignore: 'XP401: vendored CRDs'\n", 1),
			suppressed: []string{"18:XP401:a local reason wins"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := lint(t, tt.stream)
			var sup []string
			for _, d := range res.Suppressed {
				if d.Suppression == nil {
					t.Fatalf("suppressed diagnostic without Suppression: %v", d)
				}
				sup = append(sup, strings.Join([]string{itoa(d.Pos.Line), d.RuleID, d.Suppression.Reason}, ":"))
			}
			if diff := cmp.Diff(tt.want, got(res)); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s\n%v", diff, res.Diagnostics)
			}
			if diff := cmp.Diff(tt.suppressed, sup); diff != "" {
				t.Errorf("suppressed (-want +got):\n%s", diff)
			}
			for _, d := range res.Diagnostics {
				if d.Suppression != nil {
					t.Errorf("standing diagnostic has a Suppression: %v", d)
				}
			}
		})
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestDiagnosticJSONRoundTrip checks the JSON form: flat keys, suppressed
// with its reason, and decoding back to the same value.
func TestDiagnosticJSONRoundTrip(t *testing.T) {
	t.Parallel()
	d := linter.Diagnostic{
		RuleID: "XP205", RuleName: "meta-source", Severity: linter.SeverityWarning, Message: "m",
		Source: "p.xpkg", Field: "metadata.name",
		Object:      &parser.ObjectRef{APIVersion: "meta.pkg.crossplane.io/v1", Kind: "Provider", Name: "p"},
		Suppression: &linter.Suppression{Reason: "mirrored"},
	}
	d.Pos.File, d.Pos.Document, d.Pos.Line, d.Pos.Column = "package.yaml", 2, 8, 5
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"rule":"XP205","name":"meta-source","severity":"warning","message":"m","source":"p.xpkg","file":"package.yaml","document":2,"line":8,"column":5,"field":"metadata.name","object":{"apiVersion":"meta.pkg.crossplane.io/v1","kind":"Provider","name":"p"},"suppressed":{"reason":"mirrored"}}`
	if string(b) != want {
		t.Errorf("JSON:\n%s\nwant:\n%s", b, want)
	}
	var back linter.Diagnostic
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(d, back); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

// TestResultJSON checks that empty lists encode as [] and a rule's failure
// as its error text, never {}.
func TestResultJSON(t *testing.T) {
	t.Parallel()
	res := &linter.Result{Failures: []*linter.RuleError{{RuleID: "XP999", RuleName: "broken", Err: errString("boom")}}}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"kind":"","diagnostics":[],"suppressed":[],"failures":[{"rule":"XP999","name":"broken","error":"boom"}],"rules":[]}`
	if string(b) != want {
		t.Errorf("JSON:\n%s\nwant:\n%s", b, want)
	}
}

type errString string

func (e errString) Error() string { return string(e) }

// TestDiagnosticString checks String is the CLI's text format.
func TestDiagnosticString(t *testing.T) {
	t.Parallel()
	d := linter.Diagnostic{RuleID: "XP204", RuleName: "license", Severity: linter.SeverityWarning, Message: "bad license"}
	for _, tc := range []struct {
		file         string
		line, column int
		source, want string
	}{
		{"package.yaml", 8, 5, "", "package.yaml:8:5: warning XP204 license: bad license"},
		{"package.yaml", 8, 0, "", "package.yaml:8: warning XP204 license: bad license"},
		{"sha256:abc", 0, 0, "", "sha256:abc: warning XP204 license: bad license"},
		{"", 0, 0, "p.xpkg", "p.xpkg: warning XP204 license: bad license"},
	} {
		d.Pos.File, d.Pos.Line, d.Pos.Column, d.Source = tc.file, tc.line, tc.column, tc.source
		if got := d.String(); got != tc.want {
			t.Errorf("String() = %q, want %q", got, tc.want)
		}
	}
}
