package schema_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime/schema"

	lschema "github.com/xpkgkit/xpkgkit/linter/schema"
	"github.com/xpkgkit/xpkgkit/parser"
)

func parse(t testing.TB, path string) *parser.Package {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pkg, err := parser.Parse(context.Background(), f, parser.WithFile(path[strings.LastIndex(path, "/")+1:]))
	if err != nil {
		t.Fatal(err)
	}
	if len(pkg.Errors) > 0 {
		t.Fatal(pkg.Errors)
	}
	return pkg
}

func describe(r *lschema.Result) []string {
	out := []string{fmt.Sprintf("%s %s served=%v valid=%v cel=%d", r.Definition, r.GVK.Version, r.Served, r.Valid(), r.CEL.Skipped())}
	for _, v := range r.Violations {
		out = append(out, fmt.Sprintf("%s %s [%s] want=%q found=%q", v.Pos, v, v.Kind, v.Expected, v.Found))
	}
	return out
}

// TestValidateObject validates testdata/objects.yaml against the CRD and
// XRDs of testdata/defs.yaml and compares every violation, with its
// position, kind, expected and found values.
func TestValidateObject(t *testing.T) {
	t.Parallel()
	v := lschema.New(parse(t, "testdata/defs.yaml").Objects)
	want := map[string][]string{
		"everything-wrong": {
			`CustomResourceDefinition "buckets.example.org" v1 served=true valid=false cel=1`,
			`objects.yaml:16:3 spec.addr: want format ipv4, found "nope" [format] want="format ipv4" found="\"nope\""`,
			`objects.yaml:18:3 spec.bogus: unknown field: the API server prunes it [unknown-field] want="" found=""`,
			`objects.yaml:13:12 spec.labels["a.b/c"]: want string, found integer [type] want="string" found="integer"`,
			`objects.yaml:9:3 spec.name: must match the pattern ^[a-z]+$ [pattern] want="match ^[a-z]+$" found="\"ABC\""`,
			`objects.yaml:6:3 spec.region: want one of [us-east-1, eu-west-1], found mars [enum] want="one of [us-east-1, eu-west-1]" found="mars"`,
			`objects.yaml:12:22 spec.rules[1]: duplicate entry in a list-type map [duplicate] want="unique keys name (list-type map)" found="{\"name\":\"x\"}"`,
			`objects.yaml:7:3 spec.size: want integer, found number [type] want="integer" found="number"`,
			`objects.yaml:11:13 spec.tags[1]: duplicate value in a list-type set [duplicate] want="unique items (list-type set)" found="\"a\""`,
			`objects.yaml:15:3 spec.template.apiVersion: required: an embedded resource needs apiVersion [required] want="required" found="missing"`,
			`objects.yaml:15:3 spec.template.kind: required: an embedded resource needs kind [required] want="required" found="missing"`,
		},
		"legacy-xr": {
			`CompositeResourceDefinition "xnetworks.example.org" (composite resource) v1alpha1 served=true valid=false cel=0`,
			`objects.yaml:26:3 spec.cidr: want string, found integer [type] want="string" found="integer"`,
			`objects.yaml:27:3 spec.claimRef.apiVersion: required field is missing [required] want="required" found="missing"`,
			`objects.yaml:27:3 spec.claimRef.kind: required field is missing [required] want="required" found="missing"`,
			`objects.yaml:27:3 spec.claimRef.name: required field is missing [required] want="required" found="missing"`,
			`objects.yaml:27:3 spec.claimRef.namespace: required field is missing [required] want="required" found="missing"`,
			`objects.yaml:25:20 spec.compositionRef.name: want string, found integer [type] want="string" found="integer"`,
		},
		"claim": {
			`CompositeResourceDefinition "xnetworks.example.org" (claim) v1alpha1 served=true valid=false cel=0`,
			`objects.yaml:35:3 spec.compositeDeletePolicy: want one of [Background, Foreground], found Nope [enum] want="one of [Background, Foreground]" found="Nope"`,
		},
		"v2-xr": {
			`CompositeResourceDefinition "apps.example.org" (composite resource) v1 served=true valid=false cel=0`,
			`objects.yaml:43:3 spec.compositionRef: unknown field: the API server prunes it [unknown-field] want="" found=""`,
			`objects.yaml:42:16 spec.crossplane.compositionUpdatePolicy: want one of [Automatic, Manual], found Sometimes [enum] want="one of [Automatic, Manual]" found="Sometimes"`,
		},
		"fine": {
			`CustomResourceDefinition "buckets.example.org" v1 served=true valid=true cel=1`,
		},
		"not-served": {
			`CustomResourceDefinition "buckets.example.org" v1beta1 served=false valid=false cel=0`,
		},
	}
	for _, o := range parse(t, "testdata/objects.yaml").Objects {
		r, err := v.ValidateObject(context.Background(), o)
		if err != nil {
			t.Fatalf("%s: %v", o.Name, err)
		}
		if diff := cmp.Diff(want[o.Name], describe(r)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", o.Name, diff)
		}
	}
}

func TestValidateErrors(t *testing.T) {
	t.Parallel()
	v := lschema.New(parse(t, "testdata/defs.yaml").Objects)
	ctx := context.Background()
	if _, err := v.Validate(ctx, map[string]any{"apiVersion": "example.org/v9", "kind": "Bucket"}); !errors.Is(err, lschema.ErrNoDefinition) {
		t.Errorf("unknown version: %v, want ErrNoDefinition", err)
	}
	if _, err := v.Validate(ctx, map[string]any{"kind": "Bucket"}); !errors.Is(err, lschema.ErrInvalidObject) {
		t.Errorf("no apiVersion: %v, want ErrInvalidObject", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := v.Validate(cctx, map[string]any{"apiVersion": "example.org/v1", "kind": "Bucket"}); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled: %v", err)
	}
	if !v.Serves(schema.GroupVersionKind{Group: "example.org", Version: "v1alpha1", Kind: "Network"}) {
		t.Error("the claim kind is not served")
	}
	if !v.ServesKind(schema.GroupKind{Group: "example.org", Kind: "App"}) {
		t.Error("the v2 XR kind is not served")
	}
	if got := len(v.Kinds()); got != 5 {
		t.Errorf("%d kinds, want 5: %v", got, v.Kinds())
	}
}

// TestOptions checks WithoutRequired and WithTypesOnly.
func TestOptions(t *testing.T) {
	t.Parallel()
	v := lschema.New(parse(t, "testdata/defs.yaml").Objects)
	obj := map[string]any{"apiVersion": "example.org/v1", "kind": "Bucket", "spec": map[string]any{"size": "x", "region": "mars", "bogus": true, "note": nil}}
	count := func(opts ...lschema.ValidateOption) []string {
		r, err := v.Validate(context.Background(), obj, opts...)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, x := range r.Violations {
			out = append(out, x.String())
		}
		return out
	}
	if diff := cmp.Diff([]string{"spec.size: want integer, found string"}, count(lschema.WithTypesOnly())); diff != "" {
		t.Errorf("WithTypesOnly (-want +got):\n%s", diff)
	}
	all := count()
	if len(all) != 3 {
		t.Errorf("all: %v, want 3 (bogus, region, size)", all)
	}
	delete(obj["spec"].(map[string]any), "region")
	if got := count(); len(got) != 3 || !strings.Contains(strings.Join(got, "\n"), "required") {
		t.Errorf("missing region: %v", got)
	}
	if got := count(lschema.WithoutRequired()); strings.Contains(strings.Join(got, "\n"), "required") {
		t.Errorf("WithoutRequired still reports required fields: %v", got)
	}
}

// TestConcurrent validates from many goroutines at once (run with -race).
func TestConcurrent(t *testing.T) {
	t.Parallel()
	v := lschema.New(parse(t, "testdata/defs.yaml").Objects)
	objs := parse(t, "testdata/objects.yaml").Objects
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o := objs[i%len(objs)]
			if _, err := v.ValidateObject(context.Background(), o); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestPackageKinds(t *testing.T) {
	t.Parallel()
	k := lschema.KindsOf()
	if k.Crossplane != "v2.1.0" || k.Kubernetes == "" || k.KubernetesV1beta1 == "" {
		t.Errorf("KindsOf() = %+v", k)
	}
	want := []string{
		"apiextensions.crossplane.io/v1, Kind=CompositeResourceDefinition",
		"apiextensions.crossplane.io/v2, Kind=CompositeResourceDefinition",
		"apiextensions.crossplane.io/v1, Kind=Composition",
		"apiextensions.crossplane.io/v1alpha1, Kind=ManagedResourceDefinition",
		"apiextensions.crossplane.io/v1alpha1, Kind=ManagedResourceActivationPolicy",
		"ops.crossplane.io/v1alpha1, Kind=Operation",
		"ops.crossplane.io/v1alpha1, Kind=CronOperation",
		"ops.crossplane.io/v1alpha1, Kind=WatchOperation",
		"apiextensions.k8s.io/v1, Kind=CustomResourceDefinition",
		"admissionregistration.k8s.io/v1, Kind=ValidatingWebhookConfiguration",
		"admissionregistration.k8s.io/v1, Kind=MutatingWebhookConfiguration",
		"apiextensions.k8s.io/v1beta1, Kind=CustomResourceDefinition",
	}
	var got []string
	for _, gvk := range lschema.PackageKinds().Kinds() {
		got = append(got, gvk.String())
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("kinds (-want +got):\n%s", diff)
	}
	// Every kind's schema compiles and accepts an empty object of its kind.
	for _, gvk := range lschema.PackageKinds().Kinds() {
		obj := map[string]any{"apiVersion": gvk.GroupVersion().String(), "kind": gvk.Kind}
		if _, err := lschema.PackageKinds().Validate(context.Background(), obj, lschema.WithTypesOnly()); err != nil {
			t.Errorf("%s: %v", gvk, err)
		}
	}
}
