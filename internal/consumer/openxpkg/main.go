// Command openxpkg is what an embedder writes to read local packages only:
// it opens each .xpkg file given and prints its meta object's name and the
// number of its objects. internal/consumer's test builds it and checks that
// it links no registry code (oras.land/oras-go): package xpkg reaches a
// registry only through a client the caller gives it (xpkg.WithRemote).
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/xpkgkit/xpkgkit/xpkg"
)

func main() {
	for _, source := range os.Args[1:] {
		pkg, err := xpkg.Open(context.Background(), source)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Printf("%s: %s, %d objects\n", pkg.SourceKind, pkg.Meta[0].Name, len(pkg.Objects))
	}
}
