package xpkg_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/xpkgkit/xpkgkit/internal/testcorpus"
	"github.com/xpkgkit/xpkgkit/xpkg"
)

// corpusNames returns the corpus packages a test reads: all but the
// monolith under -short or -race, where it is too slow.
func corpusNames(t *testing.T) []string {
	var names []string
	for _, n := range testcorpus.Names() {
		if n == "provider-upjet-aws-monolith" && (testing.Short() || raceEnabled) {
			continue
		}
		names = append(names, n)
	}
	return names
}

// isLarge reports whether the file at path is larger than 2 MB.
func isLarge(t *testing.T, path string) bool {
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size() > 2<<20
}

// tarLayout makes an OCI layout tar of a corpus layout directory with the
// tar program, as a user would, gzip-compressed when gz is set.
func tarLayout(t *testing.T, dir string, gz bool) string {
	t.Helper()
	bin, err := exec.LookPath("tar")
	if err != nil {
		t.Skip("no tar program")
	}
	out := filepath.Join(t.TempDir(), filepath.Base(dir)+".tar")
	flags := "-cf"
	if gz {
		out += ".gz"
		flags = "-czf"
	}
	cmd := exec.CommandContext(t.Context(), bin, flags, out, "-C", dir, ".")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tar: %v: %s", err, b)
	}
	return out
}

// TestOpenCorpus is the acceptance test on real packages: every corpus
// package opens from every source kind with the same objects and lints with
// the same diagnostics, apart from the image rules. The images hold
// Crossplane's re-encoded stream, not the source text, so lines differ; the
// diagnostics are compared by rule and object.
func TestOpenCorpus(t *testing.T) {
	t.Parallel()
	for _, name := range corpusNames(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			base := testcorpus.Path(t, name)
			forms := []form{
				{"package.yaml", xpkg.SourcePackageYAML, openPath(filepath.Join(base, "package.yaml"))},
				{"xpkg", xpkg.SourceXpkg, openPath(base + ".xpkg")},
				{"oci-layout", xpkg.SourceOCILayout, openPath(base + ".oci")},
				{"reader-package.yaml", xpkg.SourceReader, openFileReader(filepath.Join(base, "package.yaml"))},
				{"reader-xpkg", xpkg.SourceReader, openFileReader(base + ".xpkg")},
			}
			if name == "provider-upjet-aws-monolith" || (raceEnabled && isLarge(t, filepath.Join(base, "package.yaml"))) {
				// Each form of the monolith costs seconds, as does each form
				// of a large package under the race detector: compare the
				// stream with the .xpkg only.
				forms = forms[:2]
			} else if fi, err := os.Stat(filepath.Join(base, "src")); err == nil && fi.IsDir() {
				forms = append(forms, form{"directory", xpkg.SourceDirectory, openPath(filepath.Join(base, "src"))})
			}
			if len(forms) > 2 && name != "provider-upjet-aws-monolith" {
				forms = append(forms,
					form{"oci-layout-tar", xpkg.SourceOCILayoutTar, openPath(tarLayout(t, base+".oci", false))},
					form{"oci-layout-tar.gz", xpkg.SourceOCILayoutTar, openPath(tarLayout(t, base+".oci", true))},
				)
			}
			var (
				wantObjects, wantDiags []string
				configDigest           string
			)
			for _, f := range forms {
				p, err := f.open(t)
				if err != nil {
					t.Fatalf("%s: Open: %v", f.name, err)
				}
				if p.SourceKind != f.kind {
					t.Errorf("%s: Kind = %v, want %v", f.name, p.SourceKind, f.kind)
				}
				if len(p.Meta) != 1 || len(p.Errors) != 0 {
					t.Errorf("%s: %d meta objects and %d errors, want 1 and 0", f.name, len(p.Meta), len(p.Errors))
				}
				if im := p.Image; im != nil {
					if len(im.Facts.BaseLayers) != 1 || im.Facts.Flattened || im.Facts.PackageYAMLPath == "" || im.BaseLayer == nil {
						t.Errorf("%s: facts %+v, want one base layer holding package.yaml", f.name, im.Facts)
					}
					if configDigest == "" {
						configDigest = im.Manifest.Config.Digest.String()
					} else if im.Manifest.Config.Digest.String() != configDigest {
						t.Errorf("%s: ConfigDigest = %s, want %s as in the other forms", f.name, im.Manifest.Config.Digest, configDigest)
					}
				}
				res := mustLint(t, p)
				for _, d := range res.Diagnostics {
					if d.RuleID[:3] == "XP5" {
						t.Errorf("%s: image diagnostic on a well-formed image: %v", f.name, d)
					}
				}
				// XP408 reports on examples, which only some forms hold; XP006
				// on the directory's files left out (YAML under .github).
				kept := res.Diagnostics[:0:0]
				for _, d := range res.Diagnostics {
					if d.RuleID != "XP408" && d.RuleID != "XP006" {
						kept = append(kept, d)
					}
				}
				objs, diags := objectNames(p), ruleObjects(kept)
				if wantObjects == nil {
					wantObjects, wantDiags = objs, diags
					continue
				}
				if d := cmp.Diff(wantObjects, objs); d != "" {
					t.Errorf("objects of %s differ from those of %s (-want +got):\n%s", f.name, forms[0].name, d)
				}
				if d := cmp.Diff(wantDiags, diags); d != "" {
					t.Errorf("diagnostics of %s differ from those of %s (-want +got):\n%s", f.name, forms[0].name, d)
				}
			}
		})
	}
}
