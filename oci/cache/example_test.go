package cache_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	digest "github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/xpkgkit/xpkgkit/oci/cache"
)

// Store a blob verified, read it back verified, and record a tag.
func Example() {
	dir, _ := os.MkdirTemp("", "xpkgkit-cache")
	defer os.RemoveAll(dir)
	c, err := cache.Open(dir, cache.WithMaxBytes(64<<20))
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	data := `{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json"}`
	desc := ocispec.Descriptor{MediaType: ocispec.MediaTypeImageManifest, Digest: digest.FromString(data), Size: int64(len(data))}
	if err := c.Put(ctx, desc, strings.NewReader(data)); err != nil {
		fmt.Println(err)
		return
	}
	rc, err := c.Fetch(ctx, desc)
	if err != nil {
		fmt.Println(err)
		return
	}
	b, err := io.ReadAll(rc)
	rc.Close()
	fmt.Println(len(b), err)

	_ = c.Tag(ctx, "xpkg.example.org/org/pkg:v1", desc)
	got, fresh, err := c.LookupTag(ctx, "xpkg.example.org/org/pkg:v1")
	fmt.Println(got.Digest == desc.Digest, fresh, err)
	// Output:
	// 76 <nil>
	// true true <nil>
}
