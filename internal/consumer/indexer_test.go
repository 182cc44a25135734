package consumer_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"testing"

	"github.com/xpkgkit/xpkgkit/limit"
	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/linter/rules"
	"github.com/xpkgkit/xpkgkit/oci"
	"github.com/xpkgkit/xpkgkit/xpkg"
	"github.com/xpkgkit/xpkgkit/xpkg/xpkgtest"
)

// verdict is what a registry decides about one upload.
type verdict string

const (
	accepted   verdict = "accepted"
	refused    verdict = "refused: lint errors"
	corrupt    verdict = "corrupt package"
	notPackage verdict = "not a package"
	empty      verdict = "empty upload"
	tooLarge   verdict = "over a limit"
)

// index is a registry indexer: it reads an upload from a reader, images
// only, under tight limits, and returns a verdict and the diagnostics.
func index(ctx context.Context, upload io.Reader, spool string) (verdict, []linter.Diagnostic, error) {
	limits := xpkg.Limits{MaxReaderBytes: 64 << 20}
	limits.OCI.MaxLayerBytes = 64 << 20
	limits.Parser.MaxDocuments = 10_000
	pkg, err := xpkg.OpenReader(ctx, upload,
		xpkg.WithImagesOnly(), xpkg.WithSpoolDir(spool), xpkg.WithLimits(limits))
	switch {
	case errors.Is(err, xpkg.ErrEmpty):
		return empty, nil, nil
	case errors.Is(err, limit.ErrExceeded):
		return tooLarge, nil, nil
	case errors.Is(err, oci.ErrMalformed):
		return corrupt, nil, nil
	case errors.Is(err, xpkg.ErrUnknownSource):
		return notPackage, nil, nil
	case err != nil:
		return "", nil, err
	}
	res, err := rules.LintPackage(ctx, pkg)
	if err != nil {
		return "", nil, err
	}
	if res.AtOrAbove(linter.SeverityError) {
		return refused, res.Diagnostics, nil
	}
	return accepted, res.Diagnostics, nil
}

func TestIndexer(t *testing.T) {
	t.Parallel()
	image := func(p *xpkgtest.Package) []byte {
		b, err := os.ReadFile(p.MustImage(t).XpkgFile(t))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	good := image(xpkgtest.NewProvider("provider-good").WithCRD("example.org", "Widget"))
	bad := image(xpkgtest.NewProvider("provider-bad").WithObject([]byte("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n")))
	tests := []struct {
		name   string
		upload []byte
		want   verdict
	}{
		{"a valid package", good, accepted},
		{"a package Crossplane refuses", bad, refused},
		{"a truncated upload", good[:len(good)/2], corrupt},
		{"a JPEG", []byte("\xff\xd8\xff\xe0\x00\x10JFIF\x00"), notPackage},
		{"YAML, not an image", xpkgtest.NewProvider("provider-yaml").YAML(), notPackage},
		{"nothing", nil, empty},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, diags, err := index(t.Context(), bytes.NewReader(tt.upload), t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("verdict %q, want %q; diagnostics %v", got, tt.want, diags)
			}
		})
	}
}
