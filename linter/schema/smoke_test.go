package schema_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/linter/schema"
	"github.com/xpkgkit/xpkgkit/parser"
)

func TestSmoke(t *testing.T) {
	f, _ := os.Open("testdata/defs.yaml")
	pkg, err := parser.Parse(context.Background(), f)
	if err != nil {
		t.Fatal(err)
	}
	v := schema.New(pkg.Objects)
	objs := `apiVersion: example.org/v1
kind: Bucket
metadata:
  name: b
spec:
  region: mars
  size: 1.5
  port: 8080
  name: ABC
  note: null
  tags: [a, a]
  rules: [{name: x}, {name: x}]
  labels: {a.b/c: 1}
  free: {x: 1}
  template: {spec: 1}
  addr: nope
  when: whatever
  bogus: 1
---
apiVersion: example.org/v1alpha1
kind: XNetwork
metadata:
  name: net
spec:
  compositionRef: {name: 3}
  cidr: 10
  claimRef: {}
---
apiVersion: example.org/v1alpha1
kind: Network
metadata:
  name: net
spec:
  cidr: x
  compositeDeletePolicy: Nope
---
apiVersion: example.org/v1
kind: App
metadata:
  name: net
spec:
  crossplane: {compositionUpdatePolicy: Sometimes}
  compositionRef: {name: x}
`
	p2, err := parser.Parse(context.Background(), strings.NewReader(objs), parser.WithFile("o.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	t.Log(p2.Errors, len(p2.Objects))
	for _, o := range p2.Objects {
		r, err := v.ValidateObject(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s %s cel=%d valid=%v", r.Definition, r.Version, r.SkippedCEL, r.Valid())
		for _, x := range r.Violations {
			t.Logf("  %s %s [%s] exp=%q found=%q", x.Pos, x, x.Kind, x.Expected, x.Found)
		}
	}
}

func TestSmokeKinds(t *testing.T) {
	objs := `apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata:
  name: c
spec:
  compositeTypeRef: {apiVersion: a/v1, kind: X}
  mode: Pipeline
  pipeline:
  - step: 1
    functionRef: {name: f}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: w
webhooks:
- name: a.b
  timeoutSeconds: "10"
  sideEffects: None
  admissionReviewVersions: [v1]
  clientConfig: {service: {name: s, namespace: n, port: "1"}}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: a.b
spec:
  group: b
  names: {kind: A, plural: as}
  scope: Namespaced
  versions:
  - name: v1
    served: "true"
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              x: {type: string, maxLength: "5"}
---
apiVersion: apiextensions.crossplane.io/v1
kind: CompositeResourceDefinition
metadata:
  name: a.b
spec:
  group: b
  names: {kind: A, plural: as}
  connectionSecretKeys: [a, 1]
  versions:
  - name: v1
    served: "true"
    referenceable: true
`
	p2, err := parser.Parse(context.Background(), strings.NewReader(objs), parser.WithFile("o.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	t.Log(p2.Errors, len(p2.Objects))
	for _, o := range p2.Objects {
		r, err := schema.PackageKinds().ValidateObject(context.Background(), o, schema.TypesOnly())
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s %s cel=%d valid=%v", r.Definition, r.Version, r.SkippedCEL, r.Valid())
		for _, x := range r.Violations {
			t.Logf("  %s %s [%s] exp=%q found=%q", x.Pos, x, x.Kind, x.Expected, x.Found)
		}
	}
}
