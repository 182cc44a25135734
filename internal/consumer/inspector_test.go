package consumer_test

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/meta"
	"github.com/xpkgkit/xpkgkit/xpkg"
	"github.com/xpkgkit/xpkgkit/xpkg/xpkgtest"
)

// inspect is a package inspector: it opens any source and prints what the
// package is, what it depends on and what it defines.
func inspect(ctx context.Context, w io.Writer, source string) error {
	pkg, err := xpkg.Open(ctx, source)
	if err != nil {
		return err
	}
	m := pkg.Pkg()
	if m == nil {
		return fmt.Errorf("%s: not exactly one meta object", source)
	}
	kind, _ := meta.KindOf(m)
	fmt.Fprintf(w, "%s %s (%s)\n", kind, pkg.Meta[0].Name, pkg.SourceKind)
	if c := m.GetCrossplaneConstraints(); c != nil {
		fmt.Fprintf(w, "crossplane %s\n", c.Version)
	}
	for _, d := range m.GetDependencies() {
		k, ref, ok := d.Target()
		if !ok {
			continue
		}
		fmt.Fprintf(w, "depends on %s %s %s\n", k, ref, d.Version)
	}
	for _, o := range pkg.Objects {
		if o.Kind == "CustomResourceDefinition" {
			fmt.Fprintf(w, "defines %s\n", o.Name)
		}
	}
	if pkg.Image != nil {
		fmt.Fprintf(w, "image %s\n", pkg.Image.ManifestDigest)
	}
	return nil
}

func TestInspector(t *testing.T) {
	t.Parallel()
	p := xpkgtest.NewProvider("provider-inspected").
		WithCrossplaneConstraint(">=v1.20.0").
		WithDependency(meta.KindFunction, "xpkg.example.org/acme/function-a", ">=v0.1.0").
		WithLegacyDependency(meta.KindProvider, "xpkg.example.org/acme/provider-b", ">=v1.0.0").
		WithCRD("example.org", "Widget", "v1")
	for form, source := range map[string]string{
		"xpkg":      p.MustImage(t).XpkgFile(t),
		"directory": p.Dir(t),
	} {
		var b strings.Builder
		if err := inspect(t.Context(), &b, source); err != nil {
			t.Fatalf("%s: %v", form, err)
		}
		out := b.String()
		for _, want := range []string{
			"Provider provider-inspected",
			"crossplane >=v1.20.0",
			"depends on Function xpkg.example.org/acme/function-a >=v0.1.0",
			"depends on Provider xpkg.example.org/acme/provider-b >=v1.0.0",
			"defines widgets.example.org",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: output lacks %q:\n%s", form, want, out)
			}
		}
		if (form == "xpkg") != strings.Contains(out, "image sha256:") {
			t.Errorf("%s: image line:\n%s", form, out)
		}
	}
}
