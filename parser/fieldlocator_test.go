package parser_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/parser"
)

// TestFieldLocatorUnstructured checks that a locator's content is the
// object's, and that its positions hold.
func TestFieldLocatorUnstructured(t *testing.T) {
	t.Parallel()
	const doc = "apiVersion: example.org/v1\nkind: Bucket\nmetadata:\n  name: b\nspec:\n  size: 10\n  tags: [a, b]\n"
	p, err := parser.Parse(context.Background(), strings.NewReader(doc), parser.WithFile("b.yaml"))
	if err != nil || len(p.Objects) != 1 {
		t.Fatalf("%v %v", err, p)
	}
	o := p.Objects[0]
	l, err := o.FieldLocator()
	if err != nil {
		t.Fatal(err)
	}
	got, err := l.Unstructured()
	if err != nil {
		t.Fatal(err)
	}
	want, err := o.Unstructured()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Object, want.Object) {
		t.Errorf("content %v, want %v", got.Object, want.Object)
	}
	if pos, err := l.FieldPosition("spec", "tags"); err != nil || pos.Line != 7 {
		t.Errorf("spec.tags at %v (%v), want line 7", pos, err)
	}
}
