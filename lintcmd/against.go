package lintcmd

// The --against flag: the API changes between an older version of the
// package (any SOURCE, typically the previous tag in a registry) and each
// SOURCE, found by linter/apidiff and reported by linter/changerules's
// rules (XP701-XP724). Kept in its own file: flags.go registers the flags
// (againstFlags), lint.go calls lintAgainst after linting a source,
// checker.go's allRules includes changerules.Rules.

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"sync"

	"github.com/Masterminds/semver/v3"

	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/linter/apidiff"
	"github.com/xpkgkit/xpkgkit/linter/changerules"
	"github.com/xpkgkit/xpkgkit/linter/graphrules"
	"github.com/xpkgkit/xpkgkit/oci"
	"github.com/xpkgkit/xpkgkit/parser"
	"github.com/xpkgkit/xpkgkit/xpkg"
)

// againstConfig is what --against asks for; source is empty without it.
type againstConfig struct {
	source  string
	version string // --package-version: the new package's version
	// oldVersion is --against-version: the older package's version (its
	// tag by default, when it is a reference).
	oldVersion string
	// opts open the older package (the registry client when it may be a
	// reference).
	opts []xpkg.Option
	// old opens the older package once for every SOURCE.
	old func(ctx context.Context, l loader, c *config) (*xpkg.Package, error)
}

// againstFlags holds the raw values.
type againstFlags struct {
	source, version, oldVersion string
}

func (f *againstFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.source, "against", "", "older version of the package to compare APIs with")
	fs.StringVar(&f.version, "package-version", "", "the version of the package being linted")
	fs.StringVar(&f.oldVersion, "against-version", "", "the version of the --against package")
}

// apply checks the values; remote is the registry flags, whose client is
// made when the older package may be a reference.
func (f *againstFlags) apply(c *config, remote *remoteFlags) error {
	for _, v := range []struct{ flag, value string }{{"--package-version", f.version}, {"--against-version", f.oldVersion}} {
		if v.value == "" {
			continue
		}
		if _, err := semver.NewVersion(v.value); err != nil {
			return fmt.Errorf("%s: %q is not a semantic version", v.flag, v.value)
		}
	}
	if f.source == "" {
		// The configuration's against key may name the older package.
		c.against = againstConfig{version: f.version, oldVersion: f.oldVersion}
		return nil
	}
	if f.source == stdinSource {
		return errors.New("--against: standard input cannot be the older package")
	}
	a := againstConfig{source: f.source, version: f.version, oldVersion: f.oldVersion}
	if _, err := os.Lstat(f.source); errors.Is(err, fs.ErrNotExist) {
		client, err := remote.client()
		if err != nil {
			return err
		}
		a.opts = append(a.opts, xpkg.WithRemote(client))
	}
	a.old = onceOpen()
	c.against = a
	return nil
}

// onceOpen returns a function that opens the older package on its first
// call and returns the same package (or error) after.
func onceOpen() func(ctx context.Context, l loader, c *config) (*xpkg.Package, error) {
	var (
		once sync.Once
		p    *xpkg.Package
		err  error
	)
	return func(ctx context.Context, l loader, c *config) (*xpkg.Package, error) {
		once.Do(func() {
			var opts []xpkg.Option
			if c.platform != nil {
				opts = append(opts, xpkg.WithPlatform(*c.platform))
			}
			if c.limits != nil {
				opts = append(opts, xpkg.WithLimits(*c.limits))
			}
			opts = append(opts, c.against.opts...)
			p, err = l.open(ctx, c.against.source, opts...)
		})
		return p, err
	}
}

// tagOf returns the tag of a package read from a registry ("" otherwise).
func tagOf(p *xpkg.Package) string {
	if p.SourceKind != xpkg.SourceRegistry {
		return ""
	}
	r, err := oci.ParseReference(p.Source)
	if err != nil {
		return ""
	}
	return r.Tag
}

// lintAgainst compares the APIs of the older package with p's and returns
// the diagnostics, and those the new package's annotations silenced, with
// files displayed as the linter's are.
//
// note says when nothing changed: "no API changes", with how many
// definitions were compared.
func lintAgainst(ctx context.Context, c *config, l loader, p *xpkg.Package, source string) (ds, silenced []linter.Diagnostic, note string, err error) {
	old, err := c.against.old(ctx, l, c)
	if err != nil {
		return nil, nil, "", fmt.Errorf("--against %s: %w", c.against.source, err)
	}
	if err := oldParses(old); err != nil {
		return nil, nil, "", fmt.Errorf("--against %s: %w", c.against.source, err)
	}
	newVersion := c.against.version
	if newVersion == "" {
		newVersion = tagOf(p)
	}
	oldVersion := c.against.oldVersion
	if oldVersion == "" {
		oldVersion = tagOf(old)
	}
	res, err := apidiff.Diff(ctx, old.Package, p.Package, apidiff.WithVersions(oldVersion, newVersion),
		apidiff.WithOldFiles(func(file string) string {
			return displayFile(old, linter.Diagnostic{Pos: parser.Position{File: file}})
		}))
	if err != nil {
		return nil, nil, "", err
	}
	// The change linter knows the package and graph rules too, so that the
	// one configuration may name any rule (see lintOptions).
	opts := append([]linter.Option{linter.WithRules(c.ck.packageRules()...), linter.WithRules(graphrules.Rules()...)}, c.ruleConfig()...)
	lr, err := changerules.Lint(ctx, res, opts...)
	if err != nil {
		return nil, nil, "", err
	}
	ds, silenced = lr.Diagnostics, lr.Suppressed
	for _, list := range [][]linter.Diagnostic{ds, silenced} {
		for i := range list {
			list[i].Pos.File = displayFile(p, list[i])
			list[i].Source = displayName(source)
		}
	}
	if len(res.Changes) == 0 && len(res.Dropped) == 0 {
		note = fmt.Sprintf("no API changes against %s (%d definitions compared)", c.against.source, res.Compared)
	}
	return ds, silenced, note, nil
}

// errOldUnparsed is the class of an older package (--against) with a
// document that does not parse: the definition it held cannot be compared,
// and leaving it out would make its new version "new" and hide the
// versions it removed, a wrong verdict. The run cannot check the change
// (exit 2).
var errOldUnparsed = errors.New("the older package has a document that does not parse, so its APIs cannot be compared")

// oldParses returns errOldUnparsed, with the first document's position and
// error, when a document of the older package did not parse.
func oldParses(old *xpkg.Package) error {
	if old == nil || old.Package == nil || len(old.Package.Errors) == 0 {
		return nil
	}
	e := old.Package.Errors[0]
	more := ""
	if n := len(old.Package.Errors) - 1; n > 0 {
		more = fmt.Sprintf(" (and %d more)", n)
	}
	return fmt.Errorf("%w: %s:%d: %v%s", errOldUnparsed, displayFile(old, linter.Diagnostic{Pos: e.Pos}), e.Pos.Line, e.Err, more)
}
