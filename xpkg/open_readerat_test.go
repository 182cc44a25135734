package xpkg_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/limit"
	"github.com/xpkgkit/xpkgkit/xpkg"
)

// TestOpenReaderAt: an upload held in memory opens in one call, an image
// read in place or a YAML stream, with what Open finds in the same bytes
// (issue 34, item 9).
func TestOpenReaderAt(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	const file = "../oci/testdata/configuration.xpkg"
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	yaml := "apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata:\n  name: c\n"
	for _, tc := range []struct {
		name  string
		data  []byte
		image bool
	}{
		{"xpkg", data, true},
		{"yaml", []byte(yaml), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, err := xpkg.OpenReaderAt(ctx, bytes.NewReader(tc.data), int64(len(tc.data)), xpkg.WithSourceName("upload"))
			if err != nil {
				t.Fatal(err)
			}
			if p.SourceKind != xpkg.SourceReader || p.Source != "upload" || (p.Image != nil) != tc.image {
				t.Errorf("SourceKind %v, Source %q, image %v; want reader, upload, %v", p.SourceKind, p.Source, p.Image != nil, tc.image)
			}
			want, err := xpkg.OpenReader(ctx, bytes.NewReader(tc.data))
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Meta) != 1 || len(p.Objects) != len(want.Objects) {
				t.Errorf("%d meta objects and %d objects, OpenReader finds %d and %d", len(p.Meta), len(p.Objects), len(want.Meta), len(want.Objects))
			}
		})
	}
	if _, err := xpkg.OpenReaderAt(ctx, strings.NewReader(""), 0); !errors.Is(err, xpkg.ErrEmpty) {
		t.Errorf("empty: %v, want ErrEmpty", err)
	}
	var l xpkg.Limits
	l.MaxReaderBytes = 100
	if _, err := xpkg.OpenReaderAt(ctx, bytes.NewReader(data), int64(len(data)), xpkg.WithLimits(l)); !errors.Is(err, limit.ErrExceeded) {
		t.Errorf("over MaxReaderBytes: %v, want limit.ErrExceeded", err)
	}
	if _, err := xpkg.OpenReaderAt(ctx, bytes.NewReader(data[:len(data)/2]), int64(len(data)/2)); err == nil {
		t.Error("a truncated image opened")
	}
}

func ExampleOpenReaderAt() {
	upload := []byte("apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata:\n  name: example\n")
	p, err := xpkg.OpenReaderAt(context.Background(), bytes.NewReader(upload), int64(len(upload)), xpkg.WithSourceName("upload.yaml"))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.SourceKind, p.Meta[0].ObjectMeta.Name)
	// Output: reader example
}
