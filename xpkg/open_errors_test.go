package xpkg_test

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/oci"
	"github.com/xpkgkit/xpkgkit/xpkg"
	"github.com/xpkgkit/xpkgkit/xpkg/xpkgtest"
)

// xpkgBytes returns a valid .xpkg file's bytes.
func xpkgBytes(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile(xpkgtest.NewProvider("provider-errors").WithCRD("example.org", "Widget").MustImage(t).XpkgFile(t))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// rewriteTar copies a tar, leaving out the entries drop says so.
func rewriteTar(t *testing.T, in []byte, drop func(name string) bool) []byte {
	t.Helper()
	var out bytes.Buffer
	tw := tar.NewWriter(&out)
	tr := tar.NewReader(bytes.NewReader(in))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if drop(h.Name) {
			continue
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(tw, tr); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// TestOpenErrorClasses checks that a registry can tell a corrupt package
// from content that is no package at all, through Open and OpenReader.
func TestOpenErrorClasses(t *testing.T) {
	t.Parallel()
	full := xpkgBytes(t)
	// manifest.json is the last entry of a .xpkg: cut inside its content.
	inManifest := bytes.LastIndex(full, []byte("manifest.json")) + 512 + 10
	notImage := rewriteTar(t, full, func(name string) bool { return name == "manifest.json" })
	missingLayer := rewriteTar(t, full, func(name string) bool { return strings.HasSuffix(name, ".tar.gz") })
	tests := []struct {
		name      string
		data      []byte
		is        []error
		isNot     []error
		truncated bool
		kind      xpkg.SourceKind // of Open's SourceError
		lacks     string
	}{
		{name: "truncated half way", data: full[:len(full)/2], is: []error{oci.ErrMalformed}, isNot: []error{xpkg.ErrUnknownSource}, truncated: true},
		{name: "truncated near the end", data: full[:inManifest], is: []error{oci.ErrMalformed}, isNot: []error{xpkg.ErrUnknownSource}, truncated: true},
		{name: "truncated inside a header", data: full[:700], is: []error{oci.ErrMalformed}, isNot: []error{xpkg.ErrUnknownSource}, truncated: true},
		{name: "a complete tar that holds no image", data: notImage, is: []error{xpkg.ErrUnknownSource, oci.ErrUnknownFormat}, isNot: []error{oci.ErrMalformed}},
		{name: "a docker archive missing a layer", data: missingLayer, isNot: []error{xpkg.ErrUnknownSource}, kind: xpkg.SourceXpkg, lacks: "oci-layout-tar"},
		{name: "a JPEG", data: []byte("\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"), is: []error{xpkg.ErrUnknownSource}, isNot: []error{oci.ErrMalformed}},
		{name: "empty", data: nil, is: []error{xpkg.ErrEmpty}, isNot: []error{xpkg.ErrUnknownSource, oci.ErrMalformed}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "upload.xpkg")
			if err := os.WriteFile(path, tt.data, 0o644); err != nil {
				t.Fatal(err)
			}
			_, openErr := xpkg.Open(t.Context(), path)
			_, readerErr := xpkg.OpenReader(t.Context(), bytes.NewReader(tt.data), xpkg.WithImagesOnly())
			for form, err := range map[string]error{"Open": openErr, "OpenReader": readerErr} {
				if err == nil {
					t.Fatalf("%s: no error", form)
				}
				var se *xpkg.SourceError
				if !errors.As(err, &se) {
					t.Fatalf("%s: %T is not a *SourceError: %v", form, err, err)
				}
				for _, target := range tt.is {
					if !errors.Is(err, target) {
						t.Errorf("%s: errors.Is(err, %v) = false: %v", form, target, err)
					}
				}
				for _, target := range tt.isNot {
					if errors.Is(err, target) {
						t.Errorf("%s: errors.Is(err, %v) = true: %v", form, target, err)
					}
				}
				var te *xpkg.ImageTruncatedError
				if errors.As(err, &te) != tt.truncated {
					t.Errorf("%s: errors.As(*ImageTruncatedError) = %v, want %v: %v", form, !tt.truncated, tt.truncated, err)
				}
				if tt.lacks != "" && strings.Contains(err.Error(), tt.lacks) {
					t.Errorf("%s: error names %q: %v", form, tt.lacks, err)
				}
			}
			var se *xpkg.SourceError
			if errors.As(openErr, &se) && tt.kind != 0 && se.SourceKind != tt.kind {
				t.Errorf("Open: SourceKind %v, want %v", se.SourceKind, tt.kind)
			}
		})
	}
}

// TestOpenReaderOptions checks WithImagesOnly and WithSpoolDir.
func TestOpenReaderOptions(t *testing.T) {
	t.Parallel()
	yaml := xpkgtest.NewProvider("provider-yaml").YAML()
	if _, err := xpkg.OpenReader(t.Context(), bytes.NewReader(yaml)); err != nil {
		t.Fatalf("YAML without WithImagesOnly: %v", err)
	}
	_, err := xpkg.OpenReader(t.Context(), bytes.NewReader(yaml), xpkg.WithImagesOnly())
	if !errors.Is(err, xpkg.ErrUnknownSource) || !strings.Contains(err.Error(), "WithImagesOnly") {
		t.Errorf("YAML with WithImagesOnly: err = %v, want ErrUnknownSource naming WithImagesOnly", err)
	}

	dir := t.TempDir()
	p, err := xpkg.OpenReader(t.Context(), bytes.NewReader(xpkgBytes(t)), xpkg.WithImagesOnly(), xpkg.WithSpoolDir(dir))
	if err != nil || p.Image == nil {
		t.Fatalf("image with WithSpoolDir: %v", err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("the spool directory keeps %d entries", len(left))
	}
	_, err = xpkg.OpenReader(t.Context(), bytes.NewReader(xpkgBytes(t)), xpkg.WithSpoolDir(filepath.Join(dir, "missing")))
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing spool directory: err = %v, want os.ErrNotExist", err)
	}
}

// TestOpenNilArguments checks that nil arguments are errors, not panics.
func TestOpenNilArguments(t *testing.T) {
	t.Parallel()
	var nilCtx context.Context
	checks := map[string]func() error{
		"Open nil context":       func() error { _, err := xpkg.Open(nilCtx, "x"); return err },
		"OpenReader nil context": func() error { _, err := xpkg.OpenReader(nilCtx, strings.NewReader("x")); return err },
		"OpenReader nil reader":  func() error { _, err := xpkg.OpenReader(t.Context(), nil); return err },
		"OpenImage nil context":  func() error { _, err := xpkg.OpenImage(nilCtx, nil, nil); return err },
		"OpenImage nil image":    func() error { _, err := xpkg.OpenImage(t.Context(), nil, nil); return err },
	}
	for name, f := range checks {
		if err := f(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
