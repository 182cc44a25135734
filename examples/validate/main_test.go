package main

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRun(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		args []string
		code int
		out  string
	}{
		{"text", []string{"testdata/package", "testdata/manifests"}, 1,
			`testdata/manifests/buckets.yaml:15:3: error: Bucket "bad": spec.size: want integer, found string (CustomResourceDefinition "buckets.example.org" version v1) (1 CEL rules not evaluated)
testdata/manifests/buckets.yaml:16:3: warning: Bucket "bad": spec.colour: unknown field: the API server prunes it (CustomResourceDefinition "buckets.example.org" version v1) (1 CEL rules not evaluated)
testdata/manifests/other.yaml:1:1: info: ConfigMap "settings": not validated: no definition serves this kind: /v1, Kind=ConfigMap
3 objects, 1 errors
`},
		{"no unknown fields", []string{"-unknown=false", "testdata/package", "testdata/manifests"}, 1,
			`testdata/manifests/buckets.yaml:15:3: error: Bucket "bad": spec.size: want integer, found string (CustomResourceDefinition "buckets.example.org" version v1) (1 CEL rules not evaluated)
testdata/manifests/other.yaml:1:1: info: ConfigMap "settings": not validated: no definition serves this kind: /v1, Kind=ConfigMap
3 objects, 1 errors
`},
		{"usage", []string{"testdata/package"}, 2, ""},
		{"bad format", []string{"-format", "xml", "testdata/package", "testdata/manifests"}, 2, ""},
		{"no package", []string{"testdata/nothing", "testdata/manifests"}, 2, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var out, errOut bytes.Buffer
			if code := run(context.Background(), c.args, &out, &errOut); code != c.code {
				t.Errorf("exit %d, want %d; stderr: %s", code, c.code, errOut.String())
			}
			if diff := cmp.Diff(c.out, out.String()); diff != "" {
				t.Errorf("output (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRunJSON(t *testing.T) {
	t.Parallel()
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"-format", "json", "testdata/package", "testdata/manifests"}, &out, &errOut); code != 1 {
		t.Fatalf("exit %d, want 1: %s", code, errOut.String())
	}
	var got []Finding
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("%d findings, want 3: %s", len(got), out.String())
	}
	want := Finding{
		File: "testdata/manifests/buckets.yaml", Line: 15, Column: 3, Severity: "error", Kind: "Bucket", Name: "bad",
		Field: "spec.size", Violation: "type", Expected: "integer", Found: "string",
		Message:    `spec.size: want integer, found string (CustomResourceDefinition "buckets.example.org" version v1) (1 CEL rules not evaluated)`,
		Definition: `CustomResourceDefinition "buckets.example.org"`, Version: "v1", SkippedCEL: 1,
	}
	if diff := cmp.Diff(want, got[0]); diff != "" {
		t.Errorf("first finding (-want +got):\n%s", diff)
	}
}
