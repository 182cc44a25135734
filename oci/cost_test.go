package oci_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"

	digest "github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/xpkgkit/xpkgkit/oci"
)

// dockerArchiveEntries writes a docker archive of one config and one layer
// whose manifest.json lists n entries, each with the given tags, all naming
// them.
func dockerArchiveEntries(t testing.TB, n int, tags []string) []byte {
	t.Helper()
	layer := gzipBytes(t, tarBytes(t, file("package.yaml", "kind: Configuration\n")))
	lh := digest.FromBytes(layer).Encoded()
	cfg := []byte(`{"config":{"Labels":{"io.crossplane.xpkg:sha256:` + lh + `":"base"}},"rootfs":{"type":"layers"}}`)
	ch := digest.FromBytes(cfg).Encoded()
	entries := make([]map[string]any, n)
	for i := range entries {
		entries[i] = map[string]any{"Config": "sha256:" + ch, "RepoTags": tags, "Layers": []string{lh + ".tar.gz"}}
	}
	return tarBytes(t, file("sha256:"+ch, string(cfg)), file(lh+".tar.gz", string(layer)), file("manifest.json", mustJSON(t, entries)))
}

// TestMaxArchiveImages checks the limit at its boundary: entries without
// tags count one each, and each tag counts one.
func TestMaxArchiveImages(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		entries int
		tags    []string
		limit   int64
		wantErr bool
	}{
		{name: "entries at the limit", entries: 5, limit: 5},
		{name: "one entry more", entries: 6, limit: 5, wantErr: true},
		{name: "tags at the limit", entries: 2, tags: []string{"a:1", "b:1"}, limit: 4},
		{name: "one tag more", entries: 1, tags: []string{"a:1", "b:1", "c:1", "d:1", "e:1"}, limit: 4, wantErr: true},
		{name: "default", entries: 100},
		{name: "default plus one", entries: 101, wantErr: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := dockerArchiveEntries(t, tc.entries, tc.tags)
			a, err := oci.NewDockerArchive(context.Background(), bytes.NewReader(b), int64(len(b)), oci.WithLimits(oci.Limits{MaxArchiveImages: tc.limit}))
			if !tc.wantErr {
				wantErr(t, err, nil)
				defer a.Close()
				idx, err := a.Index(context.Background())
				wantErr(t, err, nil)
				want := tc.entries * max(1, len(tc.tags))
				if len(idx.Manifests) != want {
					t.Errorf("index has %d manifests, want %d", len(idx.Manifests), want)
				}
				return
			}
			var le *oci.LimitError
			var oe *oci.Error
			if !errors.As(err, &le) || le.Name != "MaxArchiveImages" || !errors.As(err, &oe) || oe.Path != "manifest.json" {
				t.Fatalf("error %v, want MaxArchiveImages at manifest.json", err)
			}
			want := tc.limit
			if want == 0 {
				want = oci.DefaultLimits().MaxArchiveImages
			}
			if le.Limit != want {
				t.Errorf("limit %d, want %d", le.Limit, want)
			}
		})
	}
}

// TestGzipArchiveReadOrder opens a gzip-compressed OCI layout tar of many
// layers larger than the in-memory spool and reads them in reverse order:
// each blob verifies, and the temporary file is gone once the Source is
// closed (at once where the system allows).
func TestGzipArchiveReadOrder(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	dir := t.TempDir()
	b := newBuilder(t)
	var layers []ocispec.Descriptor
	for i := range 24 {
		// 1 MiB of incompressible-ish content per layer: 24 MiB in all,
		// past the 16 MiB kept in memory.
		body := bytes.Repeat([]byte(fmt.Sprintf("%07d", i)), 150_000)
		layers = append(layers, b.push(ocispec.MediaTypeImageLayer, tarBytes(t, file(fmt.Sprint("f", i), string(body)))))
	}
	b.tag(b.image(nil, layers...), "")
	layoutDir := filepath.Join(dir, "layout")
	writeLayout(t, b.s, layoutDir)
	tgz := gzipBytes(t, tarDir(t, layoutDir))
	path := filepath.Join(dir, "image.tar.gz")
	if err := os.WriteFile(path, tgz, 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := oci.Open(context.Background(), path)
	wantErr(t, err, nil)
	img, err := oci.Resolve(context.Background(), src)
	wantErr(t, err, nil)
	for i := len(img.Layers) - 1; i >= 0; i-- {
		f, err := oci.ReadLayerFile(context.Background(), src, img.Layers[i], fmt.Sprint("f", i))
		wantErr(t, err, nil)
		if _, err := io.Copy(io.Discard, f); err != nil {
			t.Fatalf("layer %d: %v", i, err)
		}
		f.Close()
	}
	if err := src.Close(); err != nil {
		t.Fatal(err)
	}
	left, _ := os.ReadDir(tmp)
	if len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// TestLayoutDirSpecialFiles checks that a layout directory is read only
// through regular files inside it: a blob linked to a file outside is
// refused as an unsafe path (no hash oracle), and FIFOs and devices are
// refused without blocking.
func TestLayoutDirSpecialFiles(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("no FIFOs or symbolic links without privileges on Windows")
	}
	b := newBuilder(t)
	layer := b.gzLayer(file("package.yaml", "kind: Configuration\n"))
	b.tag(b.image(nil, layer), "")
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret")
	gz, err := b.s.Fetch(context.Background(), layer)
	wantErr(t, err, nil)
	content, _ := io.ReadAll(gz)
	if err := os.WriteFile(secret, content, 0o644); err != nil {
		t.Fatal(err)
	}
	blob := filepath.Join("blobs", "sha256", layer.Digest.Encoded())
	cases := []struct {
		name   string
		tamper func(root string) error
		want   error
	}{
		{name: "blob linked outside", want: oci.ErrUnsafePath, tamper: func(root string) error {
			p := filepath.Join(root, blob)
			os.Remove(p)
			return os.Symlink(secret, p)
		}},
		{name: "blobs directory linked outside", want: oci.ErrUnsafePath, tamper: func(root string) error {
			p := filepath.Join(root, "blobs", "sha256")
			if err := os.Rename(p, filepath.Join(outside, "moved-"+filepath.Base(root))); err != nil {
				return err
			}
			return os.Symlink(filepath.Join(outside, "moved-"+filepath.Base(root)), p)
		}},
		{name: "blob linked inside", tamper: func(root string) error {
			p := filepath.Join(root, blob)
			if err := os.Rename(p, filepath.Join(root, "copy")); err != nil {
				return err
			}
			return os.Symlink(filepath.Join("..", "..", "copy"), p)
		}},
		{name: "blob FIFO", want: oci.ErrNotRegularFile, tamper: func(root string) error {
			p := filepath.Join(root, blob)
			os.Remove(p)
			return syscall.Mkfifo(p, 0o644)
		}},
		{name: "index.json FIFO", want: oci.ErrNotRegularFile, tamper: func(root string) error {
			p := filepath.Join(root, "index.json")
			os.Remove(p)
			return syscall.Mkfifo(p, 0o644)
		}},
		{name: "oci-layout FIFO", want: oci.ErrNotRegularFile, tamper: func(root string) error {
			p := filepath.Join(root, "oci-layout")
			os.Remove(p)
			return syscall.Mkfifo(p, 0o644)
		}},
		{name: "oci-layout linked to a FIFO", want: oci.ErrNotRegularFile, tamper: func(root string) error {
			p := filepath.Join(root, "oci-layout")
			os.Remove(p)
			if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644); err != nil {
				return err
			}
			return os.Symlink("fifo", p)
		}},
		{name: "blob is /dev/zero", want: oci.ErrUnsafePath, tamper: func(root string) error {
			p := filepath.Join(root, blob)
			os.Remove(p)
			return os.Symlink("/dev/zero", p)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root := filepath.Join(t.TempDir(), "layout")
			writeLayout(t, b.s, root)
			if err := tc.tamper(root); err != nil {
				t.Fatal(err)
			}
			err := readPackageYAMLAt(root)
			if tc.want == nil {
				wantErr(t, err, nil)
				return
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("error %v, want %v", err, tc.want)
			}
		})
	}
}

// readPackageYAMLAt opens the image at path, resolves it and reads
// package.yaml from its last layer.
func readPackageYAMLAt(path string) error {
	ctx := context.Background()
	src, err := oci.Open(ctx, path)
	if err != nil {
		return err
	}
	defer src.Close()
	img, err := oci.Resolve(ctx, src)
	if err != nil {
		return err
	}
	f, err := oci.ReadFile(ctx, src, img.Layers, "package.yaml")
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(io.Discard, f)
	return err
}

func TestImageLayoutVersion(t *testing.T) {
	t.Parallel()
	cases := []struct {
		content string
		want    error
	}{
		{content: `{"imageLayoutVersion":"1.0.0"}`},
		{content: `{"imageLayoutVersion":"1.1.0"}`},
		{content: `{"imageLayoutVersion":""}`, want: oci.ErrMalformed},
		{content: `{}`, want: oci.ErrMalformed},
		{content: `{"imageLayoutVersion":"2.0.0"}`, want: oci.ErrMalformed},
		{content: `{"imageLayoutVersion":"1.0"}`, want: oci.ErrMalformed},
		{content: `{"imageLayoutVersion":"1.0.0-rc1"}`, want: oci.ErrMalformed},
		{content: `{"imageLayoutVersion":"01.0.0"}`, want: oci.ErrMalformed},
		{content: `{"imageLayoutVersion":"1.0.0","imageLayoutVersion":"2.0.0"}`, want: oci.ErrMalformed},
		{content: `{"imageLayoutVersion":"1.0.0","ImageLayoutVersion":"2.0.0"}`, want: oci.ErrMalformed},
	}
	for _, tc := range cases {
		t.Run(tc.content, func(t *testing.T) {
			t.Parallel()
			fsys := mapFS(map[string]string{"oci-layout": tc.content})
			_, err := oci.NewLayoutFS(context.Background(), fsys)
			wantErr(t, err, tc.want)
		})
	}
}

// TestAmbiguousJSON checks that metadata with a repeated key, or two keys
// encoding/json takes for one field, is refused, and that maps of names
// (annotations, labels) may hold keys that differ only in case.
func TestAmbiguousJSON(t *testing.T) {
	t.Parallel()
	b := newBuilder(t)
	layer := b.gzLayer(file("package.yaml", "kind: Configuration\n"))
	other := b.gzLayer(file("package.yaml", "kind: Provider\n"))
	cfg := b.pushJSON(ocispec.MediaTypeImageConfig, ocispec.Image{RootFS: ocispec.RootFS{Type: "layers"}})
	desc := func(d ocispec.Descriptor) string { return mustJSON(t, d) }
	manifest := func(body string) ocispec.Descriptor {
		return b.push(ocispec.MediaTypeImageManifest, []byte(body))
	}
	head := `{"schemaVersion":2,"mediaType":"` + ocispec.MediaTypeImageManifest + `","config":` + desc(cfg)
	cases := []struct {
		name string
		body string
		want error
	}{
		{name: "plain", body: head + `,"layers":[` + desc(layer) + `]}`},
		{name: "layers twice", body: head + `,"layers":[` + desc(layer) + `],"layers":[` + desc(other) + `]}`, want: oci.ErrMalformed},
		{name: "LAYERS", body: head + `,"layers":[` + desc(layer) + `],"LAYERS":[` + desc(other) + `]}`, want: oci.ErrMalformed},
		{name: "ANNOTATIONS beside annotations", body: head + `,"layers":[` + desc(layer) + `],"annotations":{"a":"b"},"ANNOTATIONS":{}}`, want: oci.ErrMalformed},
		{name: "digest twice in a descriptor", body: head + `,"layers":[{"mediaType":"` + layer.MediaType + `","digest":"` + string(layer.Digest) + `","DIGEST":"` + string(other.Digest) + `","size":1}]}`, want: oci.ErrMalformed},
		{name: "annotation keys differing in case", body: head + `,"layers":[` + desc(layer) + `],"annotations":{"org.example/a":"1","ORG.EXAMPLE/A":"2"}}`},
		{name: "annotation key twice", body: head + `,"layers":[` + desc(layer) + `],"annotations":{"a":"1","a":"2"}}`, want: oci.ErrMalformed},
		{name: "same key in sibling objects", body: head + `,"layers":[` + desc(layer) + `,` + desc(layer) + `]}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := oci.ResolveDescriptor(context.Background(), b.s, manifest(tc.body))
			wantErr(t, err, tc.want)
		})
	}
}

// TestCorruptGzipHeaderKeepsClass checks that a layer whose gzip header is
// corrupted fails with the verifier's class (the blob does not hash to its
// digest), not with the error of a closed blob.
func TestCorruptGzipHeaderKeepsClass(t *testing.T) {
	t.Parallel()
	b := newBuilder(t)
	layer := b.gzLayer(file("package.yaml", "kind: Configuration\n"))
	rc, err := b.s.Fetch(context.Background(), layer)
	wantErr(t, err, nil)
	raw, _ := io.ReadAll(rc)
	bad := bytes.Clone(raw)
	bad[2] = 0x42 // compression method: not deflate
	f := corruptFetcher{Fetcher: b.s, replace: map[digest.Digest][]byte{layer.Digest: bad}}
	_, err = oci.OpenLayer(context.Background(), f, layer)
	if !errors.Is(err, oci.ErrDigestMismatch) || errors.Is(err, os.ErrClosed) || strings.Contains(err.Error(), "closed") {
		t.Errorf("error %v, want ErrDigestMismatch", err)
	}
	// The same bytes under their own digest: a verified blob with bad
	// content is malformed.
	d := b.push(ocispec.MediaTypeImageLayerGzip, bad)
	_, err = oci.OpenLayer(context.Background(), b.s, d)
	if !errors.Is(err, oci.ErrMalformed) || strings.Contains(err.Error(), "closed") {
		t.Errorf("error %v, want ErrMalformed", err)
	}
}

// writeLayout writes the single image of s (no nested index) as an OCI
// layout directory at root.
func writeLayout(t testing.TB, s *oci.MemoryStore, root string) {
	t.Helper()
	ctx := context.Background()
	img, err := oci.Resolve(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := s.Index(ctx)
	if err != nil {
		t.Fatal(err)
	}
	put := func(d digest.Digest, b []byte) {
		writeFile(t, filepath.Join(root, "blobs", d.Algorithm().String(), d.Encoded()), string(b))
	}
	put(img.Digest(), img.RawManifest)
	put(img.ConfigDigest(), img.RawConfig)
	for _, l := range img.Layers {
		rc, err := s.Fetch(ctx, l)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(rc)
		put(l.Digest, b)
	}
	writeFile(t, filepath.Join(root, "oci-layout"), `{"imageLayoutVersion":"1.0.0"}`)
	writeFile(t, filepath.Join(root, "index.json"), mustJSON(t, idx))
}

// mapFS is an fstest.MapFS of files with the given contents.
func mapFS(files map[string]string) fstest.MapFS {
	m := fstest.MapFS{}
	for k, v := range files {
		m[k] = &fstest.MapFile{Data: []byte(v), Mode: 0o644}
	}
	return m
}
