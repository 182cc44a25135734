package oci_test

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"testing"

	digest "github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/xpkgkit/xpkgkit/limit"
	"github.com/xpkgkit/xpkgkit/oci"
)

// boundary is one limit tested at its exact value: run with the limit at
// at (or limit.Unlimited) passes, and with at-1 fails with a *limit.Error naming the field and
// the value, inside an *Error whose descriptor digest and path are those
// given.
type boundary struct {
	name   limit.Name // the Limits field
	at     int64
	set    func(l *oci.Limits, v int64)
	run    func(o oci.Option) error
	digest digest.Digest // of the *Error reporting it; "" for none
	path   string        // of the *Error reporting it
}

func (bd boundary) check(t *testing.T) {
	t.Helper()
	var lim oci.Limits
	bd.set(&lim, bd.at)
	if err := bd.run(oci.WithLimits(lim)); err != nil {
		t.Fatalf("%s = %d: %v, want success", bd.name, bd.at, err)
	}
	bd.set(&lim, limit.Unlimited)
	if err := bd.run(oci.WithLimits(lim)); err != nil {
		t.Fatalf("%s = limit.Unlimited: %v, want success", bd.name, err)
	}
	bd.set(&lim, bd.at-1)
	err := bd.run(oci.WithLimits(lim))
	var le *limit.Error
	if !errors.As(err, &le) || le.Limit != bd.name || le.Max != bd.at-1 {
		t.Fatalf("%s = %d: error %v, want a *limit.Error naming %s (%d)", bd.name, bd.at-1, err, bd.name, bd.at-1)
	}
	var oe *oci.Error
	if !errors.As(err, &oe) {
		t.Fatalf("error %v is not an *oci.Error", err)
	}
	// The innermost *Error says where.
	for {
		var inner *oci.Error
		if !errors.As(oe.Err, &inner) {
			break
		}
		oe = inner
	}
	if oe.Descriptor.Digest != bd.digest || oe.Path != bd.path {
		t.Errorf("reported at %s %q, want %s %q (%v)", oe.Descriptor.Digest, oe.Path, bd.digest, bd.path, err)
	}
}

// readAllFile reads name from layers to its end.
func readAllFile(f oci.Fetcher, layers []ocispec.Descriptor, name string, o oci.Option) error {
	file, err := oci.ReadFile(context.Background(), f, layers, name, o)
	if err != nil {
		return err
	}
	defer file.Close()
	_, err = io.Copy(io.Discard, file)
	return err
}

// TestLimitBoundaries checks every field of oci.Limits at its exact value:
// the limit passes, one less fails, and the error says which limit and
// where.
func TestLimitBoundaries(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBuilder(t)
	body := "kind: Configuration\n"
	plainTar := tarBytes(t, file("package.yaml", body))
	plain := b.push(ocispec.MediaTypeImageLayer, plainTar)
	lowerTar := tarBytes(t, file("other", "x"), file("package.yaml", body))
	lower := b.push(ocispec.MediaTypeImageLayer, lowerTar)
	upperTar := tarBytes(t, file("a", "1"), file("b", "2"), file("c", "3"))
	upper := b.push(ocispec.MediaTypeImageLayer, upperTar)
	gz := b.gzLayer(file("package.yaml", body))
	zstdTar := tarBytes(t, file("package.yaml", string(bytes.Repeat([]byte("x"), 5000))))
	zst := b.push(ocispec.MediaTypeImageLayerZstd, zstdBytes(t, zstdTar))
	img := b.image(nil, lower, upper)
	var imgM ocispec.Manifest
	rc, _ := b.s.Fetch(ctx, img)
	raw, _ := io.ReadAll(rc)
	mustUnmarshal(t, raw, &imgM)
	// Indexes nested three deep above img: the top-level index of the
	// store counts as one more.
	nested := img
	var idxs []ocispec.Descriptor
	for range 3 {
		nested = b.index(nested)
		idxs = append(idxs, nested)
	}
	b.tag(nested, "")
	archive := tarBytes(t, file("oci-layout", `{"imageLayoutVersion":"1.0.0"}`), file("index.json", `{"schemaVersion":2,"manifests":[]}`), file("x", "1"))

	cases := []boundary{
		{name: "MaxManifestBytes", at: img.Size, digest: img.Digest,
			set: func(l *oci.Limits, v int64) { l.MaxManifestBytes = v },
			run: func(o oci.Option) error { _, err := oci.ResolveDescriptor(ctx, b.s, img, o); return err }},
		{name: "MaxConfigBytes", at: imgM.Config.Size, digest: imgM.Config.Digest,
			set: func(l *oci.Limits, v int64) { l.MaxConfigBytes = v },
			run: func(o oci.Option) error { _, err := oci.ResolveDescriptor(ctx, b.s, img, o); return err }},
		{name: "MaxBlobBytes", at: gz.Size, digest: gz.Digest,
			set: func(l *oci.Limits, v int64) { l.MaxBlobBytes = v },
			run: func(o oci.Option) error { return readAllFile(b.s, []ocispec.Descriptor{gz}, "package.yaml", o) }},
		{name: "MaxLayerBytes", at: int64(len(plainTar)), digest: plain.Digest,
			set: func(l *oci.Limits, v int64) { l.MaxLayerBytes = v },
			run: func(o oci.Option) error { return readAllFile(b.s, []ocispec.Descriptor{plain}, "package.yaml", o) }},
		{name: "MaxLayerBytes", at: int64(len(plainTar)), digest: plain.Digest,
			set: func(l *oci.Limits, v int64) { l.MaxLayerBytes = v },
			run: func(o oci.Option) error {
				return oci.WalkLayer(ctx, b.s, plain, func(_ *tar.Header, r io.Reader) error { _, err := io.Copy(io.Discard, r); return err }, o)
			}},
		{name: "MaxImageBytes", at: int64(len(upperTar) + len(lowerTar)), digest: lower.Digest,
			set: func(l *oci.Limits, v int64) { l.MaxImageBytes = v },
			run: func(o oci.Option) error {
				return readAllFile(b.s, []ocispec.Descriptor{lower, upper}, "package.yaml", o)
			}},
		{name: "MaxFileBytes", at: int64(len(body)), digest: plain.Digest, path: "package.yaml",
			set: func(l *oci.Limits, v int64) { l.MaxFileBytes = v },
			run: func(o oci.Option) error { return readAllFile(b.s, []ocispec.Descriptor{plain}, "package.yaml", o) }},
		{name: "MaxTarEntries", at: 3, digest: upper.Digest, path: "c",
			set: func(l *oci.Limits, v int64) { l.MaxTarEntries = int(v) },
			run: func(o oci.Option) error { return readAllFile(b.s, []ocispec.Descriptor{upper}, "c", o) }},
		{name: "MaxTarEntries", at: 3, digest: upper.Digest,
			set: func(l *oci.Limits, v int64) { l.MaxTarEntries = int(v) },
			run: func(o oci.Option) error {
				return oci.WalkLayer(ctx, b.s, upper, func(*tar.Header, io.Reader) error { return nil }, o)
			}},
		{name: "MaxTarEntries", at: 3,
			set: func(l *oci.Limits, v int64) { l.MaxTarEntries = int(v) },
			run: func(o oci.Option) error {
				l, err := oci.OpenReaderAt(ctx, bytes.NewReader(archive), int64(len(archive)), o)
				if err == nil {
					l.Close()
				}
				return err
			}},
		{name: "MaxLayers", at: 2, digest: img.Digest,
			set: func(l *oci.Limits, v int64) { l.MaxLayers = int(v) },
			run: func(o oci.Option) error { _, err := oci.ResolveDescriptor(ctx, b.s, img, o); return err }},
		{name: "MaxZstdWindow", at: int64(len(zstdTar)), digest: zst.Digest,
			set: func(l *oci.Limits, v int64) { l.MaxZstdWindow = v },
			run: func(o oci.Option) error { return readAllFile(b.s, []ocispec.Descriptor{zst}, "package.yaml", o) }},
		{name: "MaxIndexDepth", at: 4, digest: idxs[0].Digest,
			set: func(l *oci.Limits, v int64) { l.MaxIndexDepth = int(v) },
			run: func(o oci.Option) error { _, err := oci.Resolve(ctx, b.s, o); return err }},
	}
	for _, tc := range cases {
		t.Run(string(tc.name), func(t *testing.T) {
			t.Parallel()
			tc.check(t)
		})
	}
}

func mustUnmarshal(t testing.TB, b []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatal(err)
	}
}

// TestLimitsCovered fails when a field of oci.Limits has no case in
// TestLimitBoundaries (MaxArchiveImages has its own test).
func TestLimitsCovered(t *testing.T) {
	t.Parallel()
	tested := map[string]bool{"MaxManifestBytes": true, "MaxConfigBytes": true, "MaxBlobBytes": true, "MaxLayerBytes": true,
		"MaxImageBytes": true, "MaxFileBytes": true, "MaxTarEntries": true, "MaxLayers": true, "MaxZstdWindow": true,
		"MaxIndexDepth": true, "MaxArchiveImages": true}
	rt := reflect.TypeOf(oci.Limits{})
	for i := range rt.NumField() {
		if !tested[rt.Field(i).Name] {
			t.Errorf("oci.Limits.%s has no boundary test", rt.Field(i).Name)
		}
	}
}
