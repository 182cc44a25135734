package remote_test

import (
	"context"
	"fmt"

	"github.com/xpkgkit/xpkgkit/oci"
	"github.com/xpkgkit/xpkgkit/oci/cache"
	"github.com/xpkgkit/xpkgkit/oci/remote"
)

// Pull an image's manifest and config, then read package.yaml from its
// base layer alone, through the shared cache. (Not run: it needs a
// registry.)
func ExampleClient_Pull() {
	ctx := context.Background()
	dir, _ := cache.DefaultDir()
	cc, err := cache.Open(dir)
	if err != nil {
		fmt.Println(err)
		return
	}
	c, _ := remote.New(remote.WithCache(cc))
	img, repo, err := c.Pull(ctx, "xpkg.crossplane.io/crossplane-contrib/provider-nop:v0.4.0")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, l := range img.Manifest.Layers {
		if l.Annotations["io.crossplane.xpkg"] == "base" {
			f, err := oci.ReadLayerFile(ctx, repo, l, "package.yaml")
			if err != nil {
				fmt.Println(err)
				return
			}
			defer f.Close()
			// parse f
		}
	}
	tags, _ := c.Tags(ctx, "xpkg.crossplane.io/crossplane-contrib/provider-nop")
	fmt.Println(tags)
}
