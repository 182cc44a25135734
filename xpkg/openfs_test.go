package xpkg_test

import (
	"context"
	"os"
	"testing"
	"testing/fstest"

	"github.com/xpkgkit/xpkgkit/xpkg"
)

// TestOpenFS reads a package directory through an fs.FS as Open reads it
// from disk, and an overlay's content wins.
func TestOpenFS(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := "testdata/build/provider-example"
	want, err := xpkg.Open(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	got, err := xpkg.OpenFS(ctx, os.DirFS(root), root)
	if err != nil {
		t.Fatal(err)
	}
	if got.SourceKind != xpkg.SourceDirectory || got.Root != root || got.Source != root {
		t.Errorf("kind %v root %q source %q", got.SourceKind, got.Root, got.Source)
	}
	if len(got.Objects) != len(want.Objects) || len(got.Meta) != len(want.Meta) || (got.Examples == nil) != (want.Examples == nil) {
		t.Errorf("OpenFS: %d meta, %d objects, examples %v; Open: %d, %d, %v",
			len(got.Meta), len(got.Objects), got.Examples != nil, len(want.Meta), len(want.Objects), want.Examples != nil)
	}

	over := fstest.MapFS{"crossplane.yaml": {Data: []byte("apiVersion: meta.pkg.crossplane.io/v1\nkind: Provider\nmetadata:\n  name: [\n")}}
	got, err = xpkg.OpenFS(ctx, over, "p", xpkg.WithSourceName("edited"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Errors) != 1 || got.Source != "edited" {
		t.Errorf("overlay: %d document errors, source %q; want 1, edited", len(got.Errors), got.Source)
	}

	if _, err := xpkg.OpenFS(ctx, nil, "p"); err == nil {
		t.Error("nil fs.FS: no error")
	}
}
