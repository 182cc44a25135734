package lintcmd

import (
	"os"
	"path/filepath"
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

// countEntries counts the regular files under dir.
func countEntries(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	filepath.WalkDir(dir, func(_ string, e os.DirEntry, err error) error {
		if err == nil && e.Type().IsRegular() {
			n++
		}
		return nil
	})
	return n
}

// TestVerdictCache lints a package with the verdict cache turned off, cold
// and warm, in every output format: the output is the same byte for byte,
// the cold run writes one entry per CRD in --cache-dir's verdicts
// directory, and --no-verdict-cache writes nothing.
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
			for _, run := range []string{"cold", "warm"} {
				got := runCLI(t, nil, "-o", format, "--cache-dir", dir, src)
				if got != want {
					t.Errorf("%s: exit %d, stderr %q, output:\n%s\nwant exit %d, output:\n%s", run, got.code, got.stderr, got.stdout, want.code, want.stdout)
				}
				if n := countEntries(t, filepath.Join(dir, verdictsSubdir)); n != 2 {
					t.Errorf("%s: %d entries in the verdicts directory; want 2, one per CRD", run, n)
				}
			}
		})
	}
}
