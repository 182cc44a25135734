package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/xpkg"
)

// examplePackage is a valid package directory shipped in the repository.
const examplePackage = "../../xpkg/testdata/build/provider-example"

func TestRun(t *testing.T) {
	t.Parallel()
	// The same package as a .xpkg, built the way the Crossplane CLI does.
	res, err := xpkg.Build(t.Context(), os.DirFS(examplePackage), xpkg.WithTags("xpkg.example.org/acme/provider-example:v1.0.0"))
	if err != nil {
		t.Fatal(err)
	}
	xpkgFile := filepath.Join(t.TempDir(), "provider-example.xpkg")
	f, err := os.Create(xpkgFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := res.WriteXpkg(t.Context(), f); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	yaml, err := os.ReadFile(filepath.Join(examplePackage, "crds", "example.org_widgets.yaml"))
	if err != nil {
		t.Fatal(err)
	}

	common := []string{
		"Package:", "Provider provider-example (meta.pkg.crossplane.io/v1)",
		"Crossplane:", ">=v1.14.0",
		"Dependencies:", "xpkg.crossplane.io/crossplane-contrib/provider-kubernetes >=v0.9.0",
		"Capabilities:", "none",
		"CustomResourceDefinition  1",
		"example.org", "Widget",
	}
	cases := []struct {
		name  string
		args  []string
		stdin string
		want  []string
		code  int
	}{
		{name: "directory", args: []string{examplePackage}, want: append([]string{"(directory)", "Examples:"}, common...)},
		{
			name: "xpkg", args: []string{xpkgFile},
			want: append([]string{
				"(xpkg)", "Tag", "xpkg.example.org/acme/provider-example:v1.0.0",
				"Layers:", res.Manifest().Layers[0].Digest.String(), "base, holds package.yaml", "examples (upbound)",
				"package.yaml:", "base layer " + res.Manifest().Layers[0].Digest.String(),
			}, common...),
		},
		{name: "stdin", args: []string{"-"}, stdin: string(yaml), want: []string{"(reader)", "no single meta object (0 found)", "CustomResourceDefinition  1"}},
		{name: "no source", args: nil, code: 2, want: []string{"usage: inspect"}},
		{name: "unreadable source", args: []string{filepath.Join(t.TempDir(), "missing")}, code: 2, want: []string{"inspect: xpkg:", "no such file"}},
		{name: "bad platform", args: []string{"-platform", "linux", examplePackage}, code: 2, want: []string{"-platform"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			code := run(tc.args, strings.NewReader(tc.stdin), &stdout, &stderr)
			if code != tc.code {
				t.Fatalf("exit code %d, want %d; stderr:\n%s", code, tc.code, stderr.String())
			}
			out := stdout.String() + stderr.String()
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}
