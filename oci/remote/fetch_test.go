package remote_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"io"
	"slices"
	"testing"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/xpkgkit/xpkgkit/internal/ociwrite"
	"github.com/xpkgkit/xpkgkit/internal/registrytest"
	"github.com/xpkgkit/xpkgkit/oci"
	"github.com/xpkgkit/xpkgkit/oci/remote"
)

const packageYAML = "apiVersion: meta.pkg.crossplane.io/v1\nkind: Provider\nmetadata:\n  name: provider-test\n"

// noise returns a layer holding one file of n random (incompressible)
// bytes.
func noise(t testing.TB, name string, n int) ociwrite.Layer {
	t.Helper()
	data := make([]byte, n)
	if _, err := rand.Read(data); err != nil {
		t.Fatal(err)
	}
	tar, err := ociwrite.TarFiles(ociwrite.File{Name: name, Data: data})
	if err != nil {
		t.Fatal(err)
	}
	return ociwrite.Layer{Tar: tar}
}

func fileLayer(t testing.TB, name, data string, annotations map[string]string) ociwrite.Layer {
	t.Helper()
	tar, err := ociwrite.TarFiles(ociwrite.File{Name: name, Data: []byte(data)})
	if err != nil {
		t.Fatal(err)
	}
	return ociwrite.Layer{Tar: tar, Annotations: annotations}
}

// pushBuilt writes spec as an OCI layout, pushes it to repo:tag and returns
// the layout's image.
func pushBuilt(t testing.TB, c *remote.Client, repo, tag string, spec ociwrite.Image) *oci.Image {
	t.Helper()
	ctx := context.Background()
	b, err := ociwrite.Build(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := b.WriteLayout(ctx, dir); err != nil {
		t.Fatal(err)
	}
	src, err := oci.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	img, err := oci.Resolve(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.Repository(repo)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.PushImage(ctx, src, img.Descriptor, []string{tag}); err != nil {
		t.Fatal(err)
	}
	return img
}

// TestFetchOnlyWhatIsNeeded counts the blob requests of reading
// package.yaml: the config and the base layer when a layer is annotated;
// the config and the layers from the top down to the one holding
// package.yaml when none is.
func TestFetchOnlyWhatIsNeeded(t *testing.T) {
	t.Parallel()
	reg := registrytest.Start(t, registrytest.Plain)
	pusher, _ := remote.New(remote.WithAnonymous())
	base := map[string]string{"io.crossplane.xpkg": "base"}
	tests := []struct {
		name   string
		layers func() []ociwrite.Layer
		// want lists the indexes of the layers that must be fetched, in
		// order, after the config.
		want []int
	}{
		{
			name: "base layer between two large layers",
			layers: func() []ociwrite.Layer {
				return []ociwrite.Layer{noise(t, "bin/a", 1<<20), fileLayer(t, "package.yaml", packageYAML, base), noise(t, "bin/b", 1<<20)}
			},
			want: []int{1},
		},
		{
			name: "flattened: top down, stopping at package.yaml",
			layers: func() []ociwrite.Layer {
				return []ociwrite.Layer{noise(t, "bin/a", 1<<20), fileLayer(t, "package.yaml", packageYAML, nil), noise(t, "bin/b", 64<<10)}
			},
			want: []int{2, 1},
		},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			spec := ociwrite.Image{Layers: tc.layers(), MediaTypes: ociwrite.OCIMediaTypes, LabelAnnotations: []string{"io.crossplane.xpkg"}}
			repo := reg.Host + "/test/count" + string(rune('a'+i))
			want := pushBuilt(t, pusher, repo, "v1", spec)

			proxy := newCounter(t, reg.Host)
			c, _ := remote.New(remote.WithAnonymous())
			ctx := context.Background()
			img, r, err := c.Pull(ctx, proxy.Host()+"/test/count"+string(rune('a'+i))+":v1")
			if err != nil {
				t.Fatal(err)
			}
			var f *oci.File
			if slices.ContainsFunc(img.Manifest.Layers, func(l ocispec.Descriptor) bool { return l.Annotations["io.crossplane.xpkg"] == "base" }) {
				f, err = oci.ReadLayerFile(ctx, r, img.Manifest.Layers[1], "package.yaml")
			} else {
				f, err = oci.ReadFile(ctx, r, img.Manifest.Layers, "package.yaml")
			}
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(f)
			f.Close()
			if err != nil || !bytes.Equal(got, []byte(packageYAML)) {
				t.Fatalf("package.yaml = %q, %v", got, err)
			}
			wantGets := []string{want.Manifest.Config.Digest.String()}
			for _, l := range tc.want {
				wantGets = append(wantGets, want.Manifest.Layers[l].Digest.String())
			}
			if gets := proxy.blobGets(); !slices.Equal(gets, wantGets) {
				t.Errorf("blob GETs = %q, want %q (config, then layers %v)", gets, wantGets, tc.want)
			}
		})
	}
}
