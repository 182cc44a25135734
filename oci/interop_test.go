package oci_test

import (
	"archive/tar"
	"bytes"
	"context"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/xpkgkit/xpkgkit/oci"
)

// ggcrLayer makes a go-containerregistry gzip layer of entries.
func ggcrLayer(t *testing.T, mt types.MediaType, entries ...entry) v1.Layer {
	t.Helper()
	raw := tarBytes(t, entries...)
	l, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(raw)), nil
	}, tarball.WithMediaType(mt))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func layerDigest(t *testing.T, l v1.Layer) string {
	t.Helper()
	d, err := l.Digest()
	if err != nil {
		t.Fatal(err)
	}
	return d.String()
}

// crossplaneImage builds an image the way the Crossplane CLI does: a base
// layer with package.yaml and an examples layer, annotated by config labels.
func crossplaneImage(t *testing.T, content string) (v1.Image, v1.Layer) {
	t.Helper()
	base := ggcrLayer(t, types.DockerLayer, file("package.yaml", content))
	examples := ggcrLayer(t, types.DockerLayer, file(".up/examples.yaml", "kind: Example\n"))
	img, err := mutate.AppendLayers(empty.Image, base, examples)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	cfg = cfg.DeepCopy()
	cfg.Config.Labels = map[string]string{
		"io.crossplane.xpkg:" + layerDigest(t, base):     "base",
		"io.crossplane.xpkg:" + layerDigest(t, examples): "upbound",
	}
	img, err = mutate.ConfigFile(img, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return img, base
}

func readPackageYAML(t *testing.T, f oci.Fetcher, img *oci.Image) string {
	t.Helper()
	file, err := oci.ReadLayerFile(context.Background(), f, baseLayer(t, img), "package.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return readAllString(t, file)
}

// TestGGCRDockerArchive reads docker archives written by
// go-containerregistry's tarball.Write, with Crossplane's label convention.
func TestGGCRDockerArchive(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	one, oneBase := crossplaneImage(t, "kind: Provider\n")
	two, _ := crossplaneImage(t, "kind: Configuration\n")
	path := filepath.Join(t.TempDir(), "pkg.xpkg")
	refs := map[name.Reference]v1.Image{}
	for ref, img := range map[string]v1.Image{"example.com/one:v1": one, "example.com/two:v2": two} {
		tag, err := name.NewTag(ref)
		if err != nil {
			t.Fatal(err)
		}
		refs[tag] = img
	}
	if err := tarball.MultiRefWriteToFile(path, refs); err != nil {
		t.Fatal(err)
	}
	src, err := oci.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if src.Format() != oci.FormatDockerArchive {
		t.Errorf("Format = %v", src.Format())
	}
	img, err := oci.Resolve(ctx, src, oci.WithReference("example.com/one:v1"))
	if err != nil {
		t.Fatal(err)
	}
	if got := readPackageYAML(t, src, img); got != "kind: Provider\n" {
		t.Errorf("package.yaml = %q", got)
	}
	if len(img.RefNames) != 1 || img.RefNames[0] != "example.com/one:v1" {
		t.Errorf("RefNames = %q", img.RefNames)
	}
	if got := baseLayer(t, img).Digest.String(); got != layerDigest(t, oneBase) {
		t.Errorf("base digest %s, ggcr says %s", got, layerDigest(t, oneBase))
	}
	if img.Manifest.Layers[1].Annotations["io.crossplane.xpkg"] != "upbound" {
		t.Errorf("examples layer annotations %v", img.Manifest.Layers[1].Annotations)
	}
	if img.Manifest.Layers[0].MediaType != oci.MediaTypeDockerLayer {
		t.Errorf("sniffed media type %q", img.Manifest.Layers[0].MediaType)
	}
	cfgDigest, _ := one.ConfigName()
	if img.Manifest.Config.Digest.String() != cfgDigest.String() {
		t.Errorf("config digest %s, ggcr says %s", img.Manifest.Config.Digest, cfgDigest)
	}
	img2, err := oci.Resolve(ctx, src, oci.WithReference("example.com/two:v2"))
	if err != nil {
		t.Fatal(err)
	}
	if got := readPackageYAML(t, src, img2); got != "kind: Configuration\n" {
		t.Errorf("package.yaml = %q", got)
	}
	// Two untagged-in-the-call images without platforms: ambiguous.
	_, err = oci.Resolve(ctx, src)
	wantErr(t, err, oci.ErrNoMatchingPlatform)
}

// TestGGCRLayoutMultiPlatform reads OCI layouts written by layout.Write:
// a platform index at the top of index.json, and nested under it.
func TestGGCRLayoutMultiPlatform(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	platforms := []v1.Platform{{OS: "linux", Architecture: "arm64"}, {OS: "linux", Architecture: "amd64"}, {OS: "linux", Architecture: "arm", Variant: "v7"}}
	var adds []mutate.IndexAddendum
	for _, p := range platforms {
		img, err := mutate.AppendLayers(mutate.MediaType(empty.Image, types.OCIManifestSchema1),
			ggcrLayer(t, types.OCILayer, file("package.yaml", p.String())))
		if err != nil {
			t.Fatal(err)
		}
		img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
		adds = append(adds, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: &p}})
	}
	idx := mutate.AppendManifests(mutate.IndexMediaType(empty.Index, types.OCIImageIndex), adds...)

	flat := t.TempDir()
	if _, err := layout.Write(flat, idx); err != nil {
		t.Fatal(err)
	}
	nested := t.TempDir()
	p, err := layout.Write(nested, empty.Index)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.AppendIndex(idx, layout.WithAnnotations(map[string]string{ocispec.AnnotationRefName: "v1"})); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{flat, nested} {
		src, err := oci.Open(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"linux/amd64", "linux/arm64", "linux/arm/v7"} {
			pl, _ := oci.ParsePlatform(want)
			img, err := oci.Resolve(ctx, src, oci.WithPlatform(pl))
			if err != nil {
				t.Fatal(err)
			}
			f, err := oci.ReadFile(ctx, src, img.Manifest.Layers, "package.yaml")
			if err != nil {
				t.Fatal(err)
			}
			if got := readAllString(t, f); got != want {
				t.Errorf("%s: package.yaml = %q", want, got)
			}
		}
		_, err = oci.Resolve(ctx, src, oci.WithPlatform(ocispec.Platform{OS: "windows", Architecture: "amd64"}))
		wantErr(t, err, oci.ErrNoMatchingPlatform)
	}
}

// TestGGCRWhiteouts compares ReadFile with go-containerregistry's
// mutate.Extract on a multi-layer image with whiteouts and an opaque dir.
func TestGGCRWhiteouts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	img, err := mutate.AppendLayers(empty.Image,
		ggcrLayer(t, types.DockerLayer, file("package.yaml", "v0"), file("a/f", "a"), file("b/g", "b"), file("c/h", "c")),
		ggcrLayer(t, types.DockerLayer, file(".wh.package.yaml", ""), dir("a/"), file("a/.wh..wh..opq", ""), file("a/new", "n"), file("c/.wh.h", "")),
		ggcrLayer(t, types.DockerLayer, file("package.yaml", "v2")),
	)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "img.tar")
	if err := tarball.WriteToFile(path, name.MustParseReference("example.com/w:1"), img); err != nil {
		t.Fatal(err)
	}
	extracted := map[string]string{}
	rc := mutate.Extract(img)
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if err != nil {
			break
		}
		b, _ := io.ReadAll(tr)
		extracted[h.Name] = string(b)
	}
	rc.Close()

	src, err := oci.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	oimg, err := oci.Resolve(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"package.yaml", "a/f", "a/new", "b/g", "c/h"} {
		want, exists := extracted[p]
		f, err := oci.ReadFile(ctx, src, oimg.Manifest.Layers, p)
		if !exists {
			wantErr(t, err, oci.ErrNotFound)
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if got := readAllString(t, f); got != want {
			t.Errorf("%s = %q, mutate.Extract says %q", p, got, want)
		}
	}
}

// TestLayoutTar reads a layout written by go-containerregistry and tarred,
// plain and gzip-compressed, by content whatever the file name.
func TestLayoutTar(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	img, _ := crossplaneImage(t, "kind: Function\n")
	dir := t.TempDir()
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.AppendImage(img); err != nil {
		t.Fatal(err)
	}
	raw := tarDir(t, dir)
	for _, tc := range []struct {
		name string
		data []byte
	}{{"plain.xpkg", raw}, {"compressed.tar", gzipBytes(t, raw)}} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tc.name)
			if err := os.WriteFile(path, tc.data, 0o644); err != nil {
				t.Fatal(err)
			}
			src, err := oci.Open(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			if src.Format() != oci.FormatLayoutTar {
				t.Errorf("Format = %v", src.Format())
			}
			oimg, err := oci.Resolve(ctx, src)
			if err != nil {
				t.Fatal(err)
			}
			if got := readPackageYAML(t, src, oimg); got != "kind: Function\n" {
				t.Errorf("package.yaml = %q", got)
			}
		})
	}
}

// tarDir tars the files of dir with "./"-prefixed names, as `tar -C dir .`
// does.
func tarDir(t *testing.T, dir string) []byte {
	t.Helper()
	var entries []entry
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		b, err := os.ReadFile(p)
		entries = append(entries, file("./"+filepath.ToSlash(rel), string(b)))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return tarBytes(t, entries...)
}

// TestOpenUnknownFormat: inputs that are none of the three formats.
func TestOpenUnknownFormat(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cases := map[string][]byte{
		"empty":         {},
		"text":          []byte("apiVersion: v1\n"),
		"tar of others": tarBytes(t, file("package.yaml", "x")),
		"gzip of text":  gzipBytes(t, []byte("hello")),
	}
	for name, data := range cases {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := oci.Open(context.Background(), path)
		if err == nil {
			t.Errorf("%s: no error", name)
			continue
		}
		wantErr(t, err, oci.ErrUnknownFormat)
	}
	_, err := oci.Open(context.Background(), dir) // a directory without oci-layout
	wantErr(t, err, oci.ErrUnknownFormat)
}

// TestSkopeo converts a corpus .xpkg to an OCI layout with skopeo and reads
// it. skopeo recompresses the layer, so the config label no longer names it
// and package.yaml is found by flattening.
func TestSkopeo(t *testing.T) {
	t.Parallel()
	skopeo, err := exec.LookPath("skopeo")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("skopeo is not installed; CI must install it")
		}
		t.Skip("skopeo is not installed")
	}
	ctx := context.Background()
	xpkg := corpusPath(t, "provider-helm.xpkg")
	out := filepath.Join(t.TempDir(), "layout")
	cmd := exec.CommandContext(ctx, skopeo, "copy", "--quiet", "docker-archive:"+xpkg, "oci:"+out+":v1")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("skopeo: %v\n%s", err, b)
	}
	want := openCorpus(t, xpkg, oci.FormatDockerArchive)

	src, err := oci.Open(ctx, out)
	if err != nil {
		t.Fatal(err)
	}
	img, err := oci.Resolve(ctx, src, oci.WithReference("v1"))
	if err != nil {
		t.Fatal(err)
	}
	if img.Manifest.MediaType != ocispec.MediaTypeImageManifest {
		t.Errorf("manifest media type %q", img.Manifest.MediaType)
	}
	f, err := oci.ReadFile(ctx, src, img.Manifest.Layers, "package.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := digestFile(t, f); got != want.content {
		t.Errorf("package.yaml digest %s, .xpkg gives %s", got, want.content)
	}
}
