// Command upstreamlint runs Crossplane's own package library on a package:
// crossplane-runtime v2.4.0's pkg/xpkg parser with its schemes, then the
// validator and the linter of the package's kind, as the revision
// reconciler runs them. It is the upstream side of the ratio benchmark
// (TestRatio in the parent directory).
//
//	upstreamlint Provider path/to/package.yaml
//	upstreamlint Provider path/to/package.xpkg
//	upstreamlint -apiserver Provider path/to/package.xpkg
//
// With -apiserver it is the full verdict's anchor: the API server's
// validation of every CustomResourceDefinition the parser decoded as the
// API server validates one on create (k8s.io/apiextensions-apiserver's
// v1 defaults, the conversion to the internal type and
// ValidateCustomResourceDefinition), across GOMAXPROCS workers.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	pkgmetav1 "github.com/crossplane/crossplane/apis/v2/pkg/meta/v1"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	extv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	kruntime "k8s.io/apimachinery/pkg/runtime"

	"github.com/crossplane/crossplane-runtime/v2/pkg/xpkg"
	xpparser "github.com/crossplane/crossplane-runtime/v2/pkg/xpkg/parser"
	"github.com/crossplane/crossplane-runtime/v2/pkg/xpkg/parser/yaml"
)

func main() {
	args := os.Args[1:]
	full := len(args) > 0 && args[0] == "-apiserver"
	if full {
		args = args[1:]
	}
	if len(args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: upstreamlint [-apiserver] Provider|Configuration|Function FILE")
		os.Exit(2)
	}
	if err := upstreamLint(context.Background(), args[0], args[1], full); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// upstreamLint reads src (a package.yaml, or a .xpkg read with
// go-containerregistry and crossplane-runtime's ExtractPackageYAML, as the
// package manager reads an image) and runs what the revision reconciler
// runs on it: the parser, the validator and the linter of kind.
func upstreamLint(ctx context.Context, kind, src string, full bool) error {
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
	if full {
		return validateCRDs(ctx, pkg.GetObjects())
	}
	return nil
}

// validateCRDs validates every apiextensions.k8s.io/v1
// CustomResourceDefinition of objs as the API server does on create,
// GOMAXPROCS at once, and says how many it refuses.
func validateCRDs(ctx context.Context, objs []kruntime.Object) error {
	work := make(chan *extv1.CustomResourceDefinition)
	var refused atomic.Int64
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for crd := range work {
				extv1.SetObjectDefaults_CustomResourceDefinition(crd)
				var internal apiextensions.CustomResourceDefinition
				if err := extv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(crd, &internal, nil); err != nil {
					refused.Add(1)
					continue
				}
				if errs := validation.ValidateCustomResourceDefinition(ctx, &internal); len(errs) > 0 {
					refused.Add(1)
				}
			}
		})
	}
	for _, o := range objs {
		if crd, ok := o.(*extv1.CustomResourceDefinition); ok {
			work <- crd.DeepCopy()
		}
	}
	close(work)
	wg.Wait()
	if n := refused.Load(); n > 0 {
		return fmt.Errorf("the API server refuses %d CustomResourceDefinitions", n)
	}
	return nil
}
