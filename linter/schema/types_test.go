package schema

import (
	"context"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/xpkgkit/xpkgkit/parser"
)

// TestTypesOnlyMatchesKubeOpenAPI checks the WithTypesOnly fast path against
// kube-openapi's validation, keeping only its type errors (null aside), on
// the test objects and the package kinds' fixtures of the linter.
func TestTypesOnlyMatchesKubeOpenAPI(t *testing.T) {
	t.Parallel()
	parse := func(path string) []*parser.Object {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		pkg, err := parser.Parse(context.Background(), f)
		if err != nil {
			t.Fatal(err)
		}
		return pkg.Objects
	}
	check := func(v *Validator, objs []*parser.Object) {
		for _, o := range objs {
			u, err := o.Unstructured()
			if err != nil {
				t.Fatal(err)
			}
			gvk := o.GroupVersionKind()
			e, ok := v.byGVK[gvk]
			if !ok {
				continue
			}
			c, err := e.doCompile(v.lim)
			if err != nil || c.none {
				continue
			}
			full, err := v.Validate(context.Background(), u.Object)
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, x := range full.Violations {
				if x.Kind == KindType && x.Found != "null" {
					want = append(want, x.Field()+": "+x.Message)
				}
			}
			r, err := v.Validate(context.Background(), u.Object, WithTypesOnly())
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, x := range r.Violations {
				got = append(got, x.Field()+": "+x.Message)
			}
			sortStrings(want)
			sortStrings(got)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s %s (-kube-openapi +WithTypesOnly):\n%s", o.Kind, o.Name, diff)
			}
		}
	}
	check(New(parse("testdata/defs.yaml")), parse("testdata/objects.yaml"))
	for _, f := range []string{"kinds-crossplane.yaml", "kinds-kubernetes.yaml", "good-kinds.yaml"} {
		check(PackageKinds(), parse("../rules/testdata/rules/XP005/"+f))
	}
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}
