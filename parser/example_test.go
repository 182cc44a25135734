package parser_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing/fstest"

	"github.com/xpkgkit/xpkgkit/parser"
)

const exampleStream = `apiVersion: meta.pkg.crossplane.io/v1
kind: Configuration
metadata:
  name: platform
spec:
  crossplane:
    version: ">=v1.20.0"
---
apiVersion: apiextensions.crossplane.io/v1
kind: CompositeResourceDefinition
metadata:
  name: xclusters.example.org
spec:
  group: example.org
---
- not an object
`

func ExampleParse() {
	pkg, err := parser.Parse(context.Background(), strings.NewReader(exampleStream), parser.WithFile("package.yaml"))
	if err != nil {
		fmt.Println(err)
		return
	}
	m := pkg.Pkg()
	fmt.Println(m.GetObjectKind().GroupVersionKind().Kind, m.GetName(), m.GetCrossplaneConstraints().Version)
	for _, o := range pkg.Objects {
		fmt.Println(o.Pos, o.Kind, o.ObjectMeta.Name)
		spec := o.Outline()["spec"].(map[string]any)
		fmt.Println("group:", spec["group"])
		pos, _ := o.FieldPosition("spec", "group")
		fmt.Println("spec.group at", pos)
	}
	for _, e := range pkg.Errors {
		fmt.Println(e, errors.Is(e, parser.ErrNotObject))
	}
	// Output:
	// Configuration platform >=v1.20.0
	// package.yaml:9:1 CompositeResourceDefinition xclusters.example.org
	// group: example.org
	// spec.group at package.yaml:14:3
	// package.yaml:16:1: document 2: document is not an object: found a sequence true
}

func ExampleParseFS() {
	fsys := fstest.MapFS{
		"crossplane.yaml": {Data: []byte("apiVersion: meta.pkg.crossplane.io/v1\nkind: Function\nmetadata:\n  name: function-example\n")},
		"input/crd.yaml": {Data: []byte("---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n" +
			"metadata:\n  name: inputs.fn.example.org\n")},
		"examples/xr.yaml": {Data: []byte("apiVersion: example.org/v1\nkind: XR\n")}, // not part of the package
	}
	pkg, err := parser.ParseFS(context.Background(), fsys)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(pkg.Meta[0].Pos, pkg.Meta[0].Kind)
	for _, o := range pkg.Objects {
		fmt.Println(o.Pos, o.Kind, o.ObjectMeta.Name)
	}
	// Output:
	// crossplane.yaml:1:1 Function
	// input/crd.yaml:2:1 CustomResourceDefinition inputs.fn.example.org
}

func ExamplePackageFiles() {
	fsys := fstest.MapFS{
		"z.yml":                 {Data: []byte("apiVersion: v1\nkind: ConfigMap\n")},
		"crds/b.yaml":           {Data: []byte("apiVersion: v1\nkind: ConfigMap\n")},
		"crds/a.yaml":           {Data: []byte("apiVersion: v1\nkind: ConfigMap\n")},
		"crossplane.yaml":       {Data: []byte("apiVersion: meta.pkg.crossplane.io/v1\nkind: Provider\n")},
		"README.md":             {Data: []byte("# not YAML\n")},
		".github/workflow.yaml": {Data: []byte("on: push\n")},                        // hidden directory
		"examples/xr.yaml":      {Data: []byte("apiVersion: v1\nkind: ConfigMap\n")}, // examples are not the package
		"link.yaml":             {Data: []byte("crds/a.yaml"), Mode: fs.ModeSymlink}, // not followed
	}
	files, err := parser.PackageFiles(fsys)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range files {
		fmt.Println(f)
	}
	// Output:
	// crossplane.yaml
	// crds/a.yaml
	// crds/b.yaml
	// z.yml
}

func ExampleNewSplitter() {
	s := parser.NewSplitter(strings.NewReader("a: 1\n--- # second\n# comment\nb: 2\n---\n"))
	for {
		doc, err := s.Next()
		if err != nil {
			break // io.EOF at the end
		}
		fmt.Printf("document %d at line %d, empty %v: %q\n", doc.Pos.Document, doc.Pos.Line, doc.Empty, doc.Data)
	}
	// Output:
	// document 0 at line 1, empty false: "a: 1\n"
	// document 1 at line 4, empty false: "# comment\nb: 2\n"
	// document 2 at line 5, empty true: ""
}
