package lintcmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/xpkgkit/xpkgkit/internal/safetext"
	"github.com/xpkgkit/xpkgkit/lintcmd/internal/report"
	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/linter/changerules"
	"github.com/xpkgkit/xpkgkit/linter/graphrules"
	"github.com/xpkgkit/xpkgkit/linter/rules"
)

// Exit codes of a checker.
const (
	// ExitOK means no finding is at or above --fail-on (new findings only,
	// with a baseline).
	ExitOK = 0
	// ExitFindings means a finding is at or above --fail-on.
	ExitFindings = 1
	// ExitError means bad flags or configuration, or a source (or, with
	// --deps, a dependency) that cannot be read or linted.
	ExitError = 2
)

// memoryLimit is the soft limit Main gives Go's garbage collector
// unless GOMEMLIMIT is set: the README promises a peak RSS under 256 MiB on
// any input, and without a limit the collector lets the heap grow to twice
// what is live before it runs. Real packages stay far below it (the 102 MB
// monolith peaks at about 100 MiB RSS), so it costs them nothing. 208 MiB
// leaves 48 MiB for what is not heap (the binary's own pages are 28-37 MB
// of its RSS): at 192 MiB the collector ran without pause on a live heap
// near the limit (gateway-xrd-8mb-five, whose five 8 MB XRDs the design
// rules, XP421 and XP422 each read: 11.8 s of CPU at 192 MiB, 8.2 s at
// 208 MiB, peak RSS 227 and 242 MiB).
const memoryLimit = 208 << 20

// Checker is a lint program: the command line of xpkg-lint (every source
// kind, output format, exit code, --explain, --list-rules, configuration,
// baselines and fixes) over a rule set. Build it with New; it is safe for
// concurrent use by several Run calls.
type Checker struct {
	checkerConfig
}

// checkerConfig is what the options of New set.
type checkerConfig struct {
	name    string
	rules   []*linter.Rule // the caller's rules
	builtin bool           // the built-in rules run too
	version string         // "" : from the build info

	newVerifier func(VerifyOptions) (Verifier, error) // verify.go: WithVerifier
}

// Option configures a Checker.
type Option func(*checkerConfig)

// WithRules adds rules to the checker's rule set: they run beside the
// built-in rules (unless WithoutBuiltin), are listed by --list-rules,
// explained by --explain, and may be disabled, regraded and baselined like
// any other.
func WithRules(rules ...*linter.Rule) Option {
	return func(c *checkerConfig) {
		for _, r := range rules {
			if r != nil {
				c.rules = append(c.rules, r)
			}
		}
	}
}

// WithoutBuiltin leaves out rules.Builtin: only the rules given with
// WithRules run (and, with --deps, the dependency graph's rules).
func WithoutBuiltin() Option {
	return func(c *checkerConfig) { c.builtin = false }
}

// WithName sets the program name used in usage, messages and SARIF's tool
// name; the default is the base name of os.Args[0].
func WithName(name string) Option {
	return func(c *checkerConfig) {
		if name = strings.TrimSpace(name); name != "" {
			c.name = name
		}
	}
}

// WithVersion sets what --version prints and SARIF records as the tool's
// version; the default is the main module's version from the build info
// (runtime/debug.ReadBuildInfo), "devel" for a build from a checkout.
func WithVersion(v string) Option {
	return func(c *checkerConfig) { c.version = strings.TrimSpace(v) }
}

// New returns a checker with the built-in rules and the options applied.
func New(opts ...Option) *Checker {
	c := &Checker{checkerConfig{name: programName(), builtin: true}}
	for _, o := range opts {
		if o != nil {
			o(&c.checkerConfig)
		}
	}
	return c
}

// Main runs a checker with the built-in rules and rules over the command
// line, honours SIGINT, and exits with the checker's exit code. It is the
// whole main function of a lint program:
//
//	func main() { lintcmd.Main(myRule()) }
func Main(rules ...*linter.Rule) {
	New(WithRules(rules...)).Main()
}

// Main runs c over os.Args, standard input and output, honouring SIGINT
// and giving Go's collector a soft memory limit (unless GOMEMLIMIT is set),
// and exits with its exit code.
//
// A SIGINT cancels the run's context; every step looks at it, but a step
// inside code xpkgkit does not own (one YAML decode of a document of
// megabytes, one call into the API server's code) does not, and may run
// on for seconds. So the program, not each step, bounds its answer to a
// SIGINT: when the run has not returned interruptGrace after it, Main
// says so on stderr and exits with ExitError. Files are written by rename
// of a complete temporary file (internal/safefile), so an exit at any
// point leaves each one whole, old or new.
func (c *Checker) Main() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	go func() {
		<-ctx.Done()
		time.Sleep(interruptGrace)
		fmt.Fprintf(os.Stderr, "%s: interrupted\n", c.name)
		os.Exit(ExitError)
	}()
	code := c.Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// interruptGrace is how long Main lets a run interrupted by SIGINT wind
// down before it exits on its own: within the hostile budget's 1 s of a
// SIGINT, with room for the process to end.
const interruptGrace = 600 * time.Millisecond

// Run is the whole program: it parses args, lints the sources, writes the
// report to stdout and one line per problem of its own to stderr, and
// returns the exit code (ExitOK, ExitFindings or ExitError).
func (c *Checker) Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return c.runWith(ctx, xpkgLoader{}, args, stdin, stdout, stderr)
}

// programName is the base name of the running program.
func programName() string {
	if len(os.Args) > 0 && os.Args[0] != "" {
		name := strings.TrimSuffix(filepath.Base(os.Args[0]), ".exe")
		if name != "" && name != "." && !strings.HasSuffix(name, ".test") {
			return name
		}
	}
	return "xpkg-lint"
}

// builtinChecker is xpkg-lint's checker: the built-in rules, named
// xpkg-lint (the package's tests run it).
var builtinChecker = New(WithName("xpkg-lint"))

// run is Run of the built-in checker.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return builtinChecker.Run(ctx, args, stdin, stdout, stderr)
}

// runWith is run with the loader given.
func runWith(ctx context.Context, l loader, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return builtinChecker.runWith(ctx, l, args, stdin, stdout, stderr)
}

// runWith is Run with the loader given.
func (ck *Checker) runWith(ctx context.Context, l loader, args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	// Every message on stderr goes through the one escaping point
	// (safetext): each write is one line, escaped, so neither a value (an
	// error's text, a registry's answer, a path) nor a future message can
	// write a terminal escape or a line of its own.
	stderr = safetext.NewLineWriter(stderr)
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "%s: internal error: %v\n", ck.name, r)
			code = ExitError
		}
	}()
	c, err := ck.parseArgs(ctx, args)
	if errors.Is(err, errUsage) {
		fmt.Fprint(stdout, ck.usage())
		return ExitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v (see %s --help)\n", ck.name, err, ck.name)
		return ExitError
	}
	if c.xpNote != "" && c.explain == "" && !c.listRules && !c.version {
		fmt.Fprintf(stderr, "%s: note: %s\n", ck.name, c.xpNote)
	}
	if c.verifier != nil && c.explain == "" && !c.listRules && !c.version {
		for _, note := range localVerifyNotes(c) {
			fmt.Fprintf(stderr, "%s: note: %s\n", ck.name, note)
		}
	}
	switch {
	case c.version:
		_, err := fmt.Fprintf(stdout, "%s %s\n", ck.name, ck.toolVersion())
		return ck.done(stderr, err)
	case c.explain != "":
		return ck.done(stderr, ck.explain(stdout, c.explain))
	case c.listRules:
		return ck.done(stderr, ck.listRules(stdout, c.format))
	}

	// The configuration files of every source, and the baseline, are
	// read before anything is linted or written (files.go).
	bl, err := ck.prepare(ctx, c)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", ck.name, err)
		return ExitError
	}
	defer openVerdicts(c)()
	if c.diff {
		return ck.fixAll(ctx, c, l, stdin, stdout, stderr)
	}
	if c.fix {
		if code := ck.fixAll(ctx, c, l, stdin, io.Discard, stderr); code != ExitOK {
			return code
		}
	}
	w, err := report.New(c.format, stdout, report.Options{
		Baseline:    bl != nil,
		Color:       c.format == report.FormatText && useColor(stdout),
		Rules:       ck.allRules(),
		Disabled:    c.disabled,
		Severities:  c.severities,
		ToolVersion: ck.toolVersion(),
		ToolName:    ck.name,
		MinSeverity: c.minSeverity,
	})
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", ck.name, err)
		return ExitError
	}
	code = ExitOK
	var writeErr error
	lintAll(ctx, c, l, stdin, func(o outcome) {
		s := o.src
		if s.Err != nil {
			line := errorLine(s.Name, s.Err)
			fmt.Fprintf(stderr, "%s: %s: %s\n", ck.name, s.Name, line)
			// The report (SARIF) shows the same line.
			s.Err = errors.New(line)
			code = ExitError
		}
		if bl != nil {
			bl.apply(s)
		}
		if len(o.unchecked) > 0 {
			s.Diagnostics = append(s.Diagnostics, o.unchecked...)
			linter.SortDiagnostics(s.Diagnostics)
			code = ExitError
		}
		for _, n := range o.notes {
			fmt.Fprintf(stderr, "%s: %s: note: %s\n", ck.name, s.Name, n)
		}
		for _, f := range o.failures {
			fmt.Fprintf(stderr, "%s: %s: %s\n", ck.name, s.Name, errorLine(s.Name, f))
			code = ExitError
		}
		if code == ExitOK && atOrAbove(s.Diagnostics, o.failOn) {
			code = ExitFindings
		}
		if err := w.Source(s); err != nil && writeErr == nil {
			writeErr = err
		}
		if o.tree != "" {
			if _, err := io.WriteString(stdout, safetext.EscapeLines(o.tree)); err != nil && writeErr == nil {
				writeErr = err
			}
		}
	})
	stale := 0
	if bl != nil {
		stale = bl.stale()
	}
	if err := w.Close(stale); err != nil && writeErr == nil {
		writeErr = err
	}
	if bl != nil && bl.write {
		if err := bl.save(ctx, ck.name); err != nil {
			fmt.Fprintf(stderr, "%s: baseline: %v\n", ck.name, err)
			return ExitError
		}
		n := 0
		for _, e := range bl.written {
			n += e.Count
		}
		fmt.Fprintf(stderr, "%s: wrote the baseline %s (%d findings)\n", ck.name, bl.path, n)
	}
	if writeErr != nil {
		fmt.Fprintf(stderr, "%s: writing the report: %v\n", ck.name, writeErr)
		return ExitError
	}
	return code
}

// done returns the exit code of a command that wrote to stdout, telling why
// on stderr when the write failed.
func (ck *Checker) done(stderr io.Writer, err error) int {
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", ck.name, err)
		return ExitError
	}
	return ExitOK
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

// toolVersion returns the version --version prints and SARIF gives the
// driver: WithVersion's, else the main module's version from the build
// info, else the version of this module when the program is another
// module that depends on it, else "devel".
func (ck *Checker) toolVersion() string {
	if ck.version != "" {
		return ck.version
	}
	return buildVersion(debug.ReadBuildInfo())
}

// buildVersion returns the version of the build info.
func buildVersion(bi *debug.BuildInfo, ok bool) string {
	if !ok || bi == nil {
		return "devel"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	for _, d := range bi.Deps {
		if d.Path == modulePath && d.Version != "" && d.Version != "(devel)" {
			// Another module's program: the xpkgkit it was built with.
			return "devel (xpkgkit " + d.Version + ")"
		}
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			return "devel+" + s.Value[:12]
		}
	}
	return "devel"
}

// modulePath is the path of xpkgkit's module.
const modulePath = "github.com/xpkgkit/xpkgkit"

// allRules returns every rule the checker knows: the package rules
// (packageRules), the dependency graph's, and the API change rules.
func (ck *Checker) allRules() []*linter.Rule {
	all := append(ck.packageRules(), graphrules.Rules()...)
	return append(all, changerules.Rules()...) // against.go
}

// packageRules returns the package rules the checker runs: the built-in
// rules (unless left out) and the caller's.
func (ck *Checker) packageRules() []*linter.Rule {
	var all []*linter.Rule
	if ck.builtin {
		all = append(all, rules.Builtin()...)
		all = append(all, apiserverRules()...) // apiserver.go
	}
	return append(all, ck.rules...)
}

// lookupRule returns the rule of allRules named by ID or name, nil if none.
func (ck *Checker) lookupRule(idOrName string) *linter.Rule {
	idOrName = strings.TrimSpace(idOrName)
	for _, r := range ck.allRules() {
		if r.Matches(idOrName) {
			return r
		}
	}
	// XP000 and XP510: no rules, but findings of the checker's own.
	for _, r := range []*linter.Rule{report.UnreadableRule(), report.SignatureRule()} {
		if r.Matches(idOrName) {
			return r
		}
	}
	return nil
}

// allRules is the built-in checker's.
func allRules() []*linter.Rule { return builtinChecker.allRules() }

// usage returns the --help text with the program's name.
func (ck *Checker) usage() string {
	if ck.name == "xpkg-lint" {
		return usageText
	}
	return strings.ReplaceAll(usageText, "xpkg-lint", ck.name)
}
