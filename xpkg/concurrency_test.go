package xpkg_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/xpkgkit/xpkgkit/internal/testcorpus"
	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/linter/rules"
	"github.com/xpkgkit/xpkgkit/oci"
	"github.com/xpkgkit/xpkgkit/parser"
	"github.com/xpkgkit/xpkgkit/xpkg"
	"github.com/xpkgkit/xpkgkit/xpkg/xpkgtest"
)

// TestConcurrentOpenParseLint runs Open, parser.Parse and linter.Lint from
// many goroutines at once, on different packages and on the same files
// (the same .xpkg, layout directory, layout tar and package.yaml), and on
// one parsed package linted by many goroutines. Run it with -race; every
// goroutine's result must equal the one computed alone.
func TestConcurrentOpenParseLint(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	type source struct {
		name string
		open func(context.Context) (*xpkg.Package, error)
	}
	var sources []source
	for _, p := range []*xpkgtest.Package{
		xpkgtest.NewProvider("provider-a").WithCRD("a.example.org", "Widget", "v1"),
		xpkgtest.NewConfiguration("configuration-b"),
		xpkgtest.NewFunction("function-c"),
	} {
		img := p.MustImage(t)
		for kind, path := range map[string]string{
			"xpkg": img.XpkgFile(t), "oci-layout": img.LayoutDir(t), "oci-layout-tar": img.LayoutTarFile(t),
			"package.yaml": p.PackageYAMLFile(t), "directory": p.Dir(t),
		} {
			sources = append(sources, source{p.Name() + "/" + kind, func(ctx context.Context) (*xpkg.Package, error) {
				return xpkg.Open(ctx, path)
			}})
		}
		y := p.YAML()
		sources = append(sources, source{p.Name() + "/reader", func(ctx context.Context) (*xpkg.Package, error) {
			return xpkg.OpenReader(ctx, bytes.NewReader(y))
		}})
	}
	if !testing.Short() {
		for _, name := range []string{"provider-helm", "function-go-templating"} {
			for _, path := range []string{testcorpus.Path(t, name) + ".xpkg", testcorpus.Path(t, name) + ".oci"} {
				if _, err := os.Stat(path); err == nil {
					sources = append(sources, source{filepath.Base(path), func(ctx context.Context) (*xpkg.Package, error) {
						return xpkg.Open(ctx, path)
					}})
				}
			}
		}
	}

	// What each source gives alone.
	want := map[string]int{}
	for _, s := range sources {
		pkg, err := s.open(ctx)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		res, err := rules.LintPackage(ctx, pkg)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		want[s.name] = len(pkg.Objects)*1000 + len(res.Diagnostics)
	}

	// Every source from several goroutines at once.
	const copies = 4
	var wg sync.WaitGroup
	for range copies {
		for _, s := range sources {
			wg.Go(func() {
				pkg, err := s.open(ctx)
				if err != nil {
					t.Errorf("%s: %v", s.name, err)
					return
				}
				res, err := rules.LintPackage(ctx, pkg)
				if err != nil {
					t.Errorf("%s: %v", s.name, err)
					return
				}
				if got := len(pkg.Objects)*1000 + len(res.Diagnostics); got != want[s.name] {
					t.Errorf("%s: concurrent result %d, alone %d", s.name, got, want[s.name])
				}
			})
		}
	}

	// One store shared by many readers, and one parsed package linted and
	// asked for positions by many goroutines.
	img := xpkgtest.NewProvider("provider-shared").WithCRD("s.example.org", "Gadget", "v1").MustImage(t)
	store, err := oci.Open(ctx, img.XpkgFile(t))
	if err != nil {
		t.Fatal(err)
	}
	yml := xpkgtest.NewProvider("provider-shared").WithCRD("s.example.org", "Gadget", "v1").YAML()
	shared, err := parser.Parse(ctx, bytes.NewReader(yml))
	if err != nil {
		t.Fatal(err)
	}
	for range 8 {
		wg.Go(func() {
			im, err := oci.Resolve(ctx, store)
			if err != nil {
				t.Errorf("shared store: %v", err)
				return
			}
			pkg, err := xpkg.OpenImage(ctx, store, im)
			if err != nil {
				t.Errorf("shared store: %v", err)
				return
			}
			if len(pkg.Meta) != 1 {
				t.Errorf("shared store: %d meta objects", len(pkg.Meta))
			}
		})
		wg.Go(func() {
			p, err := parser.Parse(ctx, bytes.NewReader(yml))
			if err != nil || len(p.Objects) != len(shared.Objects) {
				t.Errorf("parse: %v, %d objects", err, len(p.Objects))
			}
			if _, err := linter.Lint(ctx, shared, linter.WithRuleSet(rules.Builtin()...)); err != nil {
				t.Errorf("lint of a shared package: %v", err)
			}
			for _, o := range shared.Objects {
				if _, err := o.FieldPosition("metadata", "name"); err != nil {
					t.Errorf("field position: %v", err)
				}
				if _, err := o.Decode(); err != nil {
					t.Errorf("decode: %v", err)
				}
			}
		})
	}
	wg.Wait()
}
