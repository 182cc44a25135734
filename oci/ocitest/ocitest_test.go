package ocitest_test

import (
	"bytes"
	"context"
	"path"
	"testing"
	"testing/fstest"

	"github.com/xpkgkit/xpkgkit/oci"
	"github.com/xpkgkit/xpkgkit/oci/ocitest"
)

func TestMemoryStore(t *testing.T) {
	t.Parallel()
	ocitest.TestFetcher(t, func(t *testing.T, blobs []ocitest.Blob) oci.Fetcher {
		s := oci.NewMemoryStore()
		for _, b := range blobs {
			if err := s.Push(context.Background(), b.Descriptor, bytes.NewReader(b.Data)); err != nil {
				t.Fatal(err)
			}
		}
		return s
	})
}

func TestLayoutFS(t *testing.T) {
	t.Parallel()
	ocitest.TestFetcher(t, func(t *testing.T, blobs []ocitest.Blob) oci.Fetcher {
		fsys := fstest.MapFS{
			"oci-layout": {Data: []byte(`{"imageLayoutVersion":"1.0.0"}`)},
			"index.json": {Data: []byte(`{"schemaVersion":2,"manifests":[]}`)},
		}
		for _, b := range blobs {
			fsys[path.Join("blobs", b.Descriptor.Digest.Algorithm().String(), b.Descriptor.Digest.Encoded())] = &fstest.MapFile{Data: b.Data}
		}
		l, err := oci.NewLayoutFS(context.Background(), fsys)
		if err != nil {
			t.Fatal(err)
		}
		return l
	})
}
