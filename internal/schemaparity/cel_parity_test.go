package schemaparity

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"sigs.k8s.io/yaml"

	"github.com/xpkgkit/xpkgkit/linter/apiserver"
	"github.com/xpkgkit/xpkgkit/linter/schema"
	"github.com/xpkgkit/xpkgkit/parser"
)

// referenceCEL is Reference followed, when the schema errors do not block
// them, by the CEL rules, as the API server's custom resource strategy
// runs them on create.
func referenceCEL(t testing.TB, s any, obj map[string]any) bool {
	t.Helper()
	errs, _, err := Reference(s, obj)
	if err != nil {
		t.Fatal(err)
	}
	if len(errs) > 0 {
		t.Logf("reference: %v", errs)
		return false
	}
	b, _ := json.Marshal(s)
	var v1 apiextensionsv1.JSONSchemaProps
	if err := json.Unmarshal(b, &v1); err != nil {
		t.Fatal(err)
	}
	var internal apiextensions.JSONSchemaProps
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(&v1, &internal, nil); err != nil {
		t.Fatal(err)
	}
	ss, err := structuralschema.NewStructural(&internal)
	if err != nil {
		t.Fatal(err)
	}
	celErrs, _ := cel.NewValidator(ss, true, celconfig.PerCallLimit).Validate(context.Background(), nil, ss, obj, nil, celconfig.RuntimeCELCostBudget)
	if len(celErrs) > 0 {
		t.Logf("reference CEL: %v", celErrs)
	}
	return len(celErrs) == 0
}

// celCases are objects of the CRDs of testdata/cel.yaml.
var celCases = []struct {
	name, obj string
	valid     bool
}{
	{"upjet required missing", `{apiVersion: ses.aws.m.upbound.io/v1beta1, kind: EmailIdentity, metadata: {name: a}, spec: {forProvider: {region: r}}}`, false},
	{"upjet required set", `{apiVersion: ses.aws.m.upbound.io/v1beta1, kind: EmailIdentity, metadata: {name: a}, spec: {forProvider: {region: r, email: e}}}`, true},
	{"upjet observe only", `{apiVersion: ses.aws.m.upbound.io/v1beta1, kind: EmailIdentity, metadata: {name: a}, spec: {managementPolicies: [Observe], forProvider: {region: r}}}`, true},
	{"upjet create policy", `{apiVersion: ses.aws.m.upbound.io/v1beta1, kind: EmailIdentity, metadata: {name: a}, spec: {managementPolicies: [Create, Observe], forProvider: {region: r}}}`, false},
	{"upjet initProvider", `{apiVersion: ses.aws.m.upbound.io/v1beta1, kind: EmailIdentity, metadata: {name: a}, spec: {initProvider: {email: e}, forProvider: {region: r}}}`, true},
	{"upjet empty initProvider", `{apiVersion: ses.aws.m.upbound.io/v1beta1, kind: EmailIdentity, metadata: {name: a}, spec: {initProvider: {}, forProvider: {region: r}}}`, false},
	{"upjet schema error blocks", `{apiVersion: ses.aws.m.upbound.io/v1beta1, kind: EmailIdentity, metadata: {name: a}, spec: {forProvider: {}}}`, false},
	{"bucket ok", `{apiVersion: example.org/v1, kind: Bucket, metadata: {name: b}, spec: {size: 2, name: bk}}`, true},
	{"bucket default size", `{apiVersion: example.org/v1, kind: Bucket, metadata: {name: b}, spec: {name: bk}}`, true},
	{"bucket too big", `{apiVersion: example.org/v1, kind: Bucket, metadata: {name: b}, spec: {size: 20, name: bk}}`, false},
	{"bucket no name", `{apiVersion: example.org/v1, kind: Bucket, metadata: {name: b}, spec: {size: 2}}`, false},
	{"bucket tags ok", `{apiVersion: example.org/v1, kind: Bucket, metadata: {name: b}, spec: {name: bk, tags: [x-a, x-b]}}`, true},
	{"bucket tag bad", `{apiVersion: example.org/v1, kind: Bucket, metadata: {name: b}, spec: {name: bk, tags: [x-a, b]}}`, false},
	{"bucket tag too long", `{apiVersion: example.org/v1, kind: Bucket, metadata: {name: b}, spec: {name: bk, tags: [x-aaaaaaaaaaaa]}}`, false},
	{"bucket wrong type", `{apiVersion: example.org/v1, kind: Bucket, metadata: {name: b}, spec: {name: bk, size: "2"}}`, false},
	{"bucket unknown field", `{apiVersion: example.org/v1, kind: Bucket, metadata: {name: b}, spec: {name: bk, other: 1}}`, true},
}

func TestParityCEL(t *testing.T) {
	t.Parallel()
	crd, err := os.ReadFile("testdata/cel.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, schemas := load(t, crd)
	v := schema.New(mustObjects(t, crd), schema.WithExtension(apiserver.CEL()))
	for _, c := range celCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var obj map[string]any
			if err := yaml.Unmarshal([]byte(c.obj), &obj); err != nil {
				t.Fatal(err)
			}
			obj = normalize(obj).(map[string]any)
			gvk := obj["apiVersion"].(string) + "/" + obj["kind"].(string)
			ref := referenceCEL(t, schemas[gvk], deepCopy(obj).(map[string]any))
			if ref != c.valid {
				t.Errorf("the reference says valid=%v, the table %v", ref, c.valid)
			}
			res, err := v.Validate(context.Background(), deepCopy(obj).(map[string]any))
			if err != nil {
				t.Fatal(err)
			}
			if res.Valid() != ref {
				t.Errorf("ours valid=%v, reference valid=%v: %v", res.Valid(), ref, res.Violations)
			}
		})
	}
}

func mustObjects(t testing.TB, stream []byte) []*parser.Object {
	t.Helper()
	pkg, err := parser.Parse(context.Background(), strings.NewReader(string(stream)))
	if err != nil {
		t.Fatal(err)
	}
	return pkg.Objects
}
