package main

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/xpkgkit/xpkgkit/xpkg/xpkgtest"
)

// TestVerdicts checks the verdict a registry gets for each kind of upload.
func TestVerdicts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	xpkgOf := func(p *xpkgtest.Package) []byte {
		return readFile(t, p.MustImage(t).XpkgFile(t))
	}
	good := xpkgOf(xpkgtest.NewProvider("provider-good").WithCRD("example.org", "Widget"))
	var notes bytes.Buffer
	tw := tar.NewWriter(&notes)
	if err := tw.WriteHeader(&tar.Header{Name: "README.md", Mode: 0o644, Size: 5}); err != nil {
		t.Fatal(err)
	}
	tw.Write([]byte("hello"))
	tw.Close()
	writeFile(t, dir, "good.xpkg", good)
	writeFile(t, dir, "truncated.xpkg", good[:len(good)/2])
	writeFile(t, dir, "empty.xpkg", nil)
	writeFile(t, dir, "notes.tar", notes.Bytes())
	writeFile(t, dir, "refused.xpkg", xpkgOf(xpkgtest.NewProvider("provider-refused").
		WithObject([]byte("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n"))))

	var stdout, stderr bytes.Buffer
	if code := run([]string{dir}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit code %d; stderr:\n%s", code, stderr.String())
	}
	var entries []Entry
	if err := json.Unmarshal(stdout.Bytes(), &entries); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, e := range entries {
		got[e.Path] = e.Verdict
	}
	want := map[string]string{
		"empty.xpkg":     VerdictEmpty,
		"good.xpkg":      VerdictAccepted,
		"notes.tar":      VerdictNotPackage,
		"refused.xpkg":   VerdictRefused,
		"truncated.xpkg": VerdictCorrupt,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("verdicts (-want +got):\n%s\n%s", d, stdout.String())
	}
}
