// Command apidump prints the exported API of the module's public packages,
// one line per exported name (see package apicheck). Run it from the
// module root:
//
//	go run ./internal/apicheck/cmd/apidump > api/xpkgkit.txt
package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/xpkgkit/xpkgkit/internal/apicheck"
)

func main() {
	root := "."
	if len(os.Args) > 1 {
		root = os.Args[1]
	}
	lines, err := apicheck.Dump(root)
	if err != nil {
		fmt.Fprintf(os.Stderr, "apidump: %v\n", err)
		os.Exit(1)
	}
	fmt.Print(strings.Join(lines, "\n") + "\n")
}
