package lintcmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/xpkgkit/xpkgkit/internal/celskip"

	"golang.org/x/sync/errgroup"

	"github.com/xpkgkit/xpkgkit/lintcmd/internal/report"
	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/linter/changerules"
	"github.com/xpkgkit/xpkgkit/linter/graphrules"
	"github.com/xpkgkit/xpkgkit/linter/rules"
	"github.com/xpkgkit/xpkgkit/parser"
	"github.com/xpkgkit/xpkgkit/xpkg"
)

// stdinSource is the SOURCE that stands for standard input.
const stdinSource = "-"

// outcome is what linting one source gave.
type outcome struct {
	// src is the report's view: the diagnostics, or why the source could
	// not be read.
	src *report.Source
	// failures are rules that broke while linting the source; their
	// diagnostics are incomplete.
	failures []error
	// tree is the dependency graph drawn for the text format (--deps).
	tree string
	// unchecked are the checks of a readable source that could not run
	// (--deps, --against): each an XP000 finding (report.UnreadableRuleID)
	// beside the package's own findings, added after the baseline is
	// applied (it never holds them), and exit status 2.
	unchecked []linter.Diagnostic
	// failOn is the least severity that fails the run for this source:
	// --fail-on, else the configuration's fail-on.
	failOn linter.Severity
	// notes are lines for stderr ("no API changes").
	notes []string
	// root is the package's directory for a package directory or a
	// package.yaml file: --fix writes only within it.
	root string
}

// loader opens a source. It is xpkg.Open and xpkg.OpenReader in the
// program; tests replace it to reach paths real packages cannot (a panic).
type loader interface {
	open(ctx context.Context, source string, opts ...xpkg.Option) (*xpkg.Package, error)
	openReader(ctx context.Context, r io.Reader, opts ...xpkg.Option) (*xpkg.Package, error)
}

// xpkgLoader is the loader of the program.
type xpkgLoader struct{}

func (xpkgLoader) open(ctx context.Context, source string, opts ...xpkg.Option) (*xpkg.Package, error) {
	return xpkg.Open(ctx, source, opts...)
}

func (xpkgLoader) openReader(ctx context.Context, r io.Reader, opts ...xpkg.Option) (*xpkg.Package, error) {
	return xpkg.OpenReader(ctx, r, opts...)
}

// lintAll lints every source, at most c.jobs at once, and calls emit with
// each outcome in the order of c.sources, as soon as it and those before it
// are done.
func lintAll(ctx context.Context, c *config, l loader, stdin io.Reader, emit func(outcome)) {
	n := len(c.sources)
	outcomes := make([]outcome, n)
	done := make([]chan struct{}, n)
	for i := range done {
		done[i] = make(chan struct{})
	}
	go func() {
		var g errgroup.Group
		g.SetLimit(max(c.jobs, 1))
		for i, source := range c.sources {
			g.Go(func() error {
				defer close(done[i])
				if err := ctx.Err(); err != nil {
					outcomes[i] = outcome{src: unreadable(source, err), failOn: c.failOn}
					return nil
				}
				outcomes[i] = lintSafely(ctx, c, l, source, stdin)
				return nil
			})
		}
		_ = g.Wait() // outcomes carry the errors
	}()
	for i := range n {
		<-done[i]
		emit(outcomes[i])
	}
}

// lintSafely is lintSource, with a panic turned into an error of the source:
// one bad package must not take the others down.
func lintSafely(ctx context.Context, c *config, l loader, source string, stdin io.Reader) (o outcome) {
	defer func() {
		if r := recover(); r != nil {
			o = outcome{src: unreadable(source, fmt.Errorf("internal error: %v", r)), failOn: c.failOn}
		}
	}()
	return lintSource(ctx, c, l, source, stdin)
}

// lintSource opens and lints one source, with the configuration that
// applies to it.
func lintSource(ctx context.Context, c *config, l loader, source string, stdin io.Reader) outcome {
	c, err := c.forSource(ctx, source)
	if err != nil {
		return outcome{src: unreadable(source, err), failOn: c.failOn}
	}
	o := lintWith(ctx, c, l, source, stdin)
	o.failOn = c.failOn
	return o
}

// forSource returns the flags merged with the configuration file that
// applies to source (--config's, or the first found from the source
// upward): flags win; lists (disable, ignore, deps-from) add up.
func (c *config) forSource(ctx context.Context, source string) (*config, error) {
	p := c.project
	if p == nil && c.configs != nil {
		var err error
		if p, err = c.configs.find(ctx, source); err != nil {
			return c, fmt.Errorf("configuration: %w", err)
		}
	}
	if p == nil {
		return c, c.checkDeps()
	}
	m := *c
	m.disabled = append(slices.Clip(p.disabled), c.disabled...)
	m.severities = maps.Clone(p.severities)
	maps.Copy(m.severities, c.severities)
	if !c.failOnSet && p.failOn != nil {
		m.failOn = *p.failOn
	}
	if m.xpVersion == "" {
		m.xpVersion = p.xpVersion
	}
	m.ignore = append(slices.Clip(p.ignore), c.ignore...)
	m.exclude, m.excludeFile = p.exclude, p.file
	if m.against.source == "" && p.against != "" {
		m.against = againstConfig{source: p.against, version: c.against.version, oldVersion: c.against.oldVersion, opts: c.openOpts, old: onceOpen()}
	}
	if m.images == nil && p.images != nil {
		m.images = p.images
		m.openOpts = append(slices.Clip(c.openOpts), xpkg.WithImageConfig(p.images))
	}
	if m.deps.enabled {
		m.deps.from = append(slices.Clip(c.deps.from), p.depsFrom...)
		m.deps.footprint = p.footprint
	}
	return &m, m.checkDeps()
}

// checkDeps checks that --deps --offline has a local source, from the
// flags or the configuration.
func (c *config) checkDeps() error {
	if c.deps.enabled && c.deps.offline && len(c.deps.from) == 0 && len(c.deps.cache) == 0 {
		return errNoLocalSource
	}
	return nil
}

// lintWith opens and lints one source with c.
func lintWith(ctx context.Context, c *config, l loader, source string, stdin io.Reader) outcome {
	var opts []xpkg.Option
	if c.platform != nil {
		opts = append(opts, xpkg.WithPlatform(*c.platform))
	}
	if c.limits != nil {
		opts = append(opts, xpkg.WithLimits(*c.limits))
	}
	opts = append(opts, c.openOpts...)
	var (
		p   *xpkg.Package
		err error
	)
	if source == stdinSource {
		p, err = l.openReader(ctx, stdin, opts...)
	} else if c.verifier != nil && anyRemote([]string{source}) {
		pinned, verr := c.verifyRef(ctx, source)
		if errors.Is(verr, errRefused) {
			return outcome{src: refused(source, verr)}
		}
		if verr != nil {
			return outcome{src: unreadable(source, verr)}
		}
		p, err = l.open(ctx, pinned, opts...)
	} else {
		p, err = l.open(ctx, source, opts...)
	}
	if err != nil {
		return outcome{src: unreadable(source, err)}
	}
	unusedGlobs, err := applyIgnore(ctx, p, c.ignore)
	if err != nil {
		return outcome{src: unreadable(source, err)}
	}
	var notes []string
	for i, g := range unusedGlobs {
		if i == maxIgnoreNotes {
			notes = append(notes, fmt.Sprintf("ignore: %d more globs match no file of the package", len(unusedGlobs)-i))
			break
		}
		notes = append(notes, unusedIgnoreNote(g))
	}
	res, err := rules.LintPackage(ctx, p, c.lintOptions()...)
	if err != nil {
		return outcome{src: unreadable(source, err)}
	}
	if res.Diagnostics, res.Suppressed, err = applyExclude(ctx, c.excludeFile, c.exclude, res.Diagnostics, res.Suppressed); err != nil {
		return outcome{src: unreadable(source, err)}
	}
	src := &report.Source{Name: displayName(source), Kind: p.SourceKind.String(), Image: p.Image != nil,
		Diagnostics: res.Diagnostics, Suppressed: res.Suppressed, SkippedCEL: celskip.FromTallies(res.Tallies)}
	for _, list := range [][]linter.Diagnostic{src.Diagnostics, src.Suppressed} {
		for i := range list {
			list[i].Pos.File = displayFile(p, list[i])
			list[i].Source = src.Name
			for _, f := range list[i].SuggestedFixes {
				for j := range f.TextEdits {
					f.TextEdits[j].File = displayFile(p, linter.Diagnostic{Pos: parser.Position{File: f.TextEdits[j].File}})
				}
			}
		}
	}
	// A --against or --deps check that fails does not hide the package's
	// own findings: it is one more finding, XP000, and exit status 2.
	var unchecked []linter.Diagnostic
	if c.against.source != "" {
		ds, silenced, note, err := lintAgainst(ctx, c, l, p, source)
		if err != nil {
			if ctx.Err() != nil {
				return outcome{src: unreadable(source, err)}
			}
			unchecked = append(unchecked, uncheckedDiagnostic(src.Name, err))
		}
		if note != "" {
			notes = append(notes, note)
		}
		src.Diagnostics = append(src.Diagnostics, ds...)
		linter.SortDiagnostics(src.Diagnostics)
		if len(silenced) > 0 {
			for i := range silenced {
				silenced[i].Source = src.Name
			}
			src.Suppressed = append(src.Suppressed, silenced...)
			linter.SortDiagnostics(src.Suppressed)
		}
	}
	var tree string
	if c.deps.enabled {
		ds, silenced, t, err := lintGraph(ctx, c, p)
		switch {
		case err != nil && ctx.Err() != nil:
			return outcome{src: unreadable(source, err)}
		case errors.Is(err, errRefused):
			// A dependency Crossplane refuses: the package cannot work.
			ds = append(ds, refusedDiagnostic(src.Name, fmt.Errorf("--deps: %w", err)))
		case err != nil:
			unchecked = append(unchecked, uncheckedDiagnostic(src.Name, fmt.Errorf("--deps: %w", err)))
		}
		src.Diagnostics, tree = append(src.Diagnostics, ds...), t
		linter.SortDiagnostics(src.Diagnostics)
		if len(silenced) > 0 {
			for i := range silenced {
				silenced[i].Source = src.Name
			}
			src.Suppressed = append(src.Suppressed, silenced...)
			linter.SortDiagnostics(src.Suppressed)
		}
	}
	var failures []error
	for _, f := range res.Failures {
		failures = append(failures, f)
	}
	return outcome{src: src, failures: failures, tree: tree, unchecked: unchecked, root: p.Root, notes: notes}
}

// refused returns the report of a source whose required signature did not
// verify: one finding, report.SignatureRuleID, an error. It is not
// linted: Crossplane refuses it, whatever it holds.
func refused(source string, err error) *report.Source {
	name := displayName(source)
	return &report.Source{Name: name, Kind: "registry", Image: true,
		Diagnostics: []linter.Diagnostic{refusedDiagnostic(name, err)}}
}

// refusedDiagnostic returns the report.SignatureRuleID finding of source.
func refusedDiagnostic(source string, err error) linter.Diagnostic {
	d := linter.Diagnostic{
		RuleID: report.SignatureRuleID, RuleName: report.SignatureRuleName, Severity: linter.SeverityError,
		Source: source, Message: errorLine(source, err),
	}
	d.Pos.File = source
	return d
}

// uncheckedDiagnostic returns the XP000 finding of a check of source that
// could not run: at the source, line 0, with the error's line.
func uncheckedDiagnostic(source string, err error) linter.Diagnostic {
	d := linter.Diagnostic{
		RuleID: report.UnreadableRuleID, RuleName: report.UnreadableRuleName, Severity: linter.SeverityError,
		Source: source, Message: errorLine(source, err),
	}
	d.Pos.File = source
	return d
}

// lintOptions returns the linter options the flags ask for.
func (c *config) lintOptions() []linter.Option {
	var opts []linter.Option
	if c.ck.builtin {
		// xpkg-lint's API-server validation (apiserver.go) comes with the
		// built-in rules.
		opts = append(opts, apiserverOptions(c.verdicts)...)
	}
	switch {
	case !c.ck.builtin:
		opts = append(opts, linter.WithRuleSet(c.ck.rules...))
	case len(c.ck.rules) > 0:
		opts = append(opts, linter.WithRules(c.ck.rules...))
	}
	// The package linter knows the graph and API change rules, which it
	// does not run, so
	// that the one configuration may name any rule (see lintGraph), and a
	// package may silence a graph rule without XP004 calling it unknown.
	opts = append(opts, linter.WithRules(graphrules.Rules()...), linter.WithRules(changerules.Rules()...))
	return append(opts, c.ruleConfig()...)
}

// displayFile returns the file name to show for d: for a package directory
// or a package.yaml file, a path the user can open (the file joined to the
// package root); for an image or a reader, the name the parser gave, the
// file inside the image ("package.yaml"), or, for an image-level
// diagnostic, the layer digest or the source.
func displayFile(p *xpkg.Package, d linter.Diagnostic) string {
	file := d.Pos.File
	if file == "" {
		return p.Source
	}
	// Files of a directory or package.yaml source are relative to its root,
	// line-0 findings (a skipped symlink, XP006) included; an image's
	// line-0 findings name a layer digest or the image itself.
	switch p.SourceKind {
	case xpkg.SourceDirectory, xpkg.SourcePackageYAML:
		if p.Root != "" && !filepath.IsAbs(file) {
			return filepath.Join(p.Root, filepath.FromSlash(file))
		}
	}
	return file
}

// unreadable returns the report of a source that could not be read or
// linted.
func unreadable(source string, err error) *report.Source {
	return &report.Source{Name: displayName(source), Err: err}
}

// displayName returns how reports name a source: as given, except standard
// input ("-"), named report.StdinName everywhere.
func displayName(source string) string {
	if source == stdinSource {
		return report.StdinName
	}
	return source
}

// errorLine returns the one line that tells why source could not be read:
// the error without the prefixes that repeat the package and the source.
func errorLine(source string, err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Path == source && errors.Is(err, fs.ErrNotExist) {
		return "no such file or directory"
	}
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "xpkg: ")
	msg = strings.TrimPrefix(msg, source+": ")
	msg = strings.ReplaceAll(msg, "\n", "; ")
	return msg
}
