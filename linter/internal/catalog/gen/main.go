// Command gen writes linter/RULES.md, the catalog of the built-in rules.
//
//	go run ./internal/catalog/gen -o RULES.md   (from the linter directory)
package main

import (
	"flag"
	"log"
	"os"

	"github.com/xpkgkit/xpkgkit/linter/internal/catalog"
)

func main() {
	out := flag.String("o", "RULES.md", "file to write")
	flag.Parse()
	md := append(catalog.Markdown(catalog.Rules()), '\n')
	if err := os.WriteFile(*out, md, 0o644); err != nil {
		log.Fatal(err)
	}
}
