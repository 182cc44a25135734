package lsp

import (
	"strings"
	"testing"
)

const ctxDoc = `apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata:
  name: x
  annotations:
    note: |
      kind: NotAKey
spec:
  compositeTypeRef:
    apiVersion: example.org/v1
    kind: XNet
  mode: Pipeline
  pipeline:
  - step: a
    functionRef:
      name: fn
    input:
      apiVersion: pt.fn.crossplane.io/v1beta1
      kind: Resources
      resources:
        - name: r
          base:
            apiVersion: ec2.aws.upbound.io/v1beta1
            kind: VPC
            spec:
              forProvider:
                region: us-west-2
                
---
apiVersion: v1
kind: Other
`

// TestCursorAt reads the context of positions in a document.
func TestCursorAt(t *testing.T) {
	t.Parallel()
	lines := strings.Split(ctxDoc, "\n")
	find := func(s string) int {
		for i, l := range lines {
			if strings.Contains(l, s) {
				return i
			}
		}
		t.Fatalf("no line %q", s)
		return 0
	}
	tests := []struct {
		name     string
		line     int
		col      int
		mode     cursorMode
		key      string
		path     string
		mapping  string // apiVersion/kind of the mapping the path's last element opens
		siblings string // one sibling key expected
	}{
		{name: "region key", line: find("region:"), col: 17, mode: onKey, key: "region", path: "spec.pipeline.[].input.resources.[].base.spec.forProvider"},
		{name: "kind value", line: find("kind: XNet"), col: 12, mode: onValue, key: "kind", path: "spec.compositeTypeRef", mapping: "example.org/v1/XNet"},
		{name: "step", line: find("step: a"), col: 4, mode: onKey, key: "step", path: "spec.pipeline.[]", siblings: "functionRef"},
		{name: "function name", line: find("name: fn"), col: 7, mode: onKey, key: "name", path: "spec.pipeline.[].functionRef"},
		{name: "new key", line: find("region:") + 1, col: 16, mode: onNewKey, path: "spec.pipeline.[].input.resources.[].base.spec.forProvider", siblings: "region"},
		{name: "base", line: find("base:"), col: 11, mode: onKey, key: "base", path: "spec.pipeline.[].input.resources.[]", siblings: "name"},
		{name: "inside base", line: find("kind: VPC"), col: 13, mode: onKey, key: "kind", path: "spec.pipeline.[].input.resources.[].base", mapping: "ec2.aws.upbound.io/v1beta1/VPC"},
		{name: "root", line: find("mode: Pipeline") - 4, col: 0, mode: onKey, key: "spec", path: "", mapping: "apiextensions.crossplane.io/v1/Composition"},
		{name: "second document", line: find("kind: Other"), col: 0, mode: onKey, key: "kind", path: "", mapping: "v1/Other"},
		{name: "block scalar", line: find("kind: NotAKey"), col: 6, path: "metadata.annotations.note"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := cursorAt(ctxDoc, tt.line, tt.col)
			if c == nil {
				t.Fatal("no cursor")
			}
			if tt.name != "block scalar" && (c.mode != tt.mode || c.key != tt.key) {
				t.Errorf("mode %v key %q, want %v %q", c.mode, c.key, tt.mode, tt.key)
			}
			if got := strings.Join(keys(c.path), "."); got != tt.path {
				t.Errorf("path %q, want %q", got, tt.path)
			}
			if tt.mapping != "" {
				var e *elem
				if len(c.path) > 0 {
					e = &c.path[len(c.path)-1]
				}
				m := c.doc.mappingValues(e, "apiVersion", "kind")
				if got := m["apiVersion"] + "/" + m["kind"]; got != tt.mapping {
					t.Errorf("mapping %q, want %q", got, tt.mapping)
				}
			}
			if tt.siblings != "" && !c.siblingKeys()[tt.siblings] {
				t.Errorf("siblings %v, want %q", c.siblingKeys(), tt.siblings)
			}
		})
	}
}
