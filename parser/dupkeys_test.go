package parser

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestDuplicateKeysLastWins checks that a key given twice does not make the
// document an error (Crossplane's decoding accepts it): the last value wins
// in every view of the object, and each duplicate is recorded with its
// position and the earlier key's line.
func TestDuplicateKeysLastWins(t *testing.T) {
	t.Parallel()
	in := providerMeta + "---\n" + // lines 1-8
		"apiVersion: v1\nkind: X\nmetadata:\n  name: first\n  name: second\n" + // lines 9-13
		"spec:\n  a: 1\n  b: {c: 1, c: 2}\n  a: 3\n" // lines 14-17
	p := mustParse(t, in, WithFile("package.yaml"))
	if len(p.Errors) != 0 || len(p.Objects) != 1 {
		t.Fatalf("errors %v; want the object", p.Errors)
	}
	o := p.Objects[0]
	want := []DuplicateKey{
		{Key: "name", Pos: Position{File: "package.yaml", Document: 1, Line: 13, Column: 3, Offset: int64(strings.Index(in, "name: second"))}, FirstLine: 12},
		{Key: "c", Pos: Position{File: "package.yaml", Document: 1, Line: 16, Column: 13, Offset: int64(strings.Index(in, "c: 2"))}, FirstLine: 16},
		{Key: "a", Pos: Position{File: "package.yaml", Document: 1, Line: 17, Column: 3, Offset: int64(strings.Index(in, "a: 3"))}, FirstLine: 15},
	}
	if fmt.Sprint(o.DuplicateKeys) != fmt.Sprint(want) || o.MoreDuplicateKeys != 0 {
		t.Errorf("duplicate keys %+v (%d more), want %+v", o.DuplicateKeys, o.MoreDuplicateKeys, want)
	}
	if o.Name != "second" {
		t.Errorf("name %q, want the last one", o.Name)
	}
	u, err := o.Unstructured()
	if err != nil {
		t.Fatal(err)
	}
	spec := u.Object["spec"].(map[string]any)
	if spec["a"] != int64(3) || spec["b"].(map[string]any)["c"] != int64(2) {
		t.Errorf("spec %v, want the last values", spec)
	}
	if got := o.Outline()["spec"].(map[string]any)["a"]; got != int64(3) {
		t.Errorf("outline spec.a %v, want 3", got)
	}
}

// TestDuplicateKeysMeta checks last-wins in a typed meta object.
func TestDuplicateKeysMeta(t *testing.T) {
	t.Parallel()
	in := "apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata:\n  name: c\nspec:\n  crossplane:\n    version: \">=v1.0\"\n    version: \">=v2.0\"\n"
	p := mustParse(t, in)
	if len(p.Errors) != 0 || p.Pkg() == nil {
		t.Fatalf("errors %v", p.Errors)
	}
	if c := p.Pkg().GetCrossplaneConstraints(); c == nil || c.Version != ">=v2.0" {
		t.Errorf("constraints %+v, want the last version", c)
	}
	if d := p.Meta[0].DuplicateKeys; len(d) != 1 || d[0].Pos.Line != 8 || d[0].FirstLine != 7 {
		t.Errorf("duplicate keys %+v", d)
	}
}

// TestDuplicateKeysBounded checks that a flood of duplicates (in a mapping
// large enough for the map-based check) records at most maxDuplicateKeys
// and counts the rest, and that keys equal only once converted win last
// without a record.
func TestDuplicateKeysBounded(t *testing.T) {
	t.Parallel()
	in := "apiVersion: v1\nkind: X\nspec:\n" + strings.Repeat("  a: b\n", 250) + "  1: first\n  0x1: last\n"
	p := mustParse(t, in)
	if len(p.Errors) != 0 || len(p.Objects) != 1 {
		t.Fatalf("errors %v", p.Errors)
	}
	o := p.Objects[0]
	if len(o.DuplicateKeys) != maxDuplicateKeys || o.MoreDuplicateKeys != 249-maxDuplicateKeys {
		t.Errorf("%d recorded, %d more; want %d and %d", len(o.DuplicateKeys), o.MoreDuplicateKeys, maxDuplicateKeys, 249-maxDuplicateKeys)
	}
	if d := o.DuplicateKeys[0]; d.Pos.Line != 5 || d.FirstLine != 4 {
		t.Errorf("first duplicate %+v", d)
	}
	u, err := o.Unstructured()
	if err != nil {
		t.Fatal(err)
	}
	if got := u.Object["spec"].(map[string]any)["1"]; got != "last" {
		t.Errorf("spec[1] = %v, want the last value", got)
	}
}

// TestDuplicateKeysTypeAndPosition checks that apiVersion and kind given
// twice take their last value too, and that FieldPosition points at the key
// whose value wins.
func TestDuplicateKeysTypeAndPosition(t *testing.T) {
	t.Parallel()
	p := mustParse(t, "apiVersion: v1\nkind: First\nkind: Last\nspec:\n  a: 1\n  a: 2\n")
	if len(p.Objects) != 1 || p.Objects[0].Kind != "Last" {
		t.Fatalf("objects %v, errors %v; want kind Last", p.Objects, p.Errors)
	}
	pos, err := p.Objects[0].FieldPosition("spec", "a")
	if err != nil || pos.Line != 6 {
		t.Errorf("FieldPosition(spec.a) = %v, %v; want line 6", pos, err)
	}
	p = mustParse(t, "apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nkind: NotAKind\n")
	if len(p.Errors) != 1 || !errors.Is(p.Errors[0], ErrUnknownKind) {
		t.Errorf("errors %v; want the last kind, unknown", p.Errors)
	}
}
