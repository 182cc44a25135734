package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"

	"github.com/xpkgkit/xpkgkit/examples/xpkg-lint/internal/report"
	"github.com/xpkgkit/xpkgkit/linter"
)

// Exit codes.
const (
	exitOK       = 0 // nothing at or above --fail-on
	exitProblems = 1 // a diagnostic at or above --fail-on
	exitError    = 2 // bad flags, or a source that cannot be read or linted
)

// memoryLimit is the soft limit the CLI gives Go's garbage collector
// unless GOMEMLIMIT is set: the README promises a peak RSS under 256 MiB on
// any input, and without a limit the collector lets the heap grow to twice
// what is live before it runs. Real packages stay far below it (the 102 MB
// monolith peaks at about 100 MiB RSS), so it costs them nothing.
const memoryLimit = 192 << 20

func main() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is the whole program: it parses args, lints the sources, writes the
// report to stdout and one line per problem of its own to stderr, and
// returns the exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	return runWith(ctx, xpkgLoader{}, args, stdin, stdout, stderr)
}

// runWith is run with the loader given.
func runWith(ctx context.Context, l loader, args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "xpkg-lint: internal error: %v\n", r)
			code = exitError
		}
	}()
	c, err := parseArgs(args)
	if errors.Is(err, errUsage) {
		fmt.Fprint(stdout, usageText)
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "xpkg-lint: %v (see xpkg-lint --help)\n", err)
		return exitError
	}
	if c.xpNote != "" && c.explain == "" && !c.listRules {
		fmt.Fprintf(stderr, "xpkg-lint: note: %s\n", c.xpNote)
	}
	switch {
	case c.explain != "":
		return done(stderr, explain(stdout, c.explain))
	case c.listRules:
		return done(stderr, listRules(stdout, c.format))
	}

	w, err := report.New(c.format, stdout, report.Options{
		Color:       c.format == report.FormatText && useColor(stdout),
		Rules:       allRules(),
		Disabled:    c.disabled,
		Severities:  c.severities,
		ToolVersion: toolVersion(),
	})
	if err != nil {
		fmt.Fprintf(stderr, "xpkg-lint: %v\n", err)
		return exitError
	}
	code = exitOK
	var writeErr error
	lintAll(ctx, c, l, stdin, func(o outcome) {
		s := o.src
		if s.Err != nil {
			line := errorLine(s.Name, s.Err)
			fmt.Fprintf(stderr, "xpkg-lint: %s: %s\n", s.Name, line)
			// The report (SARIF) shows the same line.
			s.Err = errors.New(line)
			code = exitError
		}
		for _, f := range o.failures {
			fmt.Fprintf(stderr, "xpkg-lint: %s: %s\n", s.Name, errorLine(s.Name, f))
			code = exitError
		}
		if code == exitOK && atOrAbove(s.Diagnostics, c.failOn) {
			code = exitProblems
		}
		if err := w.Source(s); err != nil && writeErr == nil {
			writeErr = err
		}
		if o.tree != "" {
			if _, err := io.WriteString(stdout, o.tree); err != nil && writeErr == nil {
				writeErr = err
			}
		}
	})
	if err := w.Close(); err != nil && writeErr == nil {
		writeErr = err
	}
	if writeErr != nil {
		fmt.Fprintf(stderr, "xpkg-lint: writing the report: %v\n", writeErr)
		return exitError
	}
	return code
}

// done returns the exit code of a command that wrote to stdout, telling why
// on stderr when the write failed.
func done(stderr io.Writer, err error) int {
	if err != nil {
		fmt.Fprintf(stderr, "xpkg-lint: %v\n", err)
		return exitError
	}
	return exitOK
}

// atOrAbove reports whether a diagnostic of ds is at least min.
func atOrAbove(ds []linter.Diagnostic, min linter.Severity) bool {
	for _, d := range ds {
		if d.Severity >= min {
			return true
		}
	}
	return false
}

// useColor reports whether w is a terminal that colour may be written to:
// a character device, with NO_COLOR unset and TERM not "dumb".
func useColor(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok || os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// toolVersion returns the version SARIF gives the driver: the module
// version the program was built from, "devel" for a build from a checkout.
func toolVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}
