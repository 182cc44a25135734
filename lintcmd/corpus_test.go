package lintcmd

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/xpkgkit/xpkgkit/internal/testcorpus"
)

// monolith is the corpus's largest package (102 MB of YAML).
const monolith = "provider-upjet-aws-monolith"

// skipLargeUnderRace skips a test of the corpus package name, in all its
// forms, under the race detector when its package.yaml is over 2 MB: four
// lints of provider-aws take a minute there. .ci/run runs the corpus tests
// again without -race, every package included.
func skipLargeUnderRace(t *testing.T, name string) {
	t.Helper()
	if !raceEnabled {
		return
	}
	fi, err := os.Stat(filepath.Join(testcorpus.Dir(t), name, "package.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() > 2<<20 {
		t.Skipf("%s: %d MB of YAML, left to the run without -race", name, fi.Size()>>20)
	}
}

// TestCorpus lints every real package of the corpus as Crossplane built it
// (its .xpkg): each must pass, with no error.
func TestCorpus(t *testing.T) {
	t.Parallel()
	dir := testcorpus.Dir(t)
	for _, name := range testcorpus.Names() {
		t.Run(name, func(t *testing.T) {
			if name == monolith && (testing.Short() || raceEnabled) {
				t.Skip("the monolith takes minutes with -race; it runs without -short and -race")
			}
			t.Parallel()
			source := filepath.Join(dir, name+".xpkg")
			ds, r := jsonOutput(t, nil, source)
			if r.code != ExitOK || r.stderr != "" {
				t.Errorf("exit code %d, stderr %q; want 0 and none", r.code, r.stderr)
			}
			for _, d := range ds {
				if d.Severity == "error" {
					t.Errorf("%s:%d:%d: error %s %s: %s", d.File, d.Line, d.Column, d.Rule, d.Name, d.Message)
				}
			}
		})
	}
}

// TestCorpusForms lints each corpus package in every form the corpus has
// it in (.xpkg, OCI layout, package.yaml, source directory) and expects the
// same findings (rule, object, field), the image rules (XP5xx) aside, and
// the rules on what only a source directory holds: its examples (XP408)
// and the files it skips, such as YAML under .github (XP006). Lines
// differ: the images hold Crossplane's re-encoded stream.
func TestCorpusForms(t *testing.T) {
	t.Parallel()
	dir := testcorpus.Dir(t)
	for _, name := range testcorpus.Names() {
		if name == monolith {
			continue // covered by TestCorpus; too big for four reads under -race
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			skipLargeUnderRace(t, name)
			forms := []string{
				filepath.Join(dir, name+".xpkg"),
				filepath.Join(dir, name+".oci"),
				filepath.Join(dir, name, "package.yaml"),
			}
			if fi, err := os.Stat(filepath.Join(dir, name, "src")); err == nil && fi.IsDir() {
				forms = append(forms, filepath.Join(dir, name, "src"))
			}
			var want []string
			for i, source := range forms {
				ds, r := jsonOutput(t, nil, source)
				if r.code == ExitError {
					t.Fatalf("%s: exit code 2: %s", source, r.stderr)
				}
				var got []string
				for _, d := range ds {
					if strings.HasPrefix(d.Rule, "XP5") || d.Rule == "XP408" || d.Rule == "XP006" {
						continue
					}
					obj := ""
					if d.Object != nil {
						obj = d.Object.Kind + "/" + d.Object.Name
					}
					got = append(got, fmt.Sprintf("%s %s %s %s", d.Rule, d.Severity, obj, d.Field))
				}
				slices.Sort(got)
				if i == 0 {
					want = got
					continue
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s finds other problems than %s (-xpkg +this):\n%s", filepath.Base(source), filepath.Base(forms[0]), diff)
				}
			}
		})
	}
}

// BenchmarkMonolith runs the whole program on the corpus's largest
// package: open the .xpkg, parse, lint, write JSON.
func BenchmarkMonolith(b *testing.B) {
	source := testcorpus.Path(b, monolith+".xpkg")
	b.ReportAllocs()
	for b.Loop() {
		if code := run(b.Context(), []string{"-o", "json", source}, nil, io.Discard, io.Discard); code != ExitOK {
			b.Fatalf("exit code %d", code)
		}
	}
}
