// Command gen writes the small cases of the hostile corpus as seed files.
//
//	go run ./internal/hostile/cmd/gen -o xpkg/testdata/hostile
//
// It is run by go generate in package hostile.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/xpkgkit/xpkgkit/internal/hostile"
)

func main() {
	out := flag.String("o", "testdata/hostile", "directory to write the seeds into")
	flag.Parse()
	paths, err := hostile.WriteSeeds(context.Background(), *out)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	fmt.Printf("gen: wrote %d seeds to %s\n", len(paths)-1, *out)
}
