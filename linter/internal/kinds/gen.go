//go:build ignore

// gen writes kinds.json: the schemas of the kinds a Crossplane package may
// hold, as data. Crossplane's kinds come from Crossplane's own CRDs (a
// directory of cluster/crds, -crds, as fetch-crds.sh writes); Kubernetes' kinds from Kubernetes'
// published OpenAPI (api/openapi-spec in the k8s.io/kubernetes module, found
// with `go mod download`): v3 for apiextensions.k8s.io/v1 and
// admissionregistration.k8s.io/v1, and the last release that served
// apiextensions.k8s.io/v1beta1 for that version. Descriptions are dropped;
// everything else is kept as published, except that an allOf holding a
// single $ref is replaced by the $ref.
//
//	sh fetch-crds.sh /tmp/crds
//	go run gen.go -crds /tmp/crds/v2.1.0 -crossplane v2.1.0
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"
)

var crossplaneFiles = []string{
	"apiextensions.crossplane.io_compositeresourcedefinitions.yaml",
	"apiextensions.crossplane.io_compositions.yaml",
	"apiextensions.crossplane.io_managedresourcedefinitions.yaml",
	"apiextensions.crossplane.io_managedresourceactivationpolicies.yaml",
	"ops.crossplane.io_operations.yaml",
	"ops.crossplane.io_cronoperations.yaml",
	"ops.crossplane.io_watchoperations.yaml",
}

type kind struct {
	Group       string         `json:"group"`
	Version     string         `json:"version"`
	Kind        string         `json:"kind"`
	Source      string         `json:"source"`
	Schema      any            `json:"schema"`
	Definitions map[string]any `json:"definitions,omitempty"`
}

type file struct {
	Crossplane string `json:"crossplane"`
	Kubernetes string `json:"kubernetes"`
	// KubernetesV1beta1 is the Kubernetes release apiextensions.k8s.io/v1beta1 comes from.
	KubernetesV1beta1 string `json:"kubernetesV1beta1"`
	Kinds             []kind `json:"kinds"`
}

func main() {
	crds := flag.String("crds", "", "directory of Crossplane's CRDs (fetch-crds.sh DIR, then DIR/v2.1.0)")
	xpVersion := flag.String("crossplane", "v2.1.0", "Crossplane version of -crds")
	k8s := flag.String("kubernetes", "v1.37.2", "k8s.io/kubernetes module version for apiextensions.k8s.io/v1 and admissionregistration.k8s.io/v1")
	k8sBeta := flag.String("kubernetes-v1beta1", "v1.21.14", "k8s.io/kubernetes module version for apiextensions.k8s.io/v1beta1")
	out := flag.String("o", "kinds.json", "output")
	flag.Parse()
	if *crds == "" {
		log.Fatal("-crds is required: fetch the CRDs with sh fetch-crds.sh DIR")
	}

	f := file{Crossplane: *xpVersion, Kubernetes: *k8s, KubernetesV1beta1: *k8sBeta}
	for _, name := range crossplaneFiles {
		b, err := os.ReadFile(filepath.Join(*crds, name))
		if err != nil {
			log.Fatal(err)
		}
		var crd map[string]any
		if err := yaml.Unmarshal(b, &crd); err != nil {
			log.Fatalf("%s: %v", name, err)
		}
		spec := crd["spec"].(map[string]any)
		group := spec["group"].(string)
		k := spec["names"].(map[string]any)["kind"].(string)
		for _, v := range spec["versions"].([]any) {
			vm := v.(map[string]any)
			s := vm["schema"].(map[string]any)["openAPIV3Schema"]
			f.Kinds = append(f.Kinds, kind{
				Group: group, Version: vm["name"].(string), Kind: k,
				Source: "crossplane " + *xpVersion + " cluster/crds/" + name,
				Schema: strip(s),
			})
		}
	}

	dir := moduleDir(*k8s)
	v3 := func(name string) map[string]any {
		return readJSON(filepath.Join(dir, "api", "openapi-spec", "v3", name))["components"].(map[string]any)["schemas"].(map[string]any)
	}
	ext := v3("apis__apiextensions.k8s.io__v1_openapi.json")
	adm := v3("apis__admissionregistration.k8s.io__v1_openapi.json")
	f.Kinds = append(f.Kinds,
		openAPIKind("apiextensions.k8s.io", "v1", "CustomResourceDefinition", "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition", ext,
			"kubernetes "+*k8s+" api/openapi-spec/v3/apis__apiextensions.k8s.io__v1_openapi.json"),
		openAPIKind("admissionregistration.k8s.io", "v1", "ValidatingWebhookConfiguration", "io.k8s.api.admissionregistration.v1.ValidatingWebhookConfiguration", adm,
			"kubernetes "+*k8s+" api/openapi-spec/v3/apis__admissionregistration.k8s.io__v1_openapi.json"),
		openAPIKind("admissionregistration.k8s.io", "v1", "MutatingWebhookConfiguration", "io.k8s.api.admissionregistration.v1.MutatingWebhookConfiguration", adm,
			"kubernetes "+*k8s+" api/openapi-spec/v3/apis__admissionregistration.k8s.io__v1_openapi.json"),
	)
	swagger := readJSON(filepath.Join(moduleDir(*k8sBeta), "api", "openapi-spec", "swagger.json"))["definitions"].(map[string]any)
	f.Kinds = append(f.Kinds, openAPIKind("apiextensions.k8s.io", "v1beta1", "CustomResourceDefinition",
		"io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1beta1.CustomResourceDefinition", swagger,
		"kubernetes "+*k8sBeta+" api/openapi-spec/swagger.json"))

	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", " ")
	if err := enc.Encode(f); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, buf.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
}

func moduleDir(version string) string {
	cmd := exec.Command("go", "mod", "download", "-json", "k8s.io/kubernetes@"+version)
	cmd.Stderr = os.Stderr
	b, err := cmd.Output()
	if err != nil {
		log.Fatalf("go mod download k8s.io/kubernetes@%s: %v", version, err)
	}
	var m struct{ Dir string }
	if err := json.Unmarshal(b, &m); err != nil || m.Dir == "" {
		log.Fatalf("go mod download k8s.io/kubernetes@%s: no directory (%v)", version, err)
	}
	return m.Dir
}

func readJSON(path string) map[string]any {
	b, err := os.ReadFile(path)
	if err != nil {
		log.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		log.Fatalf("%s: %v", path, err)
	}
	return m
}

// openAPIKind returns the kind rooted at definition root, with the
// definitions it reaches.
func openAPIKind(group, version, k, root string, defs map[string]any, source string) kind {
	reached := map[string]any{}
	var visit func(name string)
	visit = func(name string) {
		if _, ok := reached[name]; ok {
			return
		}
		d, ok := defs[name]
		if !ok {
			log.Fatalf("%s: no definition %s", source, name)
		}
		s := strip(d)
		reached[name] = s
		for _, r := range refs(s) {
			visit(r)
		}
	}
	visit(root)
	rootSchema := reached[root]
	delete(reached, root)
	// The root may be reached again through a cycle: keep it as a definition too.
	for _, r := range refs(rootSchema) {
		_ = r
	}
	reached[root] = rootSchema
	return kind{Group: group, Version: version, Kind: k, Source: source,
		Schema: map[string]any{"$ref": "#/definitions/" + root}, Definitions: reached}
}

// refs lists the definitions s refers to.
func refs(s any) []string {
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if r, ok := x["$ref"].(string); ok {
				out = append(out, r[strings.LastIndex(r, "/")+1:])
			}
			for _, e := range x {
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(s)
	sort.Strings(out)
	return out
}

// strip drops descriptions (and the OpenAPI keys that do not validate) from
// a schema and replaces an allOf of a single $ref by the $ref.
func strip(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	out := map[string]any{}
	for k, e := range m {
		switch k {
		case "description", "x-kubernetes-patch-merge-key", "x-kubernetes-patch-strategy", "x-kubernetes-group-version-kind", "x-kubernetes-unions", "example":
			continue
		case "properties", "patternProperties", "definitions":
			pm := map[string]any{}
			for name, p := range e.(map[string]any) {
				pm[name] = strip(p)
			}
			out[k] = pm
		case "items", "additionalProperties", "not", "additionalItems":
			out[k] = strip(e)
		case "allOf", "anyOf", "oneOf":
			l := e.([]any)
			nl := make([]any, len(l))
			for i, x := range l {
				nl[i] = strip(x)
			}
			out[k] = nl
		default:
			out[k] = e
		}
	}
	if l, ok := out["allOf"].([]any); ok && len(l) == 1 {
		if r, ok := l[0].(map[string]any)["$ref"]; ok && len(l[0].(map[string]any)) == 1 {
			delete(out, "allOf")
			delete(out, "default")
			if len(out) != 0 {
				fmt.Fprintf(os.Stderr, "allOf $ref with siblings %v dropped\n", keys(out))
			}
			return map[string]any{"$ref": r}
		}
	}
	return out
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
