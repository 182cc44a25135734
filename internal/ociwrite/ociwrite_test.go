package ociwrite_test

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/validate"
	"github.com/klauspost/compress/gzip"
	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/xpkgkit/xpkgkit/internal/ociwrite"
	"github.com/xpkgkit/xpkgkit/internal/tartest"
	"github.com/xpkgkit/xpkgkit/internal/testcorpus"
)

const annotationKey = "io.crossplane.xpkg"

// testImage returns an image like a Crossplane package: a base layer and an
// examples layer.
func testImage(t testing.TB) ociwrite.Image {
	t.Helper()
	base, err := ociwrite.TarFiles(ociwrite.File{Name: "package.yaml", Data: []byte("apiVersion: meta.pkg.crossplane.io/v1\nkind: Provider\n")})
	if err != nil {
		t.Fatal(err)
	}
	zero := time.Time{}
	return ociwrite.Image{
		Layers: []ociwrite.Layer{
			{Tar: base, Annotations: map[string]string{annotationKey: "base"}},
			{
				WriteTar: func(w io.Writer) error {
					return ociwrite.WriteTar(context.Background(), w, ociwrite.File{Name: ".up/examples.yaml", Data: []byte("kind: Example\n")})
				},
				Annotations: map[string]string{annotationKey: "upbound"},
			},
		},
		Config:           ocispec.Image{Created: &zero},
		LabelAnnotations: []string{annotationKey},
		RefNames:         []string{"xpkg.example.org/acme/provider-example:v1.0.0"},
	}
}

func build(t testing.TB, img ociwrite.Image) *ociwrite.Built {
	t.Helper()
	b, err := ociwrite.Build(t.Context(), img)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	return b
}

type writeFunc func(ctx context.Context, b *ociwrite.Built, dir string) (string, error)

func writeXpkg(ctx context.Context, b *ociwrite.Built, dir string) (string, error) {
	return writeFile(filepath.Join(dir, "p.xpkg"), func(w io.Writer) error { return b.WriteDockerArchive(ctx, w) })
}

func writeLayoutTar(ctx context.Context, b *ociwrite.Built, dir string) (string, error) {
	return writeFile(filepath.Join(dir, "p.tar"), func(w io.Writer) error { return b.WriteLayoutTar(ctx, w) })
}

func writeLayout(ctx context.Context, b *ociwrite.Built, dir string) (string, error) {
	d := filepath.Join(dir, "layout")
	return d, b.WriteLayout(ctx, d)
}

func writeFile(path string, write func(io.Writer) error) (string, error) {
	var buf bytes.Buffer
	if err := write(&buf); err != nil {
		return "", err
	}
	return path, os.WriteFile(path, buf.Bytes(), 0o644)
}

// snapshot returns every file under root (a file or a directory) with its
// content, for comparing two writes.
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		out[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestWritesAreReproducible(t *testing.T) {
	t.Parallel()
	for name, write := range map[string]writeFunc{"xpkg": writeXpkg, "layout": writeLayout, "layout tar": writeLayoutTar} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var snaps []map[string]string
			for range 2 {
				p, err := write(t.Context(), build(t, testImage(t)), t.TempDir())
				if err != nil {
					t.Fatal(err)
				}
				snaps = append(snaps, snapshot(t, p))
			}
			if diff := cmp.Diff(snaps[0], snaps[1]); diff != "" {
				t.Errorf("two writes differ (-first +second):\n%s", diff)
			}
		})
	}
}

func TestDigestsAreStable(t *testing.T) {
	t.Parallel()
	// These digests pin the output format: a change to tar headers, gzip
	// level or JSON encoding changes them, and every package built by
	// xpkgkit changes digest with it. Update them only on purpose.
	b := build(t, testImage(t))
	got := map[string]digest.Digest{
		"manifest": b.ManifestDescriptor().Digest,
		"config":   b.ConfigDescriptor().Digest,
		"base":     b.Layers()[0].Digest,
	}
	want := map[string]digest.Digest{
		"manifest": "sha256:1fe735a1311af5340689d0962d8ebffda6a57451dc1fbad60603d754a9c23937",
		"config":   "sha256:b8ccad21111d1a43bc62c13b2f3554307a95d608b97e3a9fa20135cf0ae80405",
		"base":     "sha256:2bf377aab1e11b183f6f7fc9c3eee57674364c1520145bb62bfd2bf88c6ad453",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("digests changed (-want +got):\n%s", diff)
	}
}

// TestTarFilesMatchesCrossplane checks that a layer holding package.yaml is
// byte for byte the tar stream inside the Crossplane CLI's .xpkg.
func TestTarFilesMatchesCrossplane(t *testing.T) {
	t.Parallel()
	img, err := tarball.ImageFromPath(testcorpus.Path(t, "function-go-templating.xpkg"), nil)
	if err != nil {
		t.Fatal(err)
	}
	layers, err := img.Layers()
	if err != nil {
		t.Fatal(err)
	}
	rc, err := layers[0].Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	want, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	content := readTarEntry(t, want, "package.yaml")
	got, err := ociwrite.TarFiles(ociwrite.File{Name: "package.yaml", Data: content})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("tar of package.yaml differs from Crossplane's (%d vs %d bytes)", len(got), len(want))
	}
	// Same tar, same diff ID as the corpus image's config records.
	b := build(t, ociwrite.Image{Layers: []ociwrite.Layer{{Tar: got}}})
	cfg, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if g, w := b.DiffIDs()[0].String(), cfg.RootFS.DiffIDs[0].String(); g != w {
		t.Errorf("diff ID = %s, want %s", g, w)
	}
}

// TestDockerArchiveMatchesCrossplane compares the entries of a docker
// archive with those of a .xpkg the Crossplane CLI wrote.
func TestDockerArchiveMatchesCrossplane(t *testing.T) {
	t.Parallel()
	corpus, err := os.ReadFile(testcorpus.Path(t, "function-go-templating.xpkg"))
	if err != nil {
		t.Fatal(err)
	}
	img := testImage(t)
	img.Layers = img.Layers[:1]
	img.RefNames = nil
	b := build(t, img)
	var buf bytes.Buffer
	if err := b.WriteDockerArchive(t.Context(), &buf); err != nil {
		t.Fatal(err)
	}
	shape := func(data []byte) []string {
		var out []string
		tr := tar.NewReader(bytes.NewReader(data))
		for {
			h, err := tr.Next()
			if errors.Is(err, io.EOF) {
				return out
			}
			if err != nil {
				t.Fatal(err)
			}
			name := h.Name
			switch {
			case strings.HasPrefix(name, "sha256:"):
				name = "sha256:<hex>"
			case strings.HasSuffix(name, ".tar.gz"):
				name = "<hex>.tar.gz"
			}
			out = append(out, strings.Join([]string{name, string(h.Typeflag), h.FileInfo().Mode().String(),
				h.ModTime.UTC().Format(time.RFC3339), h.Uname, h.Gname, h.Format.String()}, " "))
			if h.Uid != 0 || h.Gid != 0 {
				t.Errorf("%s: owner %d:%d", h.Name, h.Uid, h.Gid)
			}
		}
	}
	if diff := cmp.Diff(shape(corpus), shape(buf.Bytes())); diff != "" {
		t.Errorf("entries differ from Crossplane's (-crossplane +ours):\n%s", diff)
	}
	var man []map[string]any
	if err := json.Unmarshal(readTarEntry(t, buf.Bytes(), "manifest.json"), &man); err != nil {
		t.Fatal(err)
	}
	want := []map[string]any{{
		"Config":   b.ConfigDescriptor().Digest.String(),
		"RepoTags": nil,
		"Layers":   []any{b.Layers()[0].Digest.Encoded() + ".tar.gz"},
	}}
	if diff := cmp.Diff(want, man); diff != "" {
		t.Errorf("manifest.json (-want +got):\n%s", diff)
	}
	// The gzip header is fixed: no name, zero mtime, OS 255.
	gz := b.LayerBlob(0)
	if !bytes.Equal(gz[:4], []byte{0x1f, 0x8b, 8, 0}) || !bytes.Equal(gz[4:8], []byte{0, 0, 0, 0}) || gz[9] != 0xff {
		t.Errorf("gzip header = % x", gz[:10])
	}
}

func readTarEntry(t testing.TB, data []byte, name string) []byte {
	t.Helper()
	tr := tar.NewReader(bytes.NewReader(data))
	for {
		h, err := tr.Next()
		if err != nil {
			t.Fatalf("reading %s: %v", name, err)
		}
		if h.Name == name {
			b, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
	}
}

// readBack opens what write wrote through go-containerregistry.
func readBack(t *testing.T, name, path string) v1.Image {
	t.Helper()
	switch name {
	case "xpkg":
		img, err := tarball.ImageFromPath(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		return img
	case "layout tar":
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		path = filepath.Join(t.TempDir(), "extracted")
		tartest.Extract(t, bytes.NewReader(data), path)
	}
	lp, err := layout.FromPath(path)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := lp.ImageIndex()
	if err != nil {
		t.Fatal(err)
	}
	im, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if got := im.Manifests[0].Annotations[ocispec.AnnotationRefName]; got != "xpkg.example.org/acme/provider-example:v1.0.0" {
		t.Errorf("ref name = %q", got)
	}
	img, err := idx.Image(im.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

func TestReadBackWithGoContainerregistry(t *testing.T) {
	t.Parallel()
	for name, write := range map[string]writeFunc{"xpkg": writeXpkg, "layout": writeLayout, "layout tar": writeLayoutTar} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b := build(t, testImage(t))
			p, err := write(t.Context(), b, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			img := readBack(t, name, p)
			if err := validate.Image(img); err != nil {
				t.Errorf("validate.Image: %v", err)
			}
			cfg, err := img.ConfigFile()
			if err != nil {
				t.Fatal(err)
			}
			cd, err := img.ConfigName()
			if err != nil {
				t.Fatal(err)
			}
			if cd.String() != b.ConfigDescriptor().Digest.String() {
				t.Errorf("config digest = %s, want %s", cd, b.ConfigDescriptor().Digest)
			}
			layers := b.Layers()
			wantLabels := map[string]string{
				"io.crossplane.xpkg:" + layers[0].Digest.String(): "base",
				"io.crossplane.xpkg:" + layers[1].Digest.String(): "upbound",
			}
			if diff := cmp.Diff(wantLabels, cfg.Config.Labels); diff != "" {
				t.Errorf("labels (-want +got):\n%s", diff)
			}
			if cfg.OS != "" || cfg.Architecture != "" {
				t.Errorf("platform = %s/%s, want empty", cfg.OS, cfg.Architecture)
			}
			if name == "xpkg" {
				return // a docker archive has no manifest of its own
			}
			d, err := img.Digest()
			if err != nil {
				t.Fatal(err)
			}
			if d.String() != b.ManifestDescriptor().Digest.String() {
				t.Errorf("manifest digest = %s, want %s", d, b.ManifestDescriptor().Digest)
			}
			m, err := img.Manifest()
			if err != nil {
				t.Fatal(err)
			}
			if got := m.Layers[1].Annotations[annotationKey]; got != "upbound" {
				t.Errorf("layer 1 annotation = %q, want upbound", got)
			}
		})
	}
}

func TestCorruptLayer(t *testing.T) {
	t.Parallel()
	img := testImage(t)
	img.Layers[0].Corrupt = true
	b := build(t, img)
	blob := b.LayerBlob(0)
	if got := digest.FromBytes(blob); got == b.Layers()[0].Digest {
		t.Fatal("corrupt layer's blob matches its digest")
	}
	if int64(len(blob)) != b.Layers()[0].Size {
		t.Errorf("corrupt blob size %d, descriptor says %d", len(blob), b.Layers()[0].Size)
	}
	// It still decompresses to the same tar.
	zr, err := gzip.NewReader(bytes.NewReader(blob))
	if err != nil {
		t.Fatal(err)
	}
	tarData, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if got := digest.FromBytes(tarData); got != b.DiffIDs()[0] {
		t.Errorf("diff ID = %s, want %s", got, b.DiffIDs()[0])
	}
	dir := t.TempDir()
	if err := b.WriteLayout(t.Context(), dir); err != nil {
		t.Fatal(err)
	}
	stored, err := os.ReadFile(filepath.Join(dir, "blobs", "sha256", b.Layers()[0].Digest.Encoded()))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(stored, blob) {
		t.Error("layout does not hold the corrupt blob under the layer's digest")
	}
	lp, err := layout.FromPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	gimg, err := lp.Image(v1.Hash{Algorithm: "sha256", Hex: b.ManifestDescriptor().Digest.Encoded()})
	if err != nil {
		t.Fatal(err)
	}
	if err := validate.Image(gimg); err == nil {
		t.Error("validate.Image accepted a corrupt layer")
	}
}

func TestBuildErrors(t *testing.T) {
	t.Parallel()
	tarData, err := ociwrite.TarFiles(ociwrite.File{Name: "a"})
	if err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	cases := map[string]struct {
		ctx  context.Context
		img  ociwrite.Image
		want error
	}{
		"no content": {
			img:  ociwrite.Image{Layers: []ociwrite.Layer{{}}},
			want: ociwrite.ErrNoLayerContent,
		},
		"writer fails": {
			img:  ociwrite.Image{Layers: []ociwrite.Layer{{WriteTar: func(io.Writer) error { return boom }}}},
			want: boom,
		},
		"cancelled": {
			ctx:  cancelled,
			img:  ociwrite.Image{Layers: []ociwrite.Layer{{Tar: tarData}}},
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
			if _, err := ociwrite.Build(ctx, tc.img); !errors.Is(err, tc.want) {
				t.Errorf("Build() error = %v, want %v", err, tc.want)
			}
		})
	}
	if _, err := ociwrite.Build(t.Context(), ociwrite.Image{Layers: []ociwrite.Layer{{Tar: tarData, WriteTar: func(io.Writer) error { return nil }}}}); err == nil {
		t.Error("Build accepted a layer with both Tar and WriteTar")
	}
}

func TestTarFiles(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		files   []ociwrite.File
		want    []string // name:mode of each entry
		wantErr error
	}{
		"sorted": {
			files: []ociwrite.File{{Name: "b"}, {Name: "a/x.yaml"}, {Name: "a", Dir: true}},
			want:  []string{"a/:drwxr-xr-x", "a/x.yaml:-rw-r--r--", "b:-rw-r--r--"},
		},
		"subdirectory kept": {
			files: []ociwrite.File{{Name: "pkg/package.yaml", Data: []byte("x")}},
			want:  []string{"pkg/package.yaml:-rw-r--r--"},
		},
		"duplicates kept in order": {
			files: []ociwrite.File{{Name: "a", Data: []byte("1")}, {Name: "a", Data: []byte("2")}},
			want:  []string{"a:-rw-r--r--", "a:-rw-r--r--"},
		},
		"empty name": {
			files:   []ociwrite.File{{}},
			wantErr: ociwrite.ErrInvalidFile,
		},
		"directory with content": {
			files:   []ociwrite.File{{Name: "d", Dir: true, Data: []byte("x")}},
			wantErr: ociwrite.ErrInvalidFile,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			data, err := ociwrite.TarFiles(tc.files...)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("TarFiles() error = %v, want %v", err, tc.wantErr)
			}
			if err != nil {
				return
			}
			var got []string
			tr := tar.NewReader(bytes.NewReader(data))
			for {
				h, err := tr.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				if !h.ModTime.Equal(time.Unix(0, 0)) || h.Uid != 0 || h.Gid != 0 || h.Uname != "" || h.Gname != "" {
					t.Errorf("%s: header not fixed: %+v", h.Name, h)
				}
				got = append(got, h.Name+":"+h.FileInfo().Mode().String())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("entries (-want +got):\n%s", diff)
			}
		})
	}
}

func TestOCIMediaTypes(t *testing.T) {
	t.Parallel()
	img := testImage(t)
	img.MediaTypes = ociwrite.OCIMediaTypes
	img.ManifestAnnotations = map[string]string{"org.opencontainers.image.title": "t"}
	b := build(t, img)
	m := b.Manifest()
	got := []string{m.MediaType, m.Config.MediaType, m.Layers[0].MediaType, m.Annotations["org.opencontainers.image.title"]}
	want := []string{ocispec.MediaTypeImageManifest, ocispec.MediaTypeImageConfig, ocispec.MediaTypeImageLayerGzip, "t"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("media types (-want +got):\n%s", diff)
	}
	p, err := writeLayout(t.Context(), b, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := validate.Image(readBack(t, "layout", p)); err != nil {
		t.Errorf("validate.Image: %v", err)
	}
}

func TestIndexWithoutRefNames(t *testing.T) {
	t.Parallel()
	img := testImage(t)
	img.RefNames = nil
	b := build(t, img)
	data, err := b.IndexJSON()
	if err != nil {
		t.Fatal(err)
	}
	var idx ocispec.Index
	if err := json.Unmarshal(data, &idx); err != nil {
		t.Fatal(err)
	}
	if len(idx.Manifests) != 1 || idx.Manifests[0].Annotations != nil || idx.Manifests[0].Digest != b.ManifestDescriptor().Digest {
		t.Errorf("index = %s", data)
	}
}

// TestLayoutProperties pins the properties of a written layout that
// oras-go's content/oci store, the layout writer of an allowed dependency,
// does not have (README, "Written by hand, and why"): index.json lists the
// names in the order given (oras-go writes them in map order: two orders in
// ten runs of four names), the layout holds nothing but its files (oras-go
// leaves an ingest/ directory), and an index.json already in the directory
// is replaced (oras-go merges its entries in).
func TestLayoutProperties(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		refNames []string
		previous []string // names of an image written to the directory first
	}{
		"no name":                  {},
		"one name":                 {refNames: []string{"r/a:v1"}},
		"names in the given order": {refNames: []string{"r/a:v3", "r/a:v1", "r/a:v4", "r/a:v2"}},
		"replaces an index":        {refNames: []string{"r/a:v1"}, previous: []string{"r/b:v9", "r/b:v8"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if tc.previous != nil {
				prev := testImage(t)
				prev.RefNames = tc.previous
				prev.Layers = prev.Layers[:1]
				if err := build(t, prev).WriteLayout(t.Context(), dir); err != nil {
					t.Fatal(err)
				}
			}
			img := testImage(t)
			img.RefNames = tc.refNames
			b := build(t, img)
			if err := b.WriteLayout(t.Context(), dir); err != nil {
				t.Fatal(err)
			}

			data, err := os.ReadFile(filepath.Join(dir, ocispec.ImageIndexFile))
			if err != nil {
				t.Fatal(err)
			}
			var idx ocispec.Index
			if err := json.Unmarshal(data, &idx); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, d := range idx.Manifests {
				if d.Digest != b.ManifestDescriptor().Digest {
					t.Errorf("index.json lists %s, not the image written", d.Digest)
				}
				if n, ok := d.Annotations[ocispec.AnnotationRefName]; ok {
					got = append(got, n)
				}
			}
			if diff := cmp.Diff(tc.refNames, got); diff != "" {
				t.Errorf("index.json's names (-want +got):\n%s", diff)
			}

			want := map[string]bool{ocispec.ImageLayoutFile: true, ocispec.ImageIndexFile: true, "blobs": true, "blobs/sha256": true}
			for _, d := range append(b.Layers(), b.ConfigDescriptor(), b.ManifestDescriptor()) {
				want["blobs/sha256/"+d.Digest.Encoded()] = true
			}
			err = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
				if err != nil || p == dir {
					return err
				}
				rel, _ := filepath.Rel(dir, p)
				if !want[filepath.ToSlash(rel)] && tc.previous == nil {
					t.Errorf("the layout holds %s, which is none of its files", rel)
				}
				delete(want, filepath.ToSlash(rel))
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			for p := range want {
				t.Errorf("the layout lacks %s", p)
			}
		})
	}
}
