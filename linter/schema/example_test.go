package schema_test

import (
	"context"
	"fmt"
	"strings"

	lschema "github.com/xpkgkit/xpkgkit/linter/schema"
	"github.com/xpkgkit/xpkgkit/parser"
)

const exampleDefinitions = `apiVersion: apiextensions.crossplane.io/v2
kind: CompositeResourceDefinition
metadata:
  name: apps.example.org
spec:
  group: example.org
  names:
    kind: App
    plural: apps
  versions:
  - name: v1
    served: true
    referenceable: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [image]
            properties:
              image:
                type: string
              replicas:
                type: integer
`

const exampleObjects = `apiVersion: example.org/v1
kind: App
metadata:
  name: web
spec:
  image: nginx
  replicas: "3"
  crossplane:
    compositionRef:
      name: apps
  colour: blue
`

// A registry builds a Validator once from a package's definitions and
// validates any number of objects with it, concurrently if it likes.
func Example() {
	ctx := context.Background()
	defs, err := parser.Parse(ctx, strings.NewReader(exampleDefinitions), parser.WithFile("package.yaml"))
	if err != nil {
		fmt.Println(err)
		return
	}
	v := lschema.New(defs.Objects)

	objs, err := parser.Parse(ctx, strings.NewReader(exampleObjects), parser.WithFile("app.yaml"))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, o := range objs.Objects {
		r, err := v.ValidateObject(ctx, o)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(r.Definition, "version", r.GVK.Version, "valid:", r.Valid())
		for _, x := range r.Violations {
			fmt.Printf("%s: %s (%s)\n", x.Pos, x, x.Kind)
		}
	}
	// Output:
	// CompositeResourceDefinition "apps.example.org" (composite resource) version v1 valid: false
	// app.yaml:11:3: spec.colour: unknown field: the API server prunes it (unknown-field)
	// app.yaml:7:3: spec.replicas: want integer, found string (type)
}
