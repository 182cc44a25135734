package lintcmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"

	"github.com/xpkgkit/xpkgkit/lintcmd/internal/report"
	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/xpkg"
)

// ErrEditorFlag is wrapped by the error of LintFS when a flag asks for
// something other than a lint of the package (an output format, a fix, a
// baseline, --explain, a SOURCE).
var ErrEditorFlag = errors.New("flag not for an editor's lint")

// LintFS lints the package directory root as Run lints it with the given
// flags (xpkg-lint's: --crossplane-version, --disable, --severity,
// --ignore, --config, --deps with --offline and --deps-cache, the limits),
// reading the package's files, its examples included, through fsys, whose
// names are relative to root: an editor passes an overlay of its unsaved
// buffers over os.DirFS(root), so that what is linted is what the author
// sees. The configuration file that applies to root (configFile, from root
// upward) is read from disk, as Run reads it. A dependency graph is linted
// only when flags ask for it (--deps), and reaches a registry only when they
// let it.
//
// The result's diagnostics (and suppressed ones) name files as Run's do: the
// path joined to root. Its Failures are the rules that broke. LintFS
// returns an error wrapping ErrEditorFlag for a flag that writes something
// (-o, --fix, --diff, --baseline, --explain, --list-rules, --version) or a
// SOURCE among flags, and the error of the package when it cannot be read or
// linted.
func (ck *Checker) LintFS(ctx context.Context, root string, fsys fs.FS, flags ...string) (*linter.Result, error) {
	if ctx == nil || fsys == nil {
		return nil, errors.New("checker: LintFS: nil context or fs.FS")
	}
	for _, f := range flags {
		if f == "--" {
			return nil, fmt.Errorf("%w: --", ErrEditorFlag)
		}
	}
	c, err := ck.parseArgs(ctx, append(append([]string(nil), flags...), "--", root))
	if err != nil {
		return nil, err
	}
	switch {
	case len(c.sources) != 1:
		return nil, fmt.Errorf("%w: a SOURCE among the flags", ErrEditorFlag)
	case c.format != report.FormatText || c.fix || c.diff || c.baseline != "" || c.explain != "" || c.listRules || c.version || c.verifier != nil:
		return nil, fmt.Errorf("%w: %q", ErrEditorFlag, flags)
	}
	l := fsLoader{root: root, fsys: fsys}
	o := lintSafely(ctx, c, l, root, nil)
	if o.src.Err != nil {
		return nil, o.src.Err
	}
	res := &linter.Result{Diagnostics: o.src.Diagnostics, Suppressed: o.src.Suppressed, Tallies: o.src.SkippedCEL.Tallies()}
	for _, f := range o.failures {
		var re *linter.RuleError
		if errors.As(f, &re) {
			res.Failures = append(res.Failures, re)
		}
	}
	return res, nil
}

// fsLoader opens the package directory root through fsys, and any other
// source (an --against source) as the program does.
type fsLoader struct {
	root string
	fsys fs.FS
}

func (l fsLoader) open(ctx context.Context, source string, opts ...xpkg.Option) (*xpkg.Package, error) {
	if filepath.Clean(source) == filepath.Clean(l.root) {
		return xpkg.OpenFS(ctx, l.fsys, l.root, opts...)
	}
	return xpkg.Open(ctx, source, opts...)
}

func (l fsLoader) openReader(ctx context.Context, r io.Reader, opts ...xpkg.Option) (*xpkg.Package, error) {
	return xpkg.OpenReader(ctx, r, opts...)
}
