package lintcmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const verdictPackage = `apiVersion: meta.pkg.crossplane.io/v1
kind: Provider
metadata:
  name: provider-example
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: buckets.example.org
spec:
  group: example.org
  names: {kind: Bucket, plural: buckets}
  scope: Cluster
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-validations:
            - rule: self.sise > 0
            properties:
              size: {type: integer, default: "ten"}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: queues.example.org
spec:
  group: example.org
  names: {kind: Queue, plural: queues}
  scope: Cluster
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
`

// files lists the regular files under dir.
func files(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err == nil && e.Type().IsRegular() {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// TestVerdictCache lints a package with the verdict cache turned off, cold
// and warm, in every output format: the output is the same byte for byte,
// the cold run writes one file (a pack of the entries of both CRDs) in
// --cache-dir's verdicts directory, the warm run writes none, and
// --no-verdict-cache writes nothing.
func TestVerdictCache(t *testing.T) {
	t.Parallel()
	src := filepath.Join(t.TempDir(), "package.yaml")
	if err := os.WriteFile(src, []byte(verdictPackage), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"text", "json", "sarif"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			off := t.TempDir()
			want := runCLI(t, nil, "-o", format, "--no-verdict-cache", "--cache-dir", off, src)
			if want.code != ExitFindings || want.stderr != "" {
				t.Fatalf("exit %d, stderr %q; want 1 and none", want.code, want.stderr)
			}
			if _, err := os.Stat(filepath.Join(off, verdictsSubdir)); err == nil {
				t.Error("--no-verdict-cache made the verdicts directory")
			}
			dir := t.TempDir()
			var cold []string
			for _, run := range []string{"cold", "warm"} {
				got := runCLI(t, nil, "-o", format, "--cache-dir", dir, src)
				if got != want {
					t.Errorf("%s: exit %d, stderr %q, output:\n%s\nwant exit %d, output:\n%s", run, got.code, got.stderr, got.stdout, want.code, want.stdout)
				}
				fs := files(t, filepath.Join(dir, verdictsSubdir))
				if len(fs) != 1 {
					t.Errorf("%s: %d files in the verdicts directory; want one pack", run, len(fs))
				}
				if run == "cold" {
					cold = fs
				} else if !slices.Equal(fs, cold) {
					t.Errorf("warm: the verdicts directory holds %v; want what the cold run wrote, %v", fs, cold)
				}
			}
		})
	}
}

// TestVerdictCacheWritten runs the CLI along its paths: each writes the
// run's entries (the Dir is closed, which writes them as one pack) and
// leaves no temporary file; a run whose context is cancelled (a SIGINT)
// returns and leaves nothing half written.
func TestVerdictCacheWritten(t *testing.T) {
	t.Parallel()
	src := filepath.Join(t.TempDir(), "package.yaml")
	if err := os.WriteFile(src, []byte(verdictPackage), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		cancel bool
		args   []string
		packs  int
	}{
		{"lint", false, nil, 1},
		{"diff", false, []string{"--diff"}, 1},
		{"interrupted", true, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			ctx, cancel := context.WithCancel(context.Background())
			if tt.cancel {
				cancel()
			}
			defer cancel()
			var stdout, stderr bytes.Buffer
			args := append(append([]string{"--cache-dir", dir}, tt.args...), src)
			runWith(ctx, xpkgLoader{}, args, strings.NewReader(""), &stdout, &stderr)
			fs := files(t, filepath.Join(dir, verdictsSubdir))
			if len(fs) != tt.packs {
				t.Errorf("%d files in the verdicts directory: %v; want %d packs", len(fs), fs, tt.packs)
			}
			for _, f := range fs {
				if !strings.HasSuffix(f, ".pack") {
					t.Errorf("%s: not a pack", f)
				}
			}
		})
	}
}
