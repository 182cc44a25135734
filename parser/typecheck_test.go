package parser

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestMistypedField checks a document that does not fit its Go type is
// reported at the offending field, saying what was found and wanted.
func TestMistypedField(t *testing.T) {
	t.Parallel()
	const head = "apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata:\n  name: example\n"
	tests := []struct {
		name      string
		doc       string
		line, col int
		want      string
	}{
		{name: "float version", doc: head + "spec:\n  crossplane:\n    version: 0.3\n", line: 7, col: 5,
			want: `field spec.crossplane.version is a number (0.3), but a Configuration wants a string there: quote the value`},
		{name: "annotation number", doc: head + "  annotations:\n    meta.crossplane.io/license: 2\n", line: 6, col: 5,
			want: `field metadata.annotations["meta.crossplane.io/license"] is a number (2), but a Configuration wants a string there`},
		{name: "label boolean", doc: head + "  labels:\n    enabled: yes\n", line: 6, col: 5,
			want: `field metadata.labels.enabled is a boolean (true)`},
		{name: "dependsOn mapping", doc: head + "spec:\n  dependsOn:\n    provider: x\n", line: 6, col: 3,
			want: `field spec.dependsOn is an object, but a Configuration wants a list there`},
		{name: "dependency version list", doc: head + "spec:\n  dependsOn:\n  - provider: x\n    version: [1]\n", line: 8, col: 5,
			want: `field spec.dependsOn[0].version is a list, but a Configuration wants a string there`},
		{name: "capability number", doc: head + "spec:\n  capabilities: [1]\n", line: 6, col: 18,
			want: `field spec.capabilities[0] is a number (1)`},
		{name: "spec a string", doc: head + "spec: nothing\n", line: 5, col: 1,
			want: `field spec is a string ("nothing"), but a Configuration wants an object there`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := Parse(context.Background(), strings.NewReader(tt.doc), WithFile("crossplane.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Errors) != 1 {
				t.Fatalf("errors %v, want one", p.Errors)
			}
			de := p.Errors[0]
			if !errors.Is(de, ErrDecode) || !strings.Contains(de.Error(), tt.want) {
				t.Errorf("error %q, want an ErrDecode saying %q", de, tt.want)
			}
			if de.Pos.Line != tt.line || de.Pos.Column != tt.col {
				t.Errorf("error at %d:%d, want %d:%d", de.Pos.Line, de.Pos.Column, tt.line, tt.col)
			}
		})
	}
}
