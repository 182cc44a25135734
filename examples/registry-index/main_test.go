package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/xpkgkit/xpkgkit/internal/testcorpus"
	"github.com/xpkgkit/xpkgkit/meta"
	"github.com/xpkgkit/xpkgkit/xpkg/xpkgtest"
)

// writeFile writes data to dir/name.
// readFile returns the content of path.
func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writeFile(t *testing.T, dir, name string, data []byte) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// registry returns a directory of images: xpkgtest packages in each image
// form, a broken one, a file that is not an image, and a corpus .xpkg.
func registry(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()

	provider := xpkgtest.NewProvider("provider-widgets").
		WithCrossplaneConstraint(">=v1.14.0").
		WithCRD("example.org", "Widget", "v1alpha1", "v1beta1").
		MustImage(t)
	writeFile(t, dir, "acme/provider-widgets.xpkg", readFile(t, provider.XpkgFile(t)))

	config := xpkgtest.NewConfiguration("configuration-network").
		WithXRD("example.org", "XNetwork", "v1alpha1").
		WithDependency(meta.KindProvider, "xpkg.example.org/acme/provider-widgets", ">=v1.0.0").
		MustImage(t)
	if err := os.CopyFS(filepath.Join(dir, "acme/configuration-network"), os.DirFS(config.LayoutDir(t))); err != nil {
		t.Fatal(err)
	}

	fn := xpkgtest.NewFunction("function-noop").MustImage(t)
	writeFile(t, dir, "functions/function-noop.tar", readFile(t, fn.LayoutTarFile(t)))
	writeFile(t, dir, "broken/digest-mismatch.xpkg", readFile(t, xpkgtest.DigestMismatch.MustImage(t).XpkgFile(t)))
	writeFile(t, dir, "README.md", []byte("not an image\n"))

	corpus, err := os.ReadFile(testcorpus.Path(t, "provider-helm.xpkg"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "corpus/provider-helm.xpkg", corpus)
	return dir
}

func TestRun(t *testing.T) {
	t.Parallel()
	dir := registry(t)

	var stdout, stderr bytes.Buffer
	if code := run([]string{"-j", "3", dir}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit code %d; stderr:\n%s", code, stderr.String())
	}
	var entries []Entry
	if err := json.Unmarshal(stdout.Bytes(), &entries); err != nil {
		t.Fatalf("index is not JSON: %v\n%s", err, stdout.String())
	}
	byPath := map[string]Entry{}
	var paths []string
	for _, e := range entries {
		byPath[e.Path] = e
		paths = append(paths, e.Path)
	}
	wantPaths := []string{
		"acme/configuration-network",
		"acme/provider-widgets.xpkg",
		"broken/digest-mismatch.xpkg",
		"corpus/provider-helm.xpkg",
		"functions/function-noop.tar",
	}
	if d := cmp.Diff(wantPaths, paths); d != "" {
		t.Fatalf("paths (-want +got):\n%s", d)
	}

	prov := byPath["acme/provider-widgets.xpkg"]
	if prov.Name != "provider-widgets" || prov.Kind != "Provider" || prov.Format != "xpkg" || prov.Crossplane != ">=v1.14.0" ||
		!strings.HasPrefix(prov.Digest, "sha256:") || prov.Lint == nil || prov.Lint.Errors != 0 {
		t.Errorf("provider entry: %+v", prov)
	}
	if d := cmp.Diff([]Definition{{Name: "widgets.example.org", Group: "example.org", Kind: "Widget", Versions: []string{"v1alpha1", "v1beta1"}}}, prov.CRDs); d != "" {
		t.Errorf("provider CRDs (-want +got):\n%s", d)
	}

	cfg := byPath["acme/configuration-network"]
	if cfg.Kind != "Configuration" || cfg.Format != "oci-layout" || len(cfg.XRDs) != 1 || cfg.XRDs[0].Kind != "XNetwork" {
		t.Errorf("configuration entry: %+v", cfg)
	}
	if d := cmp.Diff([]Dependency{{Kind: "Provider", Package: "xpkg.example.org/acme/provider-widgets", Version: ">=v1.0.0"}}, cfg.Dependencies); d != "" {
		t.Errorf("configuration dependencies (-want +got):\n%s", d)
	}

	if fn := byPath["functions/function-noop.tar"]; fn.Kind != "Function" || fn.Format != "oci-layout-tar" {
		t.Errorf("function entry: %+v", fn)
	}
	if b := byPath["broken/digest-mismatch.xpkg"]; !strings.Contains(b.Error, "digest mismatch") || b.Name != "" || b.Verdict != VerdictCorrupt {
		t.Errorf("broken entry: %+v", b)
	}
	if helm := byPath["corpus/provider-helm.xpkg"]; helm.Name != "provider-helm" || len(helm.CRDs) != 7 || helm.Lint == nil {
		t.Errorf("corpus entry: %+v", helm)
	}
	if !strings.Contains(stdout.String(), `">=v1.14.0"`) {
		t.Error("constraints are HTML-escaped in the index")
	}

	// Deterministic: the same bytes with one worker, written to a file.
	out := filepath.Join(t.TempDir(), "index.json")
	stderr.Reset()
	if code := run([]string{"-j", "1", "-o", out, dir}, &bytes.Buffer{}, &stderr); code != 0 {
		t.Fatalf("exit code %d; stderr:\n%s", code, stderr.String())
	}
	again, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, stdout.Bytes()) {
		t.Error("the index differs between runs with 3 workers and with 1")
	}
}

func TestRunErrors(t *testing.T) {
	t.Parallel()
	for name, args := range map[string][]string{
		"no directory":      nil,
		"missing directory": {filepath.Join(t.TempDir(), "missing")},
		"bad -j":            {"-j", "0", t.TempDir()},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(args, &stdout, &stderr); code != 2 || stderr.Len() == 0 {
			t.Errorf("%s: exit code %d, stderr %q; want 2 and a message", name, code, stderr.String())
		}
	}
}
