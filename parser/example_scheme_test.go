package parser_test

import (
	"context"
	"fmt"
	"log"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/xpkgkit/xpkgkit/parser"
)

// Widget is a user's own Go type for the kind example.org/v1 Widget.
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		Size int `json:"size"`
	} `json:"spec"`
}

// DeepCopyObject makes Widget a runtime.Object.
func (w *Widget) DeepCopyObject() runtime.Object {
	c := *w
	w.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	return &c
}

// WithObjectScheme plugs in a scheme of the user's own types: objects of a
// kind it knows decode into their Go type, the others stay unstructured.
func ExampleWithObjectScheme() {
	scheme := runtime.NewScheme()
	scheme.AddKnownTypes(schema.GroupVersion{Group: "example.org", Version: "v1"}, &Widget{})

	stream := `apiVersion: meta.pkg.crossplane.io/v1
kind: Configuration
metadata:
  name: widgets
---
apiVersion: example.org/v1
kind: Widget
metadata:
  name: big
spec:
  size: 42
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
`
	pkg, err := parser.Parse(context.Background(), strings.NewReader(stream), parser.WithObjectScheme(scheme))
	if err != nil {
		log.Fatal(err)
	}
	for _, o := range pkg.Objects {
		obj, err := o.Decode()
		if err != nil {
			log.Fatal(err)
		}
		switch v := obj.(type) {
		case *Widget:
			fmt.Printf("%s: a *Widget of size %d\n", o.Name, v.Spec.Size)
		default:
			fmt.Printf("%s: %T\n", o.Name, v)
		}
	}
	// Output:
	// big: a *Widget of size 42
	// settings: *unstructured.Unstructured
}
