package cache_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/xpkgkit/xpkgkit/oci/cache"
)

// manifestBlob is a small manifest blob, distinct for each i.
func manifestBlob(i int) (ocispec.Descriptor, []byte) {
	d, b := blob(fmt.Sprintf(`{"schemaVersion":2,"n":%d}`, i))
	d.MediaType = ocispec.MediaTypeImageManifest
	return d, b
}

// BenchmarkTag resolves one more tag into a cache that already holds n
// references: the cost per tag must not grow with n (it did: every tag
// rewrote index.json whole).
func BenchmarkTag(b *testing.B) {
	for _, n := range []int{100, 5_000} {
		b.Run(fmt.Sprintf("index=%d", n), func(b *testing.B) {
			c, err := cache.Open(b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			ctx := context.Background()
			d, raw := manifestBlob(0)
			if err := c.Put(ctx, d, bytes.NewReader(raw)); err != nil {
				b.Fatal(err)
			}
			for i := range n {
				c.Tag(ctx, fmt.Sprintf("r.example/o/p%d:v1", i), d)
			}
			i := 0
			for b.Loop() {
				// The references of the index again, in turn: the index
				// stays at n entries.
				ref := fmt.Sprintf("r.example/o/p%d:v1", i%n)
				if err := c.Tag(ctx, ref, d); err != nil {
					b.Fatal(err)
				}
				if _, _, err := c.LookupTag(ctx, ref); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}
