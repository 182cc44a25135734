package schemaparity

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/linter/apiserver"
	"github.com/xpkgkit/xpkgkit/linter/rules"
	"github.com/xpkgkit/xpkgkit/linter/schema"
	"github.com/xpkgkit/xpkgkit/parser"
)

// celObjectCase is an object validated against the CRDs of crds with
// linter/schema and the apiserver CEL extension (what XP408 and XP409
// run), and by ReferenceCEL.
type celObjectCase struct {
	name  string
	crds  []byte
	obj   map[string]any
	valid bool
	// wantCEL, when set, is the CEL violation the API server reports,
	// "field: message", which ours must report too.
	wantCEL string
}

// storageSchema returns the group, storage (else first) version, kind and
// openAPIV3Schema of a CRD document.
func storageSchema(t testing.TB, doc []byte) (group, version, kind string, s map[string]any) {
	t.Helper()
	var crd map[string]any
	if err := yaml.Unmarshal(doc, &crd); err != nil {
		t.Fatal(err)
	}
	spec := crd["spec"].(map[string]any)
	group = spec["group"].(string)
	kind = spec["names"].(map[string]any)["kind"].(string)
	vs := spec["versions"].([]any)
	pick := vs[0].(map[string]any)
	for _, v := range vs {
		if vm := v.(map[string]any); vm["storage"] == true {
			pick = vm
		}
	}
	return group, pick["name"].(string), kind, pick["schema"].(map[string]any)["openAPIV3Schema"].(map[string]any)
}

// minimal returns the smallest value the OpenAPI schema s accepts,
// required fields filled in.
func minimal(s map[string]any) any {
	if enum, ok := s["enum"].([]any); ok && len(enum) > 0 {
		return enum[0]
	}
	if d, ok := s["default"]; ok {
		return normalize(deepCopy(d))
	}
	switch s["type"] {
	case "object":
		out := map[string]any{}
		props, _ := s["properties"].(map[string]any)
		req, _ := s["required"].([]any)
		for _, r := range req {
			p, _ := props[r.(string)].(map[string]any)
			out[r.(string)] = minimal(p)
		}
		return out
	case "array":
		if n, _ := s["minItems"].(float64); n > 0 {
			items, _ := s["items"].(map[string]any)
			return []any{minimal(items)}
		}
		return []any{}
	case "integer", "number":
		if m, ok := s["minimum"].(float64); ok && m > 1 {
			return int64(m)
		}
		return int64(1)
	case "boolean":
		return true
	}
	return "x"
}

var requiredParam = regexp.MustCompile(`^spec\.forProvider\.([A-Za-z0-9]+) is a required parameter$`)

// upjetCELCases draws four objects for each upjet CRD: every required
// parameter set (valid), the first one missing (refused), none with
// Observe-only management policies (valid), and the first one in
// initProvider only (valid).
func upjetCELCases(t testing.TB) []celObjectCase {
	t.Helper()
	var out []celObjectCase
	for _, doc := range upjetCRDs(t, 40, 40) {
		group, version, kind, s := storageSchema(t, doc)
		specS := s["properties"].(map[string]any)["spec"].(map[string]any)
		var params []string
		rules, _ := specS["x-kubernetes-validations"].([]any)
		for _, r := range rules {
			msg, _ := r.(map[string]any)["message"].(string)
			if m := requiredParam.FindStringSubmatch(msg); m != nil {
				params = append(params, m[1])
			}
		}
		if len(params) == 0 {
			continue
		}
		fp := specS["properties"].(map[string]any)["forProvider"].(map[string]any)
		fprops := fp["properties"].(map[string]any)
		base := func() map[string]any {
			spec := minimal(specS).(map[string]any)
			if _, ok := spec["forProvider"]; !ok {
				spec["forProvider"] = minimal(fp)
			}
			return map[string]any{"apiVersion": group + "/" + version, "kind": kind, "metadata": map[string]any{"name": "example"}, "spec": spec}
		}
		forProvider := func(o map[string]any) map[string]any {
			return o["spec"].(map[string]any)["forProvider"].(map[string]any)
		}
		all := base()
		for _, p := range params {
			forProvider(all)[p] = minimal(fprops[p].(map[string]any))
		}
		missing := base()
		for _, p := range params[1:] {
			forProvider(missing)[p] = minimal(fprops[p].(map[string]any))
		}
		observe := base()
		observe["spec"].(map[string]any)["managementPolicies"] = []any{"Observe"}
		initP := deepCopy(missing).(map[string]any)
		ip, _ := specS["properties"].(map[string]any)["initProvider"].(map[string]any)
		iprops, _ := ip["properties"].(map[string]any)
		ps, _ := iprops[params[0]].(map[string]any)
		if ps == nil {
			continue // a parameter initProvider does not take
		}
		init := minimal(ip).(map[string]any)
		init[params[0]] = minimal(ps)
		initP["spec"].(map[string]any)["initProvider"] = init
		name := kind + "." + group + "/" + version
		out = append(out,
			celObjectCase{name: "upjet/" + name + "/all required", crds: doc, obj: all, valid: true},
			celObjectCase{name: "upjet/" + name + "/" + params[0] + " missing", crds: doc, obj: missing, valid: false,
				wantCEL: "spec: spec.forProvider." + params[0] + " is a required parameter"},
			celObjectCase{name: "upjet/" + name + "/observe only", crds: doc, obj: observe, valid: true},
			celObjectCase{name: "upjet/" + name + "/initProvider", crds: doc, obj: initP, valid: true},
		)
	}
	return out
}

// projectObjects are objects of the CRDs of testdata/crds/projects.yaml.
var projectObjects = []struct {
	name, obj string
	valid     bool
	wantCEL   string
}{
	{"route default rules", `{apiVersion: net.example.org/v1, kind: Route, metadata: {name: r}, spec: {hostnames: [a.example.org]}}`, true, ""},
	{"route duplicate hostnames", `{apiVersion: net.example.org/v1, kind: Route, metadata: {name: r}, spec: {hostnames: [a.example.org, a.example.org]}}`, false, "spec: hostnames must be unique"},
	{"route relative path", `{apiVersion: net.example.org/v1, kind: Route, metadata: {name: r}, spec: {rules: [{matches: [{path: {type: Exact, value: foo}}]}]}}`, false, "spec.rules[0].matches[0].path: value must be an absolute path"},
	{"route double slash", `{apiVersion: net.example.org/v1, kind: Route, metadata: {name: r}, spec: {rules: [{matches: [{path: {value: /a//b}}]}]}}`, false, "spec.rules[0].matches[0].path: must not contain '//'"},
	{"route regex path", `{apiVersion: net.example.org/v1, kind: Route, metadata: {name: r}, spec: {rules: [{matches: [{path: {type: RegularExpression, value: "a.*"}}]}]}}`, true, ""},
	{"route timeouts", `{apiVersion: net.example.org/v1, kind: Route, metadata: {name: r}, spec: {rules: [{timeouts: {request: 10s, backendRequest: 5s}}]}}`, true, ""},
	{"route backend timeout longer", `{apiVersion: net.example.org/v1, kind: Route, metadata: {name: r}, spec: {rules: [{timeouts: {request: 10s, backendRequest: 1m}}]}}`, false, "spec.rules[0].timeouts: backendRequest must be <= request"},
	{"route bad hostname", `{apiVersion: net.example.org/v1, kind: Route, metadata: {name: r}, spec: {hostnames: [A_B]}}`, false, ""},
	{"certificate", `{apiVersion: pki.example.org/v1, kind: Certificate, metadata: {name: c, namespace: n}, spec: {secretName: s, issuerRef: {name: i}, dnsNames: [a.example.org]}}`, true, ""},
	{"certificate without names", `{apiVersion: pki.example.org/v1, kind: Certificate, metadata: {name: c}, spec: {secretName: s, issuerRef: {name: i}}}`, false, "spec: at least one of commonName, dnsNames or ipAddresses"},
	{"certificate bad IP", `{apiVersion: pki.example.org/v1, kind: Certificate, metadata: {name: c}, spec: {secretName: s, issuerRef: {name: i}, ipAddresses: [10.0.0.300]}}`, false, "spec: every IP address must be valid"},
	{"certificate IPv6", `{apiVersion: pki.example.org/v1, kind: Certificate, metadata: {name: c}, spec: {secretName: s, issuerRef: {name: i}, ipAddresses: ["2001:db8::1"]}}`, true, ""},
	{"certificate renewBefore too long", `{apiVersion: pki.example.org/v1, kind: Certificate, metadata: {name: c}, spec: {secretName: s, issuerRef: {name: i}, commonName: a, duration: 1h, renewBefore: 2h}}`, false, "spec: renewBefore must be shorter than duration"},
	// messageExpression, fieldPath and reason.
	{"certificate RSA size", `{apiVersion: pki.example.org/v1, kind: Certificate, metadata: {name: c}, spec: {secretName: s, issuerRef: {name: i}, commonName: a, privateKey: {algorithm: RSA, size: 1024}}}`, false, "spec.privateKey.size: unsupported key size for RSA"},
	{"certificate ECDSA size", `{apiVersion: pki.example.org/v1, kind: Certificate, metadata: {name: c}, spec: {secretName: s, issuerRef: {name: i}, commonName: a, privateKey: {algorithm: ECDSA, size: 256}}}`, true, ""},
	{"certificate missing issuer blocks CEL", `{apiVersion: pki.example.org/v1, kind: Certificate, metadata: {name: c}, spec: {secretName: s}}`, false, ""},
	// Transition rules are not evaluated on create.
	{"cluster transition rules skipped", `{apiVersion: infra.example.org/v1, kind: Cluster, metadata: {name: c}, spec: {controlPlaneRef: {name: cp}, topology: {version: v1.30.1, workers: {machineDeployments: [{name: a, class: c}]}}}}`, true, ""},
	{"cluster bad version", `{apiVersion: infra.example.org/v1, kind: Cluster, metadata: {name: c}, spec: {topology: {version: "1.30"}}}`, false, "spec.topology.version: topology.version must be a semantic version with a leading v"},
	{"cluster duplicate deployment", `{apiVersion: infra.example.org/v1, kind: Cluster, metadata: {name: c}, spec: {topology: {version: v1.0.0, workers: {machineDeployments: [{name: a, class: c}, {name: a, class: d}]}}}}`, false, ""},
	{"cluster v1beta1 preserved", `{apiVersion: infra.example.org/v1beta1, kind: Cluster, metadata: {name: c}, spec: {anything: [1]}}`, true, ""},
	{"policy audit", `{apiVersion: policy.example.org/v1, kind: Policy, metadata: {name: p}, spec: {}}`, true, ""},
	{"policy enforce without match", `{apiVersion: policy.example.org/v1, kind: Policy, metadata: {name: p}, spec: {validationFailureAction: Enforce}}`, false, "spec.match: Enforce needs a match"},
	{"policy empty match", `{apiVersion: policy.example.org/v1, kind: Policy, metadata: {name: p}, spec: {validationFailureAction: Enforce, match: {}}}`, false, "spec.match: match needs kinds or a selector"},
	{"policy quantity", `{apiVersion: policy.example.org/v1, kind: Policy, metadata: {name: p}, spec: {limits: {memory: 1Gi}}}`, true, ""},
	{"policy quantity int", `{apiVersion: policy.example.org/v1, kind: Policy, metadata: {name: p}, spec: {limits: {memory: 1024}}}`, true, ""},
	{"policy bad quantity", `{apiVersion: policy.example.org/v1, kind: Policy, metadata: {name: p}, spec: {limits: {memory: lots}}}`, false, "spec.limits: memory must be a quantity"},
}

// costCRD holds twenty rules that the API server's estimates accept (per
// rule and per CRD), but whose cost at run time on a list of 500 integers
// overruns the per-call limit of the first rule.
func costCRD() []byte {
	var rules strings.Builder
	for i := range 20 {
		fmt.Fprintf(&rules, "                - rule: self.all(x, self.all(y, x + y != %d))\n", -1-i)
	}
	return []byte(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: grids.example.org
spec:
  group: example.org
  names: {kind: Grid, listKind: GridList, plural: grids, singular: grid}
  scope: Cluster
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              cells:
                type: array
                maxItems: 500
                items: {type: integer, minimum: 0, maximum: 1000}
                x-kubernetes-validations:
` + rules.String())
}

func cells(n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = int64(i % 1000)
	}
	return out
}

// crossplaneKindObjects are objects of Crossplane's kinds, validated
// against Crossplane v2.1.0's CRDs (what XP422 does for a package's
// objects), as the package manager sends them (sentAs); valid is the
// reference's verdict on what is sent.
var crossplaneKindObjects = []struct {
	name, obj string
	valid     bool
}{
	{"operation", `{apiVersion: ops.crossplane.io/v1alpha1, kind: Operation, metadata: {name: o}, spec: {mode: Pipeline, pipeline: [{step: a, functionRef: {name: f}}]}}`, true},
	{"operation without mode", `{apiVersion: ops.crossplane.io/v1alpha1, kind: Operation, metadata: {name: o}, spec: {pipeline: [{step: a, functionRef: {name: f}}]}}`, false},
	{"operation empty pipeline", `{apiVersion: ops.crossplane.io/v1alpha1, kind: Operation, metadata: {name: o}, spec: {mode: Pipeline, pipeline: []}}`, false},
	{"operation duplicate step", `{apiVersion: ops.crossplane.io/v1alpha1, kind: Operation, metadata: {name: o}, spec: {mode: Pipeline, pipeline: [{step: a, functionRef: {name: f}}, {step: a, functionRef: {name: g}}]}}`, false},
	{"operation functonRef typo", `{apiVersion: ops.crossplane.io/v1alpha1, kind: Operation, metadata: {name: o}, spec: {mode: Pipeline, pipeline: [{step: a, functonRef: {name: f}}]}}`, true},
	{"operation input without kind", `{apiVersion: ops.crossplane.io/v1alpha1, kind: Operation, metadata: {name: o}, spec: {mode: Pipeline, pipeline: [{step: a, functionRef: {name: f}, input: {apiVersion: x.fn.io/v1}}]}}`, false},
	{"operation secret credentials without ref", `{apiVersion: ops.crossplane.io/v1alpha1, kind: Operation, metadata: {name: o}, spec: {mode: Pipeline, pipeline: [{step: a, functionRef: {name: f}, credentials: [{name: c, source: Secret}]}]}}`, true},
	{"cron operation", `{apiVersion: ops.crossplane.io/v1alpha1, kind: CronOperation, metadata: {name: o}, spec: {schedule: "0 * * * *", operationTemplate: {spec: {mode: Pipeline, pipeline: [{step: a, functionRef: {name: f}}]}}}}`, true},
	{"cron operation without schedule", `{apiVersion: ops.crossplane.io/v1alpha1, kind: CronOperation, metadata: {name: o}, spec: {operationTemplate: {spec: {mode: Pipeline, pipeline: [{step: a, functionRef: {name: f}}]}}}}`, true},
	{"composition", `{apiVersion: apiextensions.crossplane.io/v1, kind: Composition, metadata: {name: c}, spec: {compositeTypeRef: {apiVersion: example.org/v1, kind: XR}, mode: Pipeline, pipeline: [{step: a, functionRef: {name: f}}]}}`, true},
	{"composition compositTypeRef typo", `{apiVersion: apiextensions.crossplane.io/v1, kind: Composition, metadata: {name: c}, spec: {compositTypeRef: {apiVersion: example.org/v1, kind: XR}, mode: Pipeline, pipeline: [{step: a, functionRef: {name: f}}]}}`, true},
	{"composition empty pipeline", `{apiVersion: apiextensions.crossplane.io/v1, kind: Composition, metadata: {name: c}, spec: {compositeTypeRef: {apiVersion: example.org/v1, kind: XR}, mode: Pipeline, pipeline: []}}`, false},
	{"composition duplicate step", `{apiVersion: apiextensions.crossplane.io/v1, kind: Composition, metadata: {name: c}, spec: {compositeTypeRef: {apiVersion: example.org/v1, kind: XR}, mode: Pipeline, pipeline: [{step: a, functionRef: {name: f}}, {step: a, functionRef: {name: f}}]}}`, false},
	{"composition input without kind", `{apiVersion: apiextensions.crossplane.io/v1, kind: Composition, metadata: {name: c}, spec: {compositeTypeRef: {apiVersion: example.org/v1, kind: XR}, mode: Pipeline, pipeline: [{step: a, functionRef: {name: f}, input: {apiVersion: x.fn.io/v1}}]}}`, false},
	{"composition secret credentials without ref", `{apiVersion: apiextensions.crossplane.io/v1, kind: Composition, metadata: {name: c}, spec: {compositeTypeRef: {apiVersion: example.org/v1, kind: XR}, mode: Pipeline, pipeline: [{step: a, functionRef: {name: f}, credentials: [{name: c, source: Secret}]}]}}`, false},
	{"xrd v2", `{apiVersion: apiextensions.crossplane.io/v2, kind: CompositeResourceDefinition, metadata: {name: xbs.example.org}, spec: {group: example.org, names: {kind: XB, plural: xbs}, versions: [{name: v1, served: true, referenceable: true, schema: {openAPIV3Schema: {type: object}}}]}}`, true},
	{"xrd plural upper case", `{apiVersion: apiextensions.crossplane.io/v2, kind: CompositeResourceDefinition, metadata: {name: xbs.example.org}, spec: {group: example.org, names: {kind: XB, plural: XBs}, versions: [{name: v1, served: true, referenceable: true, schema: {openAPIV3Schema: {type: object}}}]}}`, false},
	{"xrd v2 legacy cluster claims", `{apiVersion: apiextensions.crossplane.io/v2, kind: CompositeResourceDefinition, metadata: {name: xbs.example.org}, spec: {group: example.org, scope: LegacyCluster, names: {kind: XB, plural: xbs}, claimNames: {kind: B, plural: bs}, versions: [{name: v1, served: true, referenceable: true, schema: {openAPIV3Schema: {type: object}}}]}}`, false},
	{"xrd v2 cluster claims", `{apiVersion: apiextensions.crossplane.io/v2, kind: CompositeResourceDefinition, metadata: {name: xbs.example.org}, spec: {group: example.org, scope: Cluster, names: {kind: XB, plural: xbs}, claimNames: {kind: B, plural: bs}, versions: [{name: v1, served: true, referenceable: true, schema: {openAPIV3Schema: {type: object}}}]}}`, false},
	{"xrd v2 namespaced claims", `{apiVersion: apiextensions.crossplane.io/v2, kind: CompositeResourceDefinition, metadata: {name: xbs.example.org}, spec: {group: example.org, scope: Namespaced, names: {kind: XB, plural: xbs}, claimNames: {kind: B, plural: bs}, versions: [{name: v1, served: true, referenceable: true, schema: {openAPIV3Schema: {type: object}}}]}}`, false},
	{"xrd v1 namespaced claims", `{apiVersion: apiextensions.crossplane.io/v1, kind: CompositeResourceDefinition, metadata: {name: xbs.example.org}, spec: {group: example.org, scope: Namespaced, names: {kind: XB, plural: xbs}, claimNames: {kind: B, plural: bs}, versions: [{name: v1, served: true, referenceable: true, schema: {openAPIV3Schema: {type: object}}}]}}`, false},
	{"xrd v1 claims", `{apiVersion: apiextensions.crossplane.io/v1, kind: CompositeResourceDefinition, metadata: {name: xbs.example.org}, spec: {group: example.org, names: {kind: XB, plural: xbs}, claimNames: {kind: B, plural: bs}, versions: [{name: v1, served: true, referenceable: true, schema: {openAPIV3Schema: {type: object}}}]}}`, true},
}

// kindCRD returns the CRD of Crossplane v2.1.0 for a group and kind.
func kindCRD(t testing.TB, group, kind string) []byte {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(sharedDir(), "crossplane-crds", "v2.1.0", group+"_*.yaml"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte("\n    kind: "+kind+"\n")) {
			return b
		}
	}
	return nil
}

// celObjectCases returns every case of TestParityCELObjects.
func celObjectCases(t testing.TB) []celObjectCase {
	t.Helper()
	out := upjetCELCases(t)
	projects, err := os.ReadFile("testdata/crds/projects.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range projectObjects {
		var obj map[string]any
		if err := yaml.Unmarshal([]byte(c.obj), &obj); err != nil {
			t.Fatal(err)
		}
		out = append(out, celObjectCase{name: "projects/" + c.name, crds: projects, obj: normalize(obj).(map[string]any), valid: c.valid, wantCEL: c.wantCEL})
	}
	grid := func(n int) map[string]any {
		return map[string]any{"apiVersion": "example.org/v1", "kind": "Grid", "metadata": map[string]any{"name": "g"}, "spec": map[string]any{"cells": cells(n)}}
	}
	out = append(out,
		celObjectCase{name: "cost/within the runtime budget", crds: costCRD(), obj: grid(30), valid: true},
		celObjectCase{name: "cost/over the per-call limit", crds: costCRD(), obj: grid(500), valid: false,
			wantCEL: "spec.cells: 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: self.all(x, self.all(y, x + y != -1))"},
	)
	return out
}

// TestParityCELObjects compares the verdicts of linter/schema with the
// apiserver CEL extension (XP408's and XP409's validation) with the API
// server's on create (ReferenceCEL), and, where the table names one, that
// both report the CEL violation at the field the rule names, with its
// message.
func TestParityCELObjects(t *testing.T) {
	t.Parallel()
	cases := celObjectCases(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			gvk := c.obj["apiVersion"].(string) + "/" + c.obj["kind"].(string)
			var s any
			for _, d := range splitDocs(c.crds) {
				if !bytes.Contains(d, []byte("kind: CustomResourceDefinition")) {
					continue
				}
				var crd map[string]any
				if err := yaml.Unmarshal(d, &crd); err != nil {
					t.Fatal(err)
				}
				spec := crd["spec"].(map[string]any)
				kind := spec["names"].(map[string]any)["kind"].(string)
				for _, v := range spec["versions"].([]any) {
					vm := v.(map[string]any)
					if spec["group"].(string)+"/"+vm["name"].(string)+"/"+kind == gvk {
						s = vm["schema"].(map[string]any)["openAPIV3Schema"]
					}
				}
			}
			if s == nil {
				t.Fatalf("no schema for %s", gvk)
			}
			schemaErrs, celErrs, err := ReferenceCEL(s, deepCopy(c.obj).(map[string]any))
			if err != nil {
				t.Fatal(err)
			}
			var detail strings.Builder
			var refCEL []string
			for _, e := range schemaErrs {
				fmt.Fprintf(&detail, "  reference: %s\n", e.Error())
			}
			for _, e := range celErrs {
				fmt.Fprintf(&detail, "  reference CEL: %s\n", e.Error())
				detail := e.Detail
				if detail == "" {
					detail = e.Type.String() // a reason such as FieldValueDuplicate carries no detail
				}
				refCEL = append(refCEL, e.Field+": "+detail)
			}
			ref := len(schemaErrs)+len(celErrs) == 0
			// A Validator per case: the Extension's budget is per package.
			v := schema.New(mustObjects(t, c.crds), schema.WithExtension(apiserver.CEL()))
			res, err := v.Validate(context.Background(), deepCopy(c.obj).(map[string]any))
			if err != nil {
				t.Fatal(err)
			}
			var oursCEL []string
			for _, x := range res.Violations {
				fmt.Fprintf(&detail, "  ours: %s\n", x.String())
				if x.Kind == schema.KindCEL {
					oursCEL = append(oursCEL, x.Field()+": "+x.Message)
				}
			}
			if ref != c.valid {
				t.Errorf("the reference says valid=%v, the table %v:\n%s", ref, c.valid, detail.String())
			}
			if res.Valid() != ref {
				t.Errorf("ours valid=%v, reference valid=%v:\n%s", res.Valid(), ref, detail.String())
			}
			sort.Strings(refCEL)
			sort.Strings(oursCEL)
			if ref != c.valid || res.Valid() != ref {
				return
			}
			if !slices.Equal(refCEL, oursCEL) {
				t.Errorf("CEL violations differ:\n  ours %q\n  reference %q", oursCEL, refCEL)
			}
			if c.wantCEL != "" && !slices.Contains(refCEL, c.wantCEL) {
				t.Errorf("want CEL violation %q, reference has %q", c.wantCEL, refCEL)
			}
		})
	}
	t.Logf("%d cases", len(cases))
}

// TestParityCrossplaneKinds compares XP422's verdict (with XP406's, on
// XRD claims) on objects of Crossplane's kinds (target v2.1) with the API server's on create
// against Crossplane v2.1.0's CRDs (ReferenceCEL).
// sentAs are the objects of crossplaneKindObjects (by name) that the
// package manager does not send as written: it decodes them into
// Crossplane v2.1.0's Go types and creates those (a field without
// omitempty arrives as its zero value, an unknown field is dropped). The
// reference validates these; internal/xpparity's TestInstallParity
// derives the same from Crossplane's own types.
var sentAs = map[string]string{
	// apis/ops/v1alpha1/operation_types.go: Mode OperationMode `json:"mode"`.
	"operation without mode": `{apiVersion: ops.crossplane.io/v1alpha1, kind: Operation, metadata: {name: o}, spec: {mode: "", pipeline: [{step: a, functionRef: {name: f}}]}}`,
	// PipelineStep.FunctionRef FunctionReference `json:"functionRef"`, Name string `json:"name"`.
	"operation functonRef typo": `{apiVersion: ops.crossplane.io/v1alpha1, kind: Operation, metadata: {name: o}, spec: {mode: Pipeline, pipeline: [{step: a, functionRef: {name: ""}}]}}`,
	// apis/ops/v1alpha1/cronoperation_types.go: Schedule string `json:"schedule"`.
	"cron operation without schedule": `{apiVersion: ops.crossplane.io/v1alpha1, kind: CronOperation, metadata: {name: o}, spec: {schedule: "", operationTemplate: {spec: {mode: Pipeline, pipeline: [{step: a, functionRef: {name: f}}]}}}}`,
	// apis/apiextensions/v1: CompositeTypeRef TypeReference `json:"compositeTypeRef"`.
	"composition compositTypeRef typo": `{apiVersion: apiextensions.crossplane.io/v1, kind: Composition, metadata: {name: c}, spec: {compositeTypeRef: {apiVersion: "", kind: ""}, mode: Pipeline, pipeline: [{step: a, functionRef: {name: f}}]}}`,
}

func TestParityCrossplaneKinds(t *testing.T) {
	t.Parallel()
	if len(crossplaneCRDs(t)) == 0 {
		t.Skip("../shared/crossplane-crds not found")
	}
	for _, c := range crossplaneKindObjects {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var obj map[string]any
			if err := yaml.Unmarshal([]byte(c.obj), &obj); err != nil {
				t.Fatal(err)
			}
			obj = normalize(obj).(map[string]any)
			group, version, _ := strings.Cut(obj["apiVersion"].(string), "/")
			crd := kindCRD(t, group, obj["kind"].(string))
			if crd == nil {
				t.Fatalf("no CRD for %s", obj["kind"])
			}
			var s any
			var m map[string]any
			if err := yaml.Unmarshal(crd, &m); err != nil {
				t.Fatal(err)
			}
			for _, v := range m["spec"].(map[string]any)["versions"].([]any) {
				if vm := v.(map[string]any); vm["name"] == version {
					s = vm["schema"].(map[string]any)["openAPIV3Schema"]
				}
			}
			sent := obj
			if y, ok := sentAs[c.name]; ok {
				var m map[string]any
				if err := yaml.Unmarshal([]byte(y), &m); err != nil {
					t.Fatal(err)
				}
				sent = normalize(m).(map[string]any)
			}
			schemaErrs, celErrs, err := ReferenceCEL(s, deepCopy(sent).(map[string]any))
			if err != nil {
				t.Fatal(err)
			}
			var detail strings.Builder
			for _, e := range append(schemaErrs, celErrs...) {
				fmt.Fprintf(&detail, "  reference: %s\n", e.Error())
			}
			ref := len(schemaErrs)+len(celErrs) == 0
			doc, _ := yaml.Marshal(obj)
			pkg := mustParse(t, doc)
			// XP422 with XP406, which reports the XRD CRD's rules on
			// claims and connection secrets that XP422 leaves to it.
			res, err := linter.Lint(context.Background(), pkg, linter.WithRuleSet(rules.Builtin()...), linter.WithRuleSet(apiserver.Rules()[2], rules.Lookup("XP406")), linter.WithCrossplaneVersion("v2.1.0"))
			if err != nil {
				t.Fatal(err)
			}
			ours := true
			for _, d := range res.Diagnostics {
				fmt.Fprintf(&detail, "  ours: %s %s\n", d.RuleID, d.Message)
				if d.Severity == linter.SeverityError {
					ours = false
				}
			}
			if ref != c.valid {
				t.Errorf("the reference says valid=%v, the table %v:\n%s", ref, c.valid, detail.String())
			}
			if ours != ref {
				t.Errorf("XP422 valid=%v, reference valid=%v:\n%s", ours, ref, detail.String())
			}
		})
	}
}

func mustParse(t testing.TB, doc []byte) *parser.Package {
	t.Helper()
	pkg, err := parser.Parse(context.Background(), bytes.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	return pkg
}
