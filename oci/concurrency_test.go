package oci_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/xpkgkit/xpkgkit/internal/testcorpus"
	"github.com/xpkgkit/xpkgkit/oci"
)

// TestConcurrentReads reads one opened Source from many goroutines at once.
func TestConcurrentReads(t *testing.T) {
	t.Parallel()
	for _, ext := range []string{".xpkg", ".oci"} {
		t.Run(ext, func(t *testing.T) {
			t.Parallel()
			want := openCorpus(t, testcorpus.Path(t, "provider-kubernetes"+ext), map[string]oci.Format{".xpkg": oci.FormatDockerArchive, ".oci": oci.FormatLayoutDir}[ext])
			var wg sync.WaitGroup
			for range 8 {
				wg.Go(func() {
					img, err := oci.Resolve(context.Background(), want.src)
					if err != nil {
						t.Error(err)
						return
					}
					f, err := oci.ReadFile(context.Background(), want.src, img.Manifest.Layers, "package.yaml")
					if err != nil {
						t.Error(err)
						return
					}
					if got, _ := digestFile(t, f); got != want.content {
						t.Errorf("concurrent read: %s, want %s", got, want.content)
					}
				})
			}
			wg.Wait()
		})
	}
}

// TestCanceledContext: a canceled context stops a read with its error.
func TestCanceledContext(t *testing.T) {
	t.Parallel()
	ci := openCorpus(t, testcorpus.Path(t, "provider-helm.xpkg"), oci.FormatDockerArchive)
	ctx, cancel := context.WithCancel(context.Background())
	f, err := oci.ReadLayerFile(ctx, ci.src, ci.base, "package.yaml")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 100)
	if _, err := f.Read(buf); err != nil {
		t.Fatal(err)
	}
	cancel()
	for err == nil {
		_, err = f.Read(buf)
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
	_, err = oci.Resolve(ctx, ci.src)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Resolve: error %v, want context.Canceled", err)
	}
}
