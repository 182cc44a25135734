package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"

	"github.com/xpkgkit/xpkgkit/lintcmd/lsp"
)

// memoryLimit is the soft limit of Go's collector, xpkg-lint's.
const memoryLimit = 192 << 20

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is the program: it serves the client on stdin and stdout and
// returns the exit code (1 when the client exits without shutdown, or the
// stream breaks).
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	for _, a := range args {
		switch a {
		case "--version", "-version":
			v := "devel"
			if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
				v = bi.Main.Version
			}
			fmt.Fprintln(stdout, "xpkg-lsp", v)
			return 0
		case "--stdio":
			// What several clients pass; stdio is the only transport.
		default:
			fmt.Fprintf(stderr, "xpkg-lsp: unknown argument %q (usage: xpkg-lsp [--stdio] [--version])\n", a)
			return 2
		}
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	err := lsp.New().Serve(ctx, stdin, stdout)
	if err != nil && !errors.Is(err, io.EOF) {
		fmt.Fprintln(stderr, "xpkg-lsp:", err)
		return 1
	}
	return 0
}
