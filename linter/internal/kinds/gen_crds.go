//go:build ignore

// gen_crds writes crds.json: Crossplane's own CustomResourceDefinitions of
// the kinds a package may hold (and of the package types a dependency
// creates), whole, for each release in -crds (one folder per release, as
// fetch-crds.sh writes), with their x-kubernetes-validations (CEL rules)
// kept and only descriptions (and the controller-gen version annotation) dropped. A CRD identical in several releases is stored once: releases
// map group/kind to the key of its content. A kind a release does not have
// (1.x has no ManagedResourceDefinition, no ops.crossplane.io) is left out of
// that release.
//
//	sh fetch-crds.sh /tmp/crds
//	go run gen_crds.go -crds /tmp/crds -releases v1.20.11,v2.0.2,v2.1.0,v2.2.4,v2.3.4,v2.4.0
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"io/fs"
	"log"
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/yaml"
)

var files = []string{
	"apiextensions.crossplane.io_compositeresourcedefinitions.yaml",
	"apiextensions.crossplane.io_compositions.yaml",
	"apiextensions.crossplane.io_compositionrevisions.yaml",
	"apiextensions.crossplane.io_managedresourcedefinitions.yaml",
	"apiextensions.crossplane.io_managedresourceactivationpolicies.yaml",
	"apiextensions.crossplane.io_usages.yaml",
	"ops.crossplane.io_operations.yaml",
	"ops.crossplane.io_cronoperations.yaml",
	"ops.crossplane.io_watchoperations.yaml",
	"pkg.crossplane.io_providers.yaml",
	"pkg.crossplane.io_configurations.yaml",
	"pkg.crossplane.io_functions.yaml",
}

type out struct {
	// Releases maps a release to "group/kind" to the key of its CRD.
	Releases map[string]map[string]string `json:"releases"`
	// CRDs maps a key to a CRD, as JSON.
	CRDs map[string]json.RawMessage `json:"crds"`
}

func main() {
	dir := flag.String("crds", "", "directory of one folder of CRDs per release (fetch-crds.sh)")
	releases := flag.String("releases", "v1.20.11,v2.0.2,v2.1.0,v2.2.4,v2.3.4,v2.4.0", "releases to embed")
	o := flag.String("o", "crds.json", "output")
	flag.Parse()
	if *dir == "" {
		log.Fatal("-crds is required: fetch the CRDs with sh fetch-crds.sh DIR")
	}
	res := out{Releases: map[string]map[string]string{}, CRDs: map[string]json.RawMessage{}}
	for _, rel := range strings.Split(*releases, ",") {
		res.Releases[rel] = map[string]string{}
		for _, name := range files {
			b, err := os.ReadFile(filepath.Join(*dir, rel, name))
			if errors.Is(err, fs.ErrNotExist) {
				continue // a kind this release does not have
			}
			if err != nil {
				log.Fatal(err)
			}
			var crd map[string]any
			if err := yaml.Unmarshal(b, &crd); err != nil {
				log.Fatalf("%s/%s: %v", rel, name, err)
			}
			spec := crd["spec"].(map[string]any)
			key := spec["group"].(string) + "/" + spec["names"].(map[string]any)["kind"].(string)
			// The controller-gen version that wrote the file is no part
			// of the schema (v2.4.0's CRDs differ from v2.3.4's in it).
			if md, ok := crd["metadata"].(map[string]any); ok {
				if a, ok := md["annotations"].(map[string]any); ok {
					delete(a, "controller-gen.kubebuilder.io/version")
					if len(a) == 0 {
						delete(md, "annotations")
					}
				}
			}
			j, err := json.Marshal(stripDescriptions(crd))
			if err != nil {
				log.Fatal(err)
			}
			sum := sha256.Sum256(j)
			h := hex.EncodeToString(sum[:8])
			res.CRDs[h] = j
			res.Releases[rel][key] = h
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	if err := enc.Encode(res); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*o, buf.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
}

// stripDescriptions drops every "description" string of a schema (the
// properties named description, whose values are schemas, stay).
func stripDescriptions(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			if k == "description" {
				if _, isString := e.(string); isString {
					continue
				}
			}
			m[k] = stripDescriptions(e)
		}
		return m
	case []any:
		s := make([]any, len(x))
		for i, e := range x {
			s[i] = stripDescriptions(e)
		}
		return s
	}
	return v
}
