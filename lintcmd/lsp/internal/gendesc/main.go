// Command gendesc writes the descriptions of the fields of Crossplane's
// kinds that a package may hold, from one release's CRDs (cluster/crds of
// github.com/crossplane/crossplane), as the gzip'd JSON the language
// server embeds: linter/schema embeds those schemas without their
// descriptions. go generate in lintcmd/lsp runs it over the module cache's
// copy of the release.
//
//	go run ./internal/gendesc -crds DIR -release v2.4.0 -o descriptions.json.gz
package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"sigs.k8s.io/yaml"
)

// files are the CRDs of the kinds a Configuration may hold.
var files = []string{
	"apiextensions.crossplane.io_compositeresourcedefinitions.yaml",
	"apiextensions.crossplane.io_compositions.yaml",
	"apiextensions.crossplane.io_managedresourcedefinitions.yaml",
	"apiextensions.crossplane.io_managedresourceactivationpolicies.yaml",
	"ops.crossplane.io_operations.yaml",
	"ops.crossplane.io_cronoperations.yaml",
	"ops.crossplane.io_watchoperations.yaml",
}

type out struct {
	Release string                       `json:"release"`
	Kinds   map[string]map[string]string `json:"kinds"` // "group/version/Kind" -> path -> description
}

func main() {
	dir := flag.String("crds", "", "directory of Crossplane's CRDs (cluster/crds)")
	release := flag.String("release", "", "the release the CRDs are of")
	o := flag.String("o", "descriptions.json.gz", "output file")
	flag.Parse()
	if err := run(*dir, *release, *o); err != nil {
		fmt.Fprintln(os.Stderr, "gendesc:", err)
		os.Exit(1)
	}
}

func run(dir, release, file string) error {
	res := out{Release: release, Kinds: map[string]map[string]string{}}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			return err
		}
		var crd struct {
			Spec struct {
				Group string `json:"group"`
				Names struct {
					Kind string `json:"kind"`
				} `json:"names"`
				Versions []struct {
					Name   string `json:"name"`
					Schema struct {
						OpenAPIV3Schema map[string]any `json:"openAPIV3Schema"`
					} `json:"schema"`
				} `json:"versions"`
			} `json:"spec"`
		}
		if err := yaml.Unmarshal(b, &crd); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		for _, v := range crd.Spec.Versions {
			m := map[string]string{}
			walk(v.Schema.OpenAPIV3Schema, "", m)
			res.Kinds[crd.Spec.Group+"/"+v.Name+"/"+crd.Spec.Names.Kind] = m
		}
	}
	j, err := json.Marshal(res) // maps are written in key order
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	zw.Write(j)
	if err := zw.Close(); err != nil {
		return err
	}
	return os.WriteFile(file, buf.Bytes(), 0o644)
}

// walk records the description of each field below s, by its path
// (properties by name, items as "[]", additionalProperties as "*").
func walk(s map[string]any, path string, m map[string]string) {
	if s == nil {
		return
	}
	if d, ok := s["description"].(string); ok && path != "" {
		m[path] = d
	}
	join := func(k string) string {
		if path == "" {
			return k
		}
		return path + "." + k
	}
	if props, ok := s["properties"].(map[string]any); ok {
		keys := make([]string, 0, len(props))
		for k := range props {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			p, _ := props[k].(map[string]any)
			walk(p, join(k), m)
		}
	}
	if it, ok := s["items"].(map[string]any); ok {
		walk(it, join("[]"), m)
	}
	if ap, ok := s["additionalProperties"].(map[string]any); ok {
		walk(ap, join("*"), m)
	}
}
