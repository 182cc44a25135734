// Command upstreamlint runs Crossplane's own package library on a package:
// crossplane-runtime v2.4.0's pkg/xpkg parser with its schemes, then the
// validator and the linter of the package's kind, as the revision
// reconciler runs them. It is the upstream side of the ratio benchmark
// (TestRatio in the parent directory).
//
//	upstreamlint Provider path/to/package.yaml
//	upstreamlint Provider path/to/package.xpkg
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	pkgmetav1 "github.com/crossplane/crossplane/apis/v2/pkg/meta/v1"
	"github.com/google/go-containerregistry/pkg/v1/tarball"

	"github.com/crossplane/crossplane-runtime/v2/pkg/xpkg"
	xpparser "github.com/crossplane/crossplane-runtime/v2/pkg/xpkg/parser"
	"github.com/crossplane/crossplane-runtime/v2/pkg/xpkg/parser/yaml"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: upstreamlint Provider|Configuration|Function FILE")
		os.Exit(2)
	}
	if err := upstreamLint(context.Background(), os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// upstreamLint reads src (a package.yaml, or a .xpkg read with
// go-containerregistry and crossplane-runtime's ExtractPackageYAML, as the
// package manager reads an image) and runs what the revision reconciler
// runs on it: the parser, the validator and the linter of kind.
func upstreamLint(ctx context.Context, kind, src string) error {
	var rc io.ReadCloser
	if strings.HasSuffix(src, ".xpkg") {
		img, err := tarball.ImageFromPath(src, nil)
		if err != nil {
			return err
		}
		if rc, err = xpkg.ExtractPackageYAML(img); err != nil {
			return err
		}
	} else {
		f, err := os.Open(src)
		if err != nil {
			return err
		}
		rc = f
	}
	pp, err := yaml.New()
	if err != nil {
		return err
	}
	pkg, err := pp.Parse(ctx, rc)
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
