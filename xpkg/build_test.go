package xpkg_test

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"
	"time"

	"github.com/xpkgkit/xpkgkit/linter/rules"

	"github.com/google/go-cmp/cmp"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/validate"
	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/xpkgkit/xpkgkit/internal/tartest"
	"github.com/xpkgkit/xpkgkit/internal/testcorpus"
	"github.com/xpkgkit/xpkgkit/limit"
	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/oci"
	"github.com/xpkgkit/xpkgkit/parser"
	"github.com/xpkgkit/xpkgkit/xpkg"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/build")

const exampleDir = "testdata/build/provider-example"

func mustBuild(t testing.TB, fsys fs.FS, opts ...xpkg.BuildOption) *xpkg.BuildResult {
	t.Helper()
	res, err := xpkg.Build(t.Context(), fsys, opts...)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	return res
}

// TestPackageYAMLMatchesCorpus checks that Build joins the files of every
// corpus package exactly as the corpus's package.yaml holds them (and so as
// parser.ParseFS reads them).
func TestPackageYAMLMatchesCorpus(t *testing.T) {
	t.Parallel()
	for _, name := range testcorpus.Names() {
		src := filepath.Join(testcorpus.Path(t, name), "src")
		if _, err := os.Stat(src); err != nil {
			continue // the monolith has no src
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			want, err := os.ReadFile(filepath.Join(testcorpus.Path(t, name), "package.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			if len(want) > 200<<10 {
				// Parsing the large providers under -race takes seconds;
				// TestJoinMatchesCorpus checks their joining without parsing.
				t.Skip("large package")
			}
			res := mustBuild(t, os.DirFS(src))
			if !bytes.Equal(res.PackageYAML(), want) {
				t.Errorf("package.yaml differs from the corpus's (%d vs %d bytes)", len(res.PackageYAML()), len(want))
			}
			// And it parses to the same objects as the directory did.
			again, err := parser.Parse(t.Context(), bytes.NewReader(res.PackageYAML()))
			if err != nil {
				t.Fatal(err)
			}
			if g, w := len(again.Meta)+len(again.Objects), len(res.Package().Meta)+len(res.Package().Objects); g != w {
				t.Errorf("package.yaml parses to %d objects, the directory to %d", g, w)
			}
		})
	}
}

// writeAll writes res in the three forms into dir and returns the files
// written (path relative to dir → content).
func writeAll(t *testing.T, res *xpkg.BuildResult, dir string) map[string]string {
	t.Helper()
	ctx := t.Context()
	var x, lt bytes.Buffer
	if err := res.WriteXpkg(ctx, &x); err != nil {
		t.Fatal(err)
	}
	if err := res.WriteLayoutTar(ctx, &lt); err != nil {
		t.Fatal(err)
	}
	if err := res.WriteLayout(ctx, filepath.Join(dir, "layout")); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{"p.xpkg": x.String(), "p.tar": lt.String()}
	err := filepath.WalkDir(filepath.Join(dir, "layout"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// copyPackage copies src into a new temporary directory, giving every file
// the modification time mtime, so that two copies differ in everything but
// content.
func copyPackage(t *testing.T, src string, mtime time.Time) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "pkg")
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	err := filepath.WalkDir(dst, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Chtimes(p, mtime, mtime)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

type goldenDigests map[string]struct {
	Digest       digest.Digest `json:"digest"`
	ConfigDigest digest.Digest `json:"configDigest"`
}

// TestBuildIsReproducible builds packages twice, from two copies with
// different paths and timestamps, and compares every byte written; then it
// compares the digests with golden values, which pins them across machines.
// Run with -update to rewrite testdata/build/digests.golden.json.
func TestBuildIsReproducible(t *testing.T) {
	t.Parallel()
	sources := map[string]string{"provider-example": exampleDir}
	for _, name := range []string{"function-go-templating", "platform-ref-aws"} {
		sources[name] = filepath.Join(testcorpus.Path(t, name), "src")
	}
	got := goldenDigests{}
	for name, src := range sources {
		var results []*xpkg.BuildResult
		var written []map[string]string
		for i, mtime := range []time.Time{time.Unix(1e9, 0), time.Now()} {
			res := mustBuild(t, os.DirFS(copyPackage(t, src, mtime)), xpkg.WithTags("xpkg.example.org/acme/"+name+":v1.0.0"))
			results = append(results, res)
			written = append(written, writeAll(t, res, t.TempDir()))
			if i == 0 { // and once more from the same directory
				again := mustBuild(t, os.DirFS(src), xpkg.WithTags("xpkg.example.org/acme/"+name+":v1.0.0"))
				if again.Digest() != res.Digest() {
					t.Errorf("%s: two builds of one directory differ: %s, %s", name, res.Digest(), again.Digest())
				}
			}
		}
		if results[0].Digest() != results[1].Digest() {
			t.Errorf("%s: digests differ: %s, %s", name, results[0].Digest(), results[1].Digest())
		}
		if diff := cmp.Diff(written[0], written[1]); diff != "" {
			t.Errorf("%s: written files differ:\n%.2000s", name, diff)
		}
		got[name] = struct {
			Digest       digest.Digest `json:"digest"`
			ConfigDigest digest.Digest `json:"configDigest"`
		}{results[0].Digest(), results[0].Manifest().Config.Digest}
	}

	golden := filepath.Join("testdata", "build", "digests.golden.json")
	if *update {
		b, err := json.MarshalIndent(got, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	var want goldenDigests
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("digests differ from %s (-want +got); run with -update only if the change is intended:\n%s", golden, diff)
	}
}

// readBack opens a written form through go-containerregistry.
func readBack(t *testing.T, res *xpkg.BuildResult, form string) v1.Image {
	t.Helper()
	dir := t.TempDir()
	switch form {
	case "xpkg":
		var buf bytes.Buffer
		if err := res.WriteXpkg(t.Context(), &buf); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "p"+xpkg.Extension)
		if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		img, err := tarball.ImageFromPath(p, nil)
		if err != nil {
			t.Fatal(err)
		}
		return img
	case "layout tar":
		var buf bytes.Buffer
		if err := res.WriteLayoutTar(t.Context(), &buf); err != nil {
			t.Fatal(err)
		}
		tartest.Extract(t, &buf, dir)
	default:
		if err := res.WriteLayout(t.Context(), dir); err != nil {
			t.Fatal(err)
		}
	}
	lp, err := layout.FromPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	img, err := lp.Image(v1.Hash{Algorithm: "sha256", Hex: res.Digest().Encoded()})
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// layerFile returns the content of file in l, and whether l holds it.
func layerFile(t *testing.T, l v1.Layer, file string) ([]byte, []string) {
	t.Helper()
	rc, err := l.Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	var names []string
	var content []byte
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return content, names
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, h.Name)
		if h.Name == file {
			if content, err = io.ReadAll(tr); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func TestBuildReadBackWithGoContainerregistry(t *testing.T) {
	t.Parallel()
	res := mustBuild(t, os.DirFS(exampleDir))
	for _, form := range []string{"xpkg", "layout", "layout tar"} {
		t.Run(form, func(t *testing.T) {
			t.Parallel()
			img := readBack(t, res, form)
			if err := validate.Image(img); err != nil {
				t.Errorf("validate.Image: %v", err)
			}
			cfg, err := img.ConfigFile()
			if err != nil {
				t.Fatal(err)
			}
			layers, err := img.Layers()
			if err != nil {
				t.Fatal(err)
			}
			if len(layers) != 2 {
				t.Fatalf("%d layers, want 2", len(layers))
			}
			want := map[string]string{
				xpkg.LayerLabel(res.Manifest().Layers[0].Digest): xpkg.AnnotationBase,
			}
			want[xpkg.LayerLabel(res.Manifest().Layers[1].Digest)] = xpkg.AnnotationExamples
			if diff := cmp.Diff(want, cfg.Config.Labels); diff != "" {
				t.Errorf("config labels (-want +got):\n%s", diff)
			}
			for i, tc := range []struct {
				file    string
				content []byte
			}{{xpkg.PackageFile, res.PackageYAML()}, {xpkg.ExamplesFile, res.ExamplesYAML()}} {
				got, names := layerFile(t, layers[i], tc.file)
				if diff := cmp.Diff([]string{tc.file}, names); diff != "" {
					t.Errorf("layer %d entries (-want +got):\n%s", i, diff)
				}
				if !bytes.Equal(got, tc.content) {
					t.Errorf("layer %d: %s differs", i, tc.file)
				}
			}
			if form == "xpkg" {
				return
			}
			m, err := img.Manifest()
			if err != nil {
				t.Fatal(err)
			}
			got := []string{m.Layers[0].Annotations[xpkg.AnnotationKey], m.Layers[1].Annotations[xpkg.AnnotationKey]}
			if diff := cmp.Diff([]string{xpkg.AnnotationBase, xpkg.AnnotationExamples}, got); diff != "" {
				t.Errorf("layer annotations (-want +got):\n%s", diff)
			}
		})
	}
}

func TestBuildExamples(t *testing.T) {
	t.Parallel()
	other := fstest.MapFS{
		"b.yaml":          {Data: []byte("apiVersion: v1\nkind: B\n")},
		"a.yml":           {Data: []byte("apiVersion: v1\nkind: A\n")},
		".hidden/c.yaml":  {Data: []byte("apiVersion: v1\nkind: C\n")},
		"notes.txt":       {Data: []byte("not YAML")},
		"nested/d.yaml":   {Data: []byte("apiVersion: v1\nkind: D")},
		"examples/e.yaml": {Data: []byte("apiVersion: v1\nkind: E\n")},
	}
	cases := map[string]struct {
		fsys fs.FS
		opts []xpkg.BuildOption
		want []byte // nil: no examples layer
	}{
		"examples directory": {
			fsys: os.DirFS(exampleDir),
			want: []byte("apiVersion: example.org/v1alpha1\nkind: Widget\nmetadata:\n  name: small\nspec:\n  size: 1\n"),
		},
		"without examples": {
			fsys: os.DirFS(exampleDir),
			opts: []xpkg.BuildOption{xpkg.WithoutExamples()},
		},
		"no examples directory": {
			fsys: fstest.MapFS{parser.MetaFile: {Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n")}},
		},
		"empty examples directory": {
			fsys: fstest.MapFS{
				parser.MetaFile:       {Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n")},
				"examples/readme.txt": {Data: []byte("none")},
			},
		},
		"examples from another file system": {
			fsys: os.DirFS(exampleDir),
			opts: []xpkg.BuildOption{xpkg.WithExamplesFS(other)},
			// Every directory, hidden ones and examples/ included, as
			// Crossplane's examples reader walks them.
			want: []byte("apiVersion: v1\nkind: C\n---\napiVersion: v1\nkind: A\n---\napiVersion: v1\nkind: B\n---\napiVersion: v1\nkind: E\n---\napiVersion: v1\nkind: D\n"),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			res := mustBuild(t, tc.fsys, tc.opts...)
			ok := len(res.Manifest().Layers) == 2
			if ok != (tc.want != nil) {
				t.Fatalf("examples layer present = %v, want %v", ok, tc.want != nil)
			}
			if diff := cmp.Diff(string(tc.want), string(res.ExamplesYAML())); diff != "" {
				t.Errorf("examples (-want +got):\n%s", diff)
			}
			if n := len(res.Manifest().Layers); n != map[bool]int{true: 2, false: 1}[ok] {
				t.Errorf("%d layers", n)
			}
		})
	}
}

func TestBuildErrors(t *testing.T) {
	t.Parallel()
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	cases := map[string]struct {
		ctx      context.Context
		fsys     fs.FS
		opts     []xpkg.BuildOption
		want     error
		wantFile string // of the first *ParseError document
	}{
		"no crossplane.yaml": {
			fsys: fstest.MapFS{"crds/a.yaml": {Data: []byte("kind: A\n")}},
			want: xpkg.ErrNoMetaFile,
		},
		"crossplane.yaml below the root": {
			fsys: fstest.MapFS{"package/crossplane.yaml": {Data: []byte("kind: A\n")}},
			want: xpkg.ErrNoMetaFile,
		},
		"document that cannot be parsed": {
			fsys:     os.DirFS("testdata/build/bad-yaml"),
			want:     parser.ErrSyntax,
			wantFile: "broken.yaml",
		},
		"example that cannot be parsed": {
			fsys:     os.DirFS("testdata/build/bad-example"),
			want:     xpkg.ErrParse,
			wantFile: "examples/broken.yaml",
		},
		"broken example left out": {
			fsys: os.DirFS("testdata/build/bad-example"),
			opts: []xpkg.BuildOption{xpkg.WithoutExamples()},
		},
		"parser limit": {
			fsys: os.DirFS(exampleDir),
			opts: []xpkg.BuildOption{xpkg.WithBuildParserOptions(parser.WithLimits(parser.Limits{MaxTotalBytes: 100}))},
			want: limit.ErrExceeded,
		},
		"cancelled": {
			ctx:  cancelled,
			fsys: os.DirFS(exampleDir),
			want: context.Canceled,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := tc.ctx
			if ctx == nil {
				ctx = t.Context()
			}
			_, err := xpkg.Build(ctx, tc.fsys, tc.opts...)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Build() error = %v, want %v", err, tc.want)
			}
			if tc.wantFile == "" {
				return
			}
			var pe *xpkg.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("Build() error = %T, want *xpkg.ParseError", err)
			}
			if !errors.Is(err, xpkg.ErrParse) {
				t.Error("a *ParseError is not ErrParse")
			}
			if got := pe.Errors[0].Pos.File; got != tc.wantFile {
				t.Errorf("error in file %q, want %q", got, tc.wantFile)
			}
		})
	}
}

func TestBuildOptions(t *testing.T) {
	t.Parallel()
	plain := mustBuild(t, os.DirFS(exampleDir))
	tagged := mustBuild(t, os.DirFS(exampleDir), xpkg.WithTags("a.example/x:v1", "a.example/x:latest"))
	oci := mustBuild(t, os.DirFS(exampleDir), xpkg.WithOCIMediaTypes())
	if plain.Digest() != tagged.Digest() {
		t.Error("tags changed the digest")
	}
	if plain.Digest() == oci.Digest() || plain.Manifest().Config.Digest != oci.Manifest().Config.Digest {
		t.Error("OCI media types should change the manifest digest, not the config digest")
	}
	if got := oci.Manifest().MediaType; got != "application/vnd.oci.image.manifest.v1+json" {
		t.Errorf("manifest media type = %s", got)
	}
	if got := plain.Manifest().MediaType; got != "application/vnd.docker.distribution.manifest.v2+json" {
		t.Errorf("manifest media type = %s", got)
	}
	var buf bytes.Buffer
	if err := tagged.WriteXpkg(t.Context(), &buf); err != nil {
		t.Fatal(err)
	}
	opener := func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(buf.Bytes())), nil }
	written, err := tarball.Image(opener, nil)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := written.RawConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	var cfg ocispec.Image
	if err := json.Unmarshal(raw, &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.OS != "" || cfg.Architecture != "" || cfg.Created == nil || !cfg.Created.IsZero() {
		t.Errorf("config platform %q/%q created %v, want empty and zero time", cfg.OS, cfg.Architecture, cfg.Created)
	}
	m, err := tarball.LoadManifest(opener)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a.example/x:v1", "a.example/x:latest"}, m[0].RepoTags); diff != "" {
		t.Errorf("RepoTags (-want +got):\n%s", diff)
	}
}

func TestBuildLint(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		dir       string
		opts      []xpkg.BuildOption
		wantRules []string // of the *LintError; nil: Build succeeds
	}{
		"clean package": {
			dir:  exampleDir,
			opts: []xpkg.BuildOption{xpkg.WithCheck(rules.BuildCheck())},
		},
		"CRD name is not plural.group": {
			dir:       "testdata/build/lint-error",
			opts:      []xpkg.BuildOption{xpkg.WithCheck(rules.BuildCheck())},
			wantRules: []string{"XP401"},
		},
		"rule disabled": {
			dir:  "testdata/build/lint-error",
			opts: []xpkg.BuildOption{xpkg.WithCheck(rules.BuildCheck(linter.WithDisabled("XP401")))},
		},
		"error regraded to warning": {
			dir:  "testdata/build/lint-error",
			opts: []xpkg.BuildOption{xpkg.WithCheck(rules.BuildCheck(linter.WithSeverity("crd-name", linter.SeverityWarning)))},
		},
		"no check": {
			dir: "testdata/build/lint-error",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := xpkg.Build(t.Context(), os.DirFS(tc.dir), tc.opts...)
			if tc.wantRules == nil {
				if err != nil {
					t.Fatalf("Build: %v", err)
				}
				return
			}
			var le *rules.LintError
			if !errors.As(err, &le) || !errors.Is(err, rules.ErrLint) {
				t.Fatalf("Build() error = %v, want a *LintError", err)
			}
			var got []string
			for _, d := range le.Diagnostics {
				got = append(got, d.RuleID)
				if d.Severity != linter.SeverityError {
					t.Errorf("%s has severity %s", d, d.Severity)
				}
			}
			if diff := cmp.Diff(tc.wantRules, got); diff != "" {
				t.Errorf("rules (-want +got):\n%s", diff)
			}
		})
	}
	if _, err := xpkg.Build(t.Context(), os.DirFS(exampleDir), xpkg.WithCheck(rules.BuildCheck(linter.WithDisabled("XP999")))); err == nil || errors.Is(err, rules.ErrLint) {
		t.Errorf("Build with an unknown rule: %v, want the linter's own error", err)
	}
}

// TestBuildReadBackWithOCI reads every written form back through the
// project's own reader, which verifies every blob.
func TestBuildReadBackWithOCI(t *testing.T) {
	t.Parallel()
	res := mustBuild(t, os.DirFS(exampleDir), xpkg.WithTags("xpkg.example.org/acme/provider-example:v1.0.0"))
	dir := t.TempDir()
	var x, lt bytes.Buffer
	if err := res.WriteXpkg(t.Context(), &x); err != nil {
		t.Fatal(err)
	}
	if err := res.WriteLayoutTar(t.Context(), &lt); err != nil {
		t.Fatal(err)
	}
	paths := map[string]string{
		"xpkg":       filepath.Join(dir, "p"+xpkg.Extension),
		"layout tar": filepath.Join(dir, "p.tar"),
		"layout":     filepath.Join(dir, "layout"),
	}
	for form, data := range map[string][]byte{"xpkg": x.Bytes(), "layout tar": lt.Bytes()} {
		if err := os.WriteFile(paths[form], data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := res.WriteLayout(t.Context(), paths["layout"]); err != nil {
		t.Fatal(err)
	}
	for form, path := range paths {
		t.Run(form, func(t *testing.T) {
			t.Parallel()
			src, err := oci.Open(t.Context(), path)
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			img, err := oci.Resolve(t.Context(), src, oci.WithReference("xpkg.example.org/acme/provider-example:v1.0.0"))
			if err != nil {
				t.Fatal(err)
			}
			if img.Manifest.Config.Digest != res.Manifest().Config.Digest {
				t.Errorf("config digest = %s, want %s", img.Manifest.Config.Digest, res.Manifest().Config.Digest)
			}
			if form != "xpkg" && img.Descriptor.Digest != res.Digest() {
				t.Errorf("digest = %s, want %s", img.Descriptor.Digest, res.Digest())
			}
			var got []string
			for _, l := range img.Manifest.Layers {
				got = append(got, l.Annotations[xpkg.AnnotationKey])
			}
			if diff := cmp.Diff([]string{xpkg.AnnotationBase, xpkg.AnnotationExamples}, got); diff != "" {
				t.Errorf("annotations (-want +got):\n%s", diff)
			}
			for i, want := range [][]byte{res.PackageYAML(), res.ExamplesYAML()} {
				name := []string{xpkg.PackageFile, xpkg.ExamplesFile}[i]
				f, err := oci.ReadLayerFile(t.Context(), src, img.Manifest.Layers[i], name)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				b, err := io.ReadAll(f)
				f.Close()
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if !bytes.Equal(b, want) {
					t.Errorf("%s differs", name)
				}
			}
		})
	}
}

// BenchmarkBuild builds provider-aws (200 CRDs, 7.4 MB of YAML) from its
// sources, without linting, and writes it as a .xpkg.
func BenchmarkBuild(b *testing.B) {
	fsys := os.DirFS(filepath.Join(testcorpus.Path(b, "provider-aws"), "src"))
	b.ReportAllocs()
	for b.Loop() {
		res, err := xpkg.Build(b.Context(), fsys)
		if err != nil {
			b.Fatal(err)
		}
		if err := res.WriteXpkg(b.Context(), io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}

func TestErrorMessages(t *testing.T) {
	t.Parallel()
	docErrs := func(n int) []*parser.DocumentError {
		var out []*parser.DocumentError
		for i := range n {
			out = append(out, &parser.DocumentError{Pos: parser.Position{File: "a.yaml", Document: i, Line: i + 1, Column: 1}, Err: parser.ErrSyntax})
		}
		return out
	}
	cases := map[string]struct {
		err  error
		want string
	}{
		"one parse error": {
			err:  &xpkg.ParseError{Errors: docErrs(1)},
			want: "xpkg: package has documents that cannot be parsed\n\ta.yaml:1:1: document 0: invalid YAML",
		},
		"seven parse errors": {
			err: &xpkg.ParseError{Errors: docErrs(7)},
			want: "xpkg: package has documents that cannot be parsed\n\ta.yaml:1:1: document 0: invalid YAML\n\ta.yaml:2:1: document 1: invalid YAML" +
				"\n\ta.yaml:3:1: document 2: invalid YAML\n\ta.yaml:4:1: document 3: invalid YAML\n\ta.yaml:5:1: document 4: invalid YAML\n\t... and 2 more",
		},
		"lint error and failed rule": {
			err: &rules.LintError{
				Diagnostics: []linter.Diagnostic{{RuleID: "XP401", RuleName: "crd-name", Severity: linter.SeverityError, Message: "bad name", Pos: parser.Position{File: "a.yaml", Line: 3, Column: 5}}},
				Failures:    []*linter.RuleError{{RuleID: "XP999", RuleName: "custom", Err: errors.New("boom")}},
			},
			want: "xpkg: package has lint errors\n\ta.yaml:3:5: error XP401 crd-name: bad name\nrules that failed:\n\trule XP999 custom: boom",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, tc.err.Error()); diff != "" {
				t.Errorf("Error() (-want +got):\n%s", diff)
			}
		})
	}
}
