// Package xpparity proves xpkgkit's verdicts against Crossplane's own
// package code: crossplane-runtime v2's pkg/xpkg (its parser, schemes,
// New*Linter and New*Validator, and the Builder that `crossplane xpkg
// build` runs), which is Crossplane v2.4's package library. Its pkg/xpkg
// code is the same at v2.3.0, and the semver v3.5.0 it pins parses as
// v2.3.0's v3.4.0 but for three caps (constraints over 512 bytes or 32 ||
// groups, versions over 256 bytes), so its verdicts are v2.3's too except
// on those caps. Targets before v2.3 are decided by crossplane's internal/
// packages, which no module can import: the verdict table cites their lines.
// For the install path, InstallObjects decodes the objects of
// Crossplane's own kinds into Crossplane's Go types at Target (apis/v2
// v2.4.0), encodes them as the client sends them, and validates them with
// apiextensions-apiserver's create strategy against Target's CRDs
// (TestInstallParity compares XP422 with it, object by object).
// It is a nested module so that crossplane-runtime and its dependencies
// stay out of xpkgkit's own go.mod; nothing in xpkgkit imports it.
package xpparity

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	pkgmetav1 "github.com/crossplane/crossplane/apis/v2/pkg/meta/v1"
	"github.com/spf13/afero"

	"github.com/crossplane/crossplane-runtime/v2/pkg/xpkg"
	xpparser "github.com/crossplane/crossplane-runtime/v2/pkg/xpkg/parser"
	"github.com/crossplane/crossplane-runtime/v2/pkg/xpkg/parser/examples"
	"github.com/crossplane/crossplane-runtime/v2/pkg/xpkg/parser/yaml"
)

// Target is the Crossplane release whose package library this module
// imports (crossplane-runtime v2.4.0 is Crossplane v2.4's pkg/xpkg): the
// target xpkgkit is linted at when its verdict is compared.
const Target = "v2.4.0"

// Verdict is what Crossplane's package library decides about a package.
type Verdict struct {
	// Refused is set when the build or the install refuses the package.
	Refused bool
	// Stage is where: "build" (Builder.Build: parser, linter, examples)
	// or "install" (the revision reconciler's parse, validator, linter).
	Stage string
	// Err is Crossplane's error.
	Err error
}

func (v Verdict) String() string {
	if !v.Refused {
		return "accepted"
	}
	return fmt.Sprintf("refused at %s: %v", v.Stage, v.Err)
}

// BuildDir runs crossplane-runtime's Builder on a package directory the
// way `crossplane xpkg build` does (crossplane/cli cmd/crossplane/xpkg/
// build.go: buildFilters, SkipDirs, SkipNotYAML, SkipEmpty, the examples
// root "examples" skipped from the package and parsed on its own).
func BuildDir(ctx context.Context, dir string) error {
	fs := afero.NewOsFs()
	ex := filepath.Join(dir, "examples")
	filters := func() []xpparser.FilterFn {
		return []xpparser.FilterFn{xpparser.SkipDirs(), xpparser.SkipNotYAML(), xpparser.SkipEmpty()}
	}
	pp, err := yaml.New()
	if err != nil {
		return err
	}
	b := xpkg.New(
		xpparser.NewFsBackend(fs, xpparser.FsDir(dir), xpparser.FsFilters(append(filters(), xpkg.SkipContains(ex))...)),
		xpparser.NewFsBackend(fs, xpparser.FsDir(ex), xpparser.FsFilters(filters()...)),
		pp,
		examples.New(),
	)
	_, _, err = b.Build(ctx)
	return err
}

// Install runs what Crossplane's revision reconciler runs on the
// package.yaml of an image (crossplane internal/controller/pkg/revision/
// reconciler.go at v2.4.0-rc.0: the parser, then r.validator.Lint at line
// 536, then r.linter.Lint at line 550), with the validator and linter of
// the package's kind ("Provider", "Configuration" or "Function").
func Install(ctx context.Context, kind string, stream []byte) error {
	pp, err := yaml.New()
	if err != nil {
		return err
	}
	pkg, err := pp.Parse(ctx, io.NopCloser(bytes.NewReader(stream)))
	if err != nil {
		return fmt.Errorf("parse: %w", err)
	}
	var v xpkg.Validator
	var l xpparser.Linter
	switch kind {
	case pkgmetav1.ProviderKind:
		v, l = xpkg.NewProviderValidator(), xpkg.NewProviderLinter()
	case pkgmetav1.ConfigurationKind:
		v, l = xpkg.NewConfigurationValidator(), xpkg.NewConfigurationLinter()
	case pkgmetav1.FunctionKind:
		v, l = xpkg.NewFunctionValidator(), xpkg.NewFunctionLinter()
	default:
		return fmt.Errorf("unknown package kind %q", kind)
	}
	if err := v.Lint(pkg); err != nil {
		return fmt.Errorf("validator: %w", err)
	}
	if err := l.Lint(pkg); err != nil {
		return fmt.Errorf("linter: %w", err)
	}
	return nil
}

// Judge is Crossplane's verdict on a package of the given kind: a YAML
// stream (dir false: built from a directory holding it as package.yaml,
// and installed from it) or a package directory (built only; its install
// reads what the build wrote).
func Judge(ctx context.Context, kind, path string, dir bool) (Verdict, error) {
	if dir {
		if err := BuildDir(ctx, path); err != nil {
			return Verdict{Refused: true, Stage: "build", Err: err}, nil
		}
		return Verdict{}, nil
	}
	stream, err := os.ReadFile(path)
	if err != nil {
		return Verdict{}, err
	}
	tmp, err := os.MkdirTemp("", "xpparity-")
	if err != nil {
		return Verdict{}, err
	}
	defer os.RemoveAll(tmp)
	if err := os.WriteFile(filepath.Join(tmp, "package.yaml"), stream, 0o600); err != nil {
		return Verdict{}, err
	}
	if err := BuildDir(ctx, tmp); err != nil {
		return Verdict{Refused: true, Stage: "build", Err: err}, nil
	}
	if err := Install(ctx, kind, stream); err != nil {
		return Verdict{Refused: true, Stage: "install", Err: err}, nil
	}
	return Verdict{}, nil
}

// errPanic wraps a panic of Crossplane's code (its Builder has no linter
// for a meta kind it does not know, for one).
var errPanic = errors.New("crossplane-runtime panicked")

// SafeJudge is Judge with a panic of Crossplane's code turned into a
// refusal at the build (the CLI would crash: the package is not built).
func SafeJudge(ctx context.Context, kind, path string, dir bool) (v Verdict, err error) {
	defer func() {
		if r := recover(); r != nil {
			v, err = Verdict{Refused: true, Stage: "build", Err: fmt.Errorf("%w: %v", errPanic, r)}, nil
		}
	}()
	return Judge(ctx, kind, path, dir)
}
