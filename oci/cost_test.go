package oci_test

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	digest "github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/xpkgkit/xpkgkit/limit"
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
		limit   int
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
			a, err := oci.OpenReaderAt(context.Background(), bytes.NewReader(b), int64(len(b)), oci.WithLimits(oci.Limits{MaxArchiveImages: tc.limit}))
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
			var le *limit.Error
			var oe *oci.Error
			if !errors.As(err, &le) || le.Limit != "MaxArchiveImages" || !errors.As(err, &oe) || oe.Path != "manifest.json" {
				t.Fatalf("error %v, want MaxArchiveImages at manifest.json", err)
			}
			want := tc.limit
			if want == 0 {
				want = oci.DefaultLimits().MaxArchiveImages
			}
			if le.Max != int64(want) {
				t.Errorf("limit %d, want %d", le.Max, want)
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
	for i := len(img.Manifest.Layers) - 1; i >= 0; i-- {
		f, err := oci.ReadLayerFile(context.Background(), src, img.Manifest.Layers[i], fmt.Sprint("f", i))
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
	f, err := oci.ReadFile(ctx, src, img.Manifest.Layers, "package.yaml")
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
	put(img.Descriptor.Digest, img.RawManifest)
	put(img.Manifest.Config.Digest, img.RawConfig)
	for _, l := range img.Manifest.Layers {
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

// ustarHeader returns a USTAR header block (archive/tar refuses to write
// the headers of sparse files itself).
func ustarHeader(name string, typeflag byte, size int) []byte {
	h := make([]byte, 512)
	copy(h, name)
	copy(h[100:], "0000644\x00")
	copy(h[108:], "0000000\x00")
	copy(h[116:], "0000000\x00")
	copy(h[124:], fmt.Sprintf("%011o\x00", size))
	copy(h[136:], "00000000000\x00")
	h[156] = typeflag
	copy(h[257:], "ustar\x0000")
	copy(h[148:156], "        ")
	sum := 0
	for _, c := range h {
		sum += int(c)
	}
	copy(h[148:], fmt.Sprintf("%06o\x00 ", sum))
	return h
}

// padBlock pads b to a multiple of 512 bytes.
func padBlock(b []byte) []byte {
	if r := len(b) % 512; r != 0 {
		b = append(b, make([]byte, 512-r)...)
	}
	return b
}

// sparseTarBytes returns a tar holding name as a PAX (GNU 1.0) sparse file
// of realSize bytes whose data, at offset 0, is data.
func sparseTarBytes(name, data string, realSize int64) []byte {
	rec := func(k, v string) string {
		body := " " + k + "=" + v + "\n"
		n := len(body) + 1
		for len(fmt.Sprint(n))+len(body) != n {
			n++
		}
		return fmt.Sprint(n) + body
	}
	recs := rec("GNU.sparse.major", "1") + rec("GNU.sparse.minor", "0") + rec("GNU.sparse.name", name) + rec("GNU.sparse.realsize", fmt.Sprint(realSize))
	// The data section: the sparse map (entries, then offset and length
	// of each), padded to a block, then the data.
	section := string(padBlock([]byte(fmt.Sprintf("1\n0\n%d\n", len(data))))) + data
	var b []byte
	b = append(b, ustarHeader("PaxHeaders.0/"+name, tar.TypeXHeader, len(recs))...)
	b = append(b, padBlock([]byte(recs))...)
	b = append(b, ustarHeader("GNUSparseFile.0/"+name, tar.TypeReg, len(section))...)
	b = append(b, padBlock([]byte(section))...)
	return append(b, make([]byte, 1024)...)
}

// TestSparseEntries checks that a sparse package file is refused before
// its holes are expanded, and that WalkLayer counts a sparse entry's
// expanded size against MaxLayerBytes.
func TestSparseEntries(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBuilder(t)
	raw := sparseTarBytes("package.yaml", "kind: Configuration\n", 500<<20)
	layer := b.push(ocispec.MediaTypeImageLayerGzip, gzipBytes(t, raw))
	if layer.Size > 4<<10 {
		t.Fatalf("layer of %d bytes", layer.Size)
	}
	err := readAllFile(b.s, []ocispec.Descriptor{layer}, "package.yaml", oci.WithLimits(oci.Limits{}))
	var oe *oci.Error
	if !errors.Is(err, oci.ErrNotRegularFile) || !errors.As(err, &oe) || oe.Path != "package.yaml" || oe.Descriptor.Digest != layer.Digest {
		t.Errorf("ReadFile: %v, want ErrNotRegularFile for package.yaml", err)
	}
	var expanded int64
	err = oci.WalkLayer(ctx, b.s, layer, func(hdr *tar.Header, r io.Reader) error {
		n, err := io.Copy(io.Discard, r)
		expanded += n
		return err
	}, oci.WithLimits(oci.Limits{MaxLayerBytes: 500<<20 - 1}))
	var le *limit.Error
	if !errors.As(err, &le) || le.Limit != "MaxLayerBytes" || expanded != 0 {
		t.Errorf("WalkLayer: %v after %d bytes, want MaxLayerBytes before any", err, expanded)
	}
	// Under MaxLayerBytes, the walk reads the expanded entry.
	expanded = 0
	small := b.push(ocispec.MediaTypeImageLayer, sparseTarBytes("f", "x", 4096))
	err = oci.WalkLayer(ctx, b.s, small, func(hdr *tar.Header, r io.Reader) error {
		n, err := io.Copy(io.Discard, r)
		expanded += n
		return err
	})
	if err != nil || expanded != 4096 {
		t.Errorf("WalkLayer: %v after %d bytes, want 4096", err, expanded)
	}
}

// TestNilArguments checks that nil contexts, readers, fetchers and stores,
// and the zero Source, return errors instead of panicking.
func TestNilArguments(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBuilder(t)
	layer := b.gzLayer(file("package.yaml", "x"))
	var nilCtx context.Context
	var zero oci.Source
	cases := []struct {
		name string
		run  func() error
		want error
	}{
		{"Open nil context", func() error { _, err := oci.Open(nilCtx, "x"); return err }, oci.ErrInvalidArgument},
		{"OpenReaderAt nil reader", func() error { _, err := oci.OpenReaderAt(ctx, nil, 10); return err }, oci.ErrInvalidArgument},
		{"OpenReaderAt nil context", func() error { _, err := oci.OpenReaderAt(nilCtx, bytes.NewReader(nil), 0); return err }, oci.ErrInvalidArgument},
		{"OpenReaderAt negative size", func() error { _, err := oci.OpenReaderAt(ctx, bytes.NewReader(nil), -1); return err }, oci.ErrInvalidArgument},
		{"NewLayoutFS nil fs", func() error { _, err := oci.NewLayoutFS(ctx, nil); return err }, oci.ErrInvalidArgument},
		{"NewLayoutFS nil context", func() error { _, err := oci.NewLayoutFS(nilCtx, mapFS(nil)); return err }, oci.ErrInvalidArgument},
		{"Resolve nil store", func() error { _, err := oci.Resolve(ctx, nil); return err }, oci.ErrInvalidArgument},
		{"Resolve nil context", func() error { _, err := oci.Resolve(nilCtx, b.s); return err }, oci.ErrInvalidArgument},
		{"Resolve zero Source", func() error { _, err := oci.Resolve(ctx, &zero); return err }, oci.ErrNotFound},
		{"Resolve nil Source", func() error { var s *oci.Source; _, err := oci.Resolve(ctx, s); return err }, oci.ErrNotFound},
		{"zero Source Fetch", func() error { _, err := zero.Fetch(ctx, layer); return err }, oci.ErrNotFound},
		{"zero Source Close", func() error { return zero.Close() }, nil},
		{"ResolveDescriptor nil fetcher", func() error { _, err := oci.ResolveDescriptor(ctx, nil, layer); return err }, oci.ErrInvalidArgument},
		{"ResolveDescriptor nil context", func() error { _, err := oci.ResolveDescriptor(nilCtx, b.s, layer); return err }, oci.ErrInvalidArgument},
		{"OpenLayer nil fetcher", func() error { _, err := oci.OpenLayer(ctx, nil, layer); return err }, oci.ErrInvalidArgument},
		{"OpenLayer nil context", func() error { _, err := oci.OpenLayer(nilCtx, b.s, layer); return err }, oci.ErrInvalidArgument},
		{"FetchVerified nil context", func() error { _, err := oci.FetchVerified(nilCtx, b.s, layer); return err }, oci.ErrInvalidArgument},
		{"ReadFile nil context", func() error {
			_, err := oci.ReadFile(nilCtx, b.s, []ocispec.Descriptor{layer}, "package.yaml")
			return err
		}, oci.ErrInvalidArgument},
		{"ReadLayerFile nil fetcher", func() error { _, err := oci.ReadLayerFile(ctx, nil, layer, "package.yaml"); return err }, oci.ErrInvalidArgument},
		{"WalkLayer nil callback", func() error { return oci.WalkLayer(ctx, b.s, layer, nil) }, oci.ErrInvalidArgument},
		{"MemoryStore Push nil context", func() error { return b.s.Push(nilCtx, layer, bytes.NewReader(nil)) }, oci.ErrInvalidArgument},
		{"MemoryStore Push nil reader", func() error { return oci.NewMemoryStore().Push(ctx, layer, nil) }, oci.ErrInvalidArgument},
		{"MemoryStore Fetch nil context", func() error { _, err := b.s.Fetch(nilCtx, layer); return err }, oci.ErrInvalidArgument},
		{"MemoryStore Index nil context", func() error { _, err := b.s.Index(nilCtx); return err }, oci.ErrInvalidArgument},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			wantErr(t, tc.run(), tc.want)
			if tc.want != nil && tc.run() == nil {
				t.Error("no error")
			}
		})
	}
}

// TestOpenReportsFormat checks that a broken archive's error says which
// format was recognised.
func TestOpenReportsFormat(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		archive []byte
		want    oci.Format
	}{
		{"docker archive with bad manifest.json", tarBytes(t, file("manifest.json", "[{")), oci.FormatDockerArchive},
		{"layout tar with bad oci-layout", tarBytes(t, file("oci-layout", "{"), file("index.json", "{}")), oci.FormatLayoutTar},
		{"neither", tarBytes(t, file("x", "{")), 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "image.tar")
			if err := os.WriteFile(path, tc.archive, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := oci.Open(context.Background(), path)
			var oe *oci.Error
			if !errors.As(err, &oe) || oe.Format != tc.want {
				t.Fatalf("error %v, want an *oci.Error with Format %v", err, tc.want)
			}
			if tc.want != 0 && !strings.Contains(err.Error(), tc.want.String()) {
				t.Errorf("message %q does not name %v", err, tc.want)
			}
		})
	}
}

// TestWarningsBounded checks that a layer of many long unsafe names makes
// ReadFile keep a bounded number of short warnings, and that an archive's
// index skips entries with very long names.
func TestWarningsBounded(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", 8<<10)
	var entries []entry
	for i := range 150 {
		entries = append(entries, file(fmt.Sprintf("../%d/%s", i, long), ""))
	}
	upper := append(entries[:120:120], file("x", "1"))
	lower := append(entries[120:], file("package.yaml", "kind: Configuration\n"))
	b := newBuilder(t)
	ul := b.gzLayer(upper...)
	ll := b.gzLayer(lower...)
	f, err := oci.ReadFile(context.Background(), b.s, []ocispec.Descriptor{ll, ul}, "package.yaml")
	wantErr(t, err, nil)
	defer f.Close()
	if _, err := io.Copy(io.Discard, f); err != nil {
		t.Fatal(err)
	}
	w := f.Warnings()
	if len(w) != oci.MaxWarnings+1 {
		t.Fatalf("%d warnings, want %d and a summary", len(w), oci.MaxWarnings)
	}
	for _, e := range w[:oci.MaxWarnings] {
		if len(e.Path) > oci.MaxWarningPath || !errors.Is(e, oci.ErrUnsafePath) {
			t.Fatalf("warning of %d bytes: %.80v", len(e.Path), e)
		}
	}
	if last := w[oci.MaxWarnings]; !errors.Is(last, oci.ErrUnsafePath) || !strings.Contains(last.Error(), "and 50 more") {
		t.Errorf("summary %v, want 50 more", last)
	}

	archive := tarBytes(t, file("oci-layout", `{"imageLayoutVersion":"1.0.0"}`), file("index.json", `{"schemaVersion":2,"manifests":[]}`), file(long, "x"))
	l, err := oci.OpenReaderAt(context.Background(), bytes.NewReader(archive), int64(len(archive)))
	wantErr(t, err, nil)
	defer l.Close()
	if _, err := l.Fetch(context.Background(), ocispec.Descriptor{Digest: digest.FromString("x"), Size: 1}); !errors.Is(err, oci.ErrNotFound) {
		t.Errorf("fetch: %v", err)
	}
}
