package parser

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/xpkgkit/xpkgkit/limit"
	"github.com/xpkgkit/xpkgkit/meta"
	metav1pkg "github.com/xpkgkit/xpkgkit/meta/v1"
	"github.com/xpkgkit/xpkgkit/meta/v1alpha1"
)

const providerMeta = `apiVersion: meta.pkg.crossplane.io/v1
kind: Provider
metadata:
  name: provider-test
spec:
  crossplane:
    version: ">=v1.14.0"
`

func mustParse(t *testing.T, in string, opts ...Option) *Package {
	t.Helper()
	p, err := Parse(context.Background(), strings.NewReader(in), opts...)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return p
}

// TestParseDocumentErrors checks that each kind of bad document becomes a
// positioned error of the right class, and that the documents around it
// still parse.
func TestParseDocumentErrors(t *testing.T) {
	t.Parallel()
	good := "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: after\n"
	cases := []struct {
		name     string
		doc      string // the bad document, placed after the meta object
		opts     []Option
		want     error
		line     int // line of the error in the stream (meta takes 7 lines and "---")
		contains string
	}{
		{name: "syntax error points at the line in the stream",
			doc:  "apiVersion: v1\nkind: X\nmetadata:\n  name: [unclosed\n",
			want: ErrSyntax, line: 12},
		{name: "bad indentation",
			doc:  "apiVersion: v1\nkind: X\n  bad: indent\n",
			want: ErrSyntax, line: 11},
		{name: "tab indentation",
			doc:  "apiVersion: v1\nkind: X\nspec:\n\tkey: v\n",
			want: ErrSyntax, line: 12},
		{name: "missing kind", doc: "apiVersion: v1\nmetadata: {}\n", want: ErrMissingType, line: 9, contains: "no kind"},
		{name: "missing apiVersion", doc: "kind: X\n", want: ErrMissingType, line: 9, contains: "no apiVersion"},
		{name: "kind not a string", doc: "apiVersion: v1\nkind: 5\n", want: ErrMissingType, line: 9},
		{name: "sequence document", doc: "- a\n- b\n", want: ErrNotObject, line: 9, contains: "sequence"},
		{name: "scalar document", doc: "just text\n", want: ErrNotObject, line: 9},
		{name: "null document", doc: "~\n", want: ErrNotObject, line: 9, contains: "null"},
		{name: "metadata of the wrong shape",
			doc:  "apiVersion: v1\nkind: X\nmetadata:\n  labels: [a]\n",
			want: ErrDecode, line: 12},
		{name: "unknown meta version",
			doc:  "apiVersion: meta.pkg.crossplane.io/v2\nkind: Provider\n",
			want: ErrUnknownKind, line: 9},
		{name: "meta object that does not fit its type",
			doc:  "apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nspec:\n  dependsOn: not-a-list\n",
			want: ErrDecode, line: 12, contains: `field spec.dependsOn is a string ("not-a-list"), but a Configuration wants a list there`},
		{name: "strict kinds without a scheme",
			doc:  "apiVersion: example.org/v1\nkind: Thing\n",
			opts: []Option{WithStrictKinds()}, want: ErrUnknownKind, line: 9},
		{name: "NaN has no JSON form",
			doc:  "apiVersion: v1\nkind: X\nspec:\n  n: .nan\n",
			want: ErrSyntax, line: 12},
		{name: "null key",
			doc:  "apiVersion: v1\nkind: X\nspec:\n  ~: 1\n",
			want: ErrSyntax, line: 12},
		{name: "unknown anchor",
			doc:  "apiVersion: v1\nkind: X\nspec: *nothing\n",
			want: ErrSyntax, line: 11},
		{name: "depth limit",
			doc:  "apiVersion: v1\nkind: X\nspec: " + strings.Repeat("[", 200) + strings.Repeat("]", 200) + "\n",
			want: limit.ErrExceeded, line: 11},
		{name: "alias cycle",
			doc:  "apiVersion: v1\nkind: X\nspec: &a [*a]\n",
			want: ErrSyntax, line: 11, contains: "contains itself"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			in := providerMeta + "---\n" + tc.doc + good
			if tc.opts != nil { // strict kinds refuse the ConfigMap too
				in = providerMeta + "---\n" + tc.doc
			}
			p := mustParse(t, in, append([]Option{WithFile("package.yaml")}, tc.opts...)...)
			if len(p.Errors) != 1 {
				t.Fatalf("got %d errors %v; want 1", len(p.Errors), p.Errors)
			}
			de := p.Errors[0]
			if !errors.Is(de, tc.want) {
				t.Errorf("error %v; want class %v", de, tc.want)
			}
			if de.Pos.Line != tc.line || de.Pos.Document != 1 || de.Pos.File != "package.yaml" {
				t.Errorf("error at %v (document %d); want line %d of document 1", de.Pos, de.Pos.Document, tc.line)
			}
			if lineStart := strings.Count(in[:min(int(de.Pos.Offset), len(in))], "\n") + 1; de.Pos.Offset < 0 || lineStart != de.Pos.Line {
				t.Errorf("offset %d is on line %d, not on line %d", de.Pos.Offset, lineStart, de.Pos.Line)
			}
			if tc.contains != "" && !strings.Contains(de.Error(), tc.contains) {
				t.Errorf("error %q does not say %q", de.Error(), tc.contains)
			}
			if len(p.Meta) != 1 || p.Pkg() == nil {
				t.Errorf("meta object lost: %d", len(p.Meta))
			}
			if tc.opts == nil && (len(p.Objects) != 1 || p.Objects[0].ObjectMeta.Name != "after") {
				t.Errorf("the document after the bad one was not parsed: %d objects", len(p.Objects))
			}
		})
	}
}

func TestParseFailFast(t *testing.T) {
	t.Parallel()
	in := providerMeta + "---\n- not an object\n---\nkind: NoVersion\n"
	p, err := Parse(context.Background(), strings.NewReader(in), WithFailFast())
	if p != nil || !errors.Is(err, ErrNotObject) {
		t.Fatalf("Parse = %v, %v; want the first error (ErrNotObject)", p, err)
	}
	var de *DocumentError
	if !errors.As(err, &de) || de.Pos.Document != 1 {
		t.Errorf("error %v is not the DocumentError of document 1", err)
	}
}

func TestParseContextCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Parse(ctx, strings.NewReader(providerMeta))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v; want context.Canceled", err)
	}
}

func TestParseLimitsAreFinal(t *testing.T) {
	t.Parallel()
	lim := DefaultLimits()
	lim.MaxDocuments = 3
	_, err := Parse(context.Background(), strings.NewReader(strings.Repeat("a: 1\n---\n", 5)), WithLimits(lim))
	var le *limit.Error
	if !errors.As(err, &le) || le.Limit != "MaxDocuments" {
		t.Fatalf("err = %v; want MaxDocuments", err)
	}
}

func TestParseDocumentTooLarge(t *testing.T) {
	t.Parallel()
	lim := DefaultLimits()
	lim.MaxDocumentBytes = 256
	in := providerMeta + "---\napiVersion: v1\nkind: Big\ndata: " + strings.Repeat("x", 1000) + "\n---\napiVersion: v1\nkind: Small\n"
	p := mustParse(t, in, WithLimits(lim))
	var le *limit.Error
	if len(p.Errors) != 1 || !errors.As(p.Errors[0], &le) || le.Limit != "MaxDocumentBytes" || p.Errors[0].Pos.Line != 9 {
		t.Fatalf("errors = %v; want one MaxDocumentBytes error at line 9", p.Errors)
	}
	if len(p.Objects) != 1 || p.Objects[0].Kind != "Small" {
		t.Errorf("objects = %d; want the small one", len(p.Objects))
	}
}

// TestParseAliasBomb parses a "billion laughs" document: expanded, it would
// hold 10^9 strings. It must fail with a limit error without expanding.
func TestParseAliasBomb(t *testing.T) {
	// Not parallel: the allocation measured below is the whole process's,
	// and parallel tests (corpus parses among them) would be counted too.
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: Bomb\nl0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	for i := 1; i <= 9; i++ {
		fmt.Fprintf(&b, "l%d: &l%d [", i, i)
		for j := range 10 {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "*l%d", i-1)
		}
		b.WriteString("]\n")
	}
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	p := mustParse(t, b.String())
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	var le *limit.Error
	if len(p.Errors) != 1 || !errors.As(p.Errors[0], &le) || le.Limit != "MaxAliasExpansion" {
		t.Fatalf("errors = %v; want MaxAliasExpansion", p.Errors)
	}
	if le.Pos.Line < 4 || le.Pos.Line > 12 {
		t.Errorf("limit error at line %d; want one of the alias lines", le.Pos.Line)
	}
	if grown := after.TotalAlloc - before.TotalAlloc; grown > 64<<20 {
		t.Errorf("parsing the bomb allocated %d MiB", grown>>20)
	}
}

// TestParseDeepNesting nests 10 000 levels, flow and block style: rejected
// by MaxDepth, without exhausting the stack.
func TestParseDeepNesting(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"flow sequences": "apiVersion: v1\nkind: Deep\nspec: " + strings.Repeat("[", 9990) + strings.Repeat("]", 9990) + "\n",
		"flow mappings":  "apiVersion: v1\nkind: Deep\nspec: " + strings.Repeat("{a: ", 9990) + strings.Repeat("}", 9990) + "\n",
		"block sequence": "apiVersion: v1\nkind: Deep\nspec:\n" + strings.Repeat("- ", 9990) + "x\n",
	}
	for name, in := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p := mustParse(t, in)
			if len(p.Errors) != 1 || !(errors.Is(p.Errors[0], limit.ErrExceeded) || errors.Is(p.Errors[0], ErrSyntax)) {
				t.Fatalf("errors = %v; want a depth error", p.Errors)
			}
		})
	}
	t.Run("within the limit", func(t *testing.T) {
		t.Parallel()
		p := mustParse(t, "apiVersion: v1\nkind: Deep\nspec: "+strings.Repeat("[", 120)+strings.Repeat("]", 120)+"\n")
		if len(p.Errors) != 0 || len(p.Objects) != 1 {
			t.Fatalf("errors = %v", p.Errors)
		}
	})
}

// TestUnstructuredValues checks how scalars resolve (as sigs.k8s.io/yaml and
// apimachinery's unstructured decoding resolve them).
func TestUnstructuredValues(t *testing.T) {
	t.Parallel()
	in := `apiVersion: v1
kind: Values
spec:
  str: hello
  quoted: "123"
  single: 'true'
  v1: yes
  v2: No
  v3: on
  v4: OFF
  v5: true
  v6: n
  int: 42
  neg: -7
  under: 1_000
  hex: 0x1F
  octal: 0777
  binary: 0b101
  float: 1.5
  exp: 1e3
  wholeFloat: 2.0
  big: 18446744073709551615
  null1: ~
  null2: null
  null3:
  date: 2024-01-02
  version: 1.0.0
  taggedStr: !!str 12
  taggedFloat: !!float 3
  custom: !thing 5
  literal: |
    line1
    line2
  list: [1, "a", false]
  1: one
  on: truth
  1.5: onehalf
  <<: {merged: m, str: ignored}
`
	p := mustParse(t, in)
	if len(p.Errors) != 0 {
		t.Fatal(p.Errors)
	}
	u, err := p.Objects[0].Unstructured()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"str": "hello", "quoted": "123", "single": "true",
		"v1": true, "v2": false, "v3": true, "v4": false, "v5": true, "v6": false,
		"int": int64(42), "neg": int64(-7), "under": int64(1000), "hex": int64(31), "octal": int64(511), "binary": int64(5),
		"float": 1.5, "exp": int64(1000), "wholeFloat": int64(2), "big": float64(18446744073709551615),
		"null1": nil, "null2": nil, "null3": nil,
		"date": "2024-01-02", "version": "1.0.0", "taggedStr": "12", "taggedFloat": int64(3), "custom": "5",
		"literal": "line1\nline2\n", "list": []any{int64(1), "a", false},
		"1": "one", "true": "truth", "1.5": "onehalf", "merged": "m",
	}
	if diff := cmp.Diff(want, u.Object["spec"]); diff != "" {
		t.Errorf("spec (-want +got):\n%s", diff)
	}
}

func TestOutline(t *testing.T) {
	t.Parallel()
	in := "apiVersion: v1\nkind: X\nspec:\n  a:\n    b:\n      c: [1, {d: 2}]\n  s: v\n"
	cases := []struct {
		depth int
		want  map[string]any
	}{
		{depth: 0, want: map[string]any{"apiVersion": "v1", "kind": "X", "spec": map[string]any{}}},
		{depth: 1, want: map[string]any{"apiVersion": "v1", "kind": "X", "spec": map[string]any{"a": map[string]any{}, "s": "v"}}},
		{depth: 3, want: map[string]any{"apiVersion": "v1", "kind": "X", "spec": map[string]any{
			"a": map[string]any{"b": map[string]any{"c": []any{}}}, "s": "v"}}},
		{depth: 4, want: map[string]any{"apiVersion": "v1", "kind": "X", "spec": map[string]any{
			"a": map[string]any{"b": map[string]any{"c": []any{int64(1), map[string]any{}}}}, "s": "v"}}},
		{depth: -1, want: nil},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprint(tc.depth), func(t *testing.T) {
			t.Parallel()
			p := mustParse(t, in, WithOutlineDepth(tc.depth))
			got := p.Objects[0].Outline()
			if tc.want == nil {
				if got != nil {
					t.Errorf("outline = %v; want nil", got)
				}
				return
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("outline (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFieldPosition(t *testing.T) {
	t.Parallel()
	in := "a: 1\n---\n# lead comment\napiVersion: v1\nkind: X\nmetadata:\n  name: x\nspec:\n  annotations:\n    \"é→\": {k: v}\n  list:\n  - name: first\n  - name: second\n    value: 2\n  base: &b\n    inherited: yes\n  child:\n    <<: *b\n"
	p := mustParse(t, in, WithFile("f.yaml"))
	if len(p.Errors) != 1 { // document 0 has no type
		t.Fatalf("errors = %v", p.Errors)
	}
	obj := p.Objects[0]
	if obj.Pos.Line != 4 || obj.Pos.Column != 1 || obj.Pos.Offset != 24 || obj.Pos.Document != 1 {
		t.Fatalf("object at %+v; want line 4, offset 24, document 1", obj.Pos)
	}
	cases := []struct {
		path      []string
		line, col int
	}{
		{nil, 4, 1},
		{[]string{"kind"}, 5, 1},
		{[]string{"metadata", "name"}, 7, 3},
		{[]string{"spec", "annotations", "é→"}, 10, 5},
		{[]string{"spec", "annotations", "é→", "k"}, 10, 15}, // columns count bytes: `    "é→": {` is 14
		{[]string{"spec", "list", "1"}, 13, 5},
		{[]string{"spec", "list", "1", "value"}, 14, 5},
		{[]string{"spec", "child", "inherited"}, 16, 5},
	}
	for _, tc := range cases {
		pos, err := obj.FieldPosition(tc.path...)
		if err != nil {
			t.Errorf("%v: %v", tc.path, err)
			continue
		}
		if pos.Line != tc.line || pos.Column != tc.col || pos.File != "f.yaml" || pos.Document != 1 {
			t.Errorf("%v at %v; want %d:%d", tc.path, pos, tc.line, tc.col)
		}
		lines := strings.SplitAfter(in, "\n")
		lineOff := len(strings.Join(lines[:pos.Line-1], ""))
		if pos.Offset != int64(lineOff+pos.Column-1) {
			t.Errorf("%v: offset %d; want %d", tc.path, pos.Offset, lineOff+pos.Column-1)
		}
	}
	for _, bad := range [][]string{{"nope"}, {"spec", "list", "7"}, {"spec", "list", "x"}, {"kind", "deeper"}} {
		if _, err := obj.FieldPosition(bad...); !errors.Is(err, ErrFieldNotFound) {
			t.Errorf("%v: err = %v; want ErrFieldNotFound", bad, err)
		}
	}
}

func TestWithoutRaw(t *testing.T) {
	t.Parallel()
	p := mustParse(t, providerMeta+"---\napiVersion: v1\nkind: X\n", WithoutRaw())
	obj := p.Objects[0]
	if obj.Raw() != nil || obj.RawSize() != 0 {
		t.Error("raw bytes kept")
	}
	if _, err := obj.Unstructured(); !errors.Is(err, ErrNoRaw) {
		t.Errorf("Unstructured err = %v; want ErrNoRaw", err)
	}
	if _, err := obj.FieldPosition("kind"); !errors.Is(err, ErrNoRaw) {
		t.Errorf("FieldPosition err = %v; want ErrNoRaw", err)
	}
	if typed, err := p.Meta[0].Decode(); err != nil || typed == nil {
		t.Errorf("typed meta object lost: %v", err)
	}
}

// widget is a typed kind for TestWithObjectScheme.
type widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		Size int `json:"size"`
	} `json:"spec"`
}

func (w *widget) DeepCopyObject() kruntime.Object { c := *w; return &c }

func TestWithObjectScheme(t *testing.T) {
	t.Parallel()
	gv := schema.GroupVersion{Group: "example.org", Version: "v1"}
	s := kruntime.NewScheme()
	s.AddKnownTypeWithName(gv.WithKind("Widget"), &widget{})
	in := providerMeta + "---\napiVersion: example.org/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  size: 3\n---\napiVersion: example.org/v1\nkind: Gadget\n"
	t.Run("lenient", func(t *testing.T) {
		t.Parallel()
		p := mustParse(t, in, WithObjectScheme(s))
		if len(p.Errors) != 0 || len(p.Objects) != 2 {
			t.Fatalf("errors %v, %d objects", p.Errors, len(p.Objects))
		}
		got, err := p.Objects[0].Decode()
		if err != nil {
			t.Fatal(err)
		}
		if w, ok := got.(*widget); !ok || w.Spec.Size != 3 || w.Name != "w" || w.Kind != "Widget" {
			t.Errorf("decoded %#v; want the widget", got)
		}
		if _, err := p.Objects[1].Decode(); err != nil {
			t.Errorf("unstructured gadget: %v", err)
		}
	})
	t.Run("strict", func(t *testing.T) {
		t.Parallel()
		p := mustParse(t, in, WithObjectScheme(s), WithStrictKinds())
		if len(p.Errors) != 1 || !errors.Is(p.Errors[0], ErrUnknownKind) || len(p.Objects) != 1 {
			t.Fatalf("errors %v; want the Gadget refused", p.Errors)
		}
	})
}

func TestParseSeeds(t *testing.T) {
	t.Parallel()
	const fork = "meta.pkg.ibm.crossplane.io"
	read := func(t *testing.T, name string) string {
		b, err := os.ReadFile(filepath.Join("testdata", "seeds", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	// The v2 design's drafts write `crossplane: v0.13.0`, a shorthand the
	// meta types accept (and mark) for the linter to report.
	cases := []struct {
		file  string
		group string
		want  kruntime.Object
	}{
		{file: "packages-guide-provider.yaml", want: &metav1pkg.Provider{}},
		{file: "packages-guide-configuration.yaml", want: &metav1pkg.Configuration{}},
		{file: "format-v2-provider.yaml", group: fork, want: &v1alpha1.Provider{}},
		{file: "format-v2-configuration.yaml", group: fork, want: &v1alpha1.Configuration{}},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			in := read(t, tc.file)
			var opts []Option
			if tc.group != "" {
				opts = append(opts, WithMetaGroup(tc.group))
			}
			p := mustParse(t, in, opts...)
			if len(p.Errors) != 0 || len(p.Meta) != 1 {
				t.Fatalf("errors %v, %d meta objects", p.Errors, len(p.Meta))
			}
			pkg := p.Pkg()
			if pkg == nil {
				t.Fatal("Pkg() = nil")
			}
			if fmt.Sprintf("%T", pkg) != fmt.Sprintf("%T", tc.want) {
				t.Errorf("Pkg() is %T; want %T", pkg, tc.want)
			}
			if c := pkg.GetCrossplaneConstraints(); c == nil || c.Version == "" {
				t.Errorf("crossplane constraint lost: %+v", c)
			}
			if p.Meta[0].Pos.Line != 4 && p.Meta[0].Pos.Line != 2 {
				t.Errorf("meta object at line %d; want the apiVersion line", p.Meta[0].Pos.Line)
			}
			var _ meta.Pkg = pkg
		})
	}
	t.Run("wrong group", func(t *testing.T) {
		t.Parallel()
		// Under the default group, the fork's kinds are ordinary objects.
		p := mustParse(t, read(t, "format-v2-provider.yaml"))
		if len(p.Meta) != 0 || len(p.Objects) != 1 || p.Pkg() != nil {
			t.Errorf("%d meta objects, %d objects", len(p.Meta), len(p.Objects))
		}
	})
}

// TestFieldPositionFollowsRenamedFile checks that field positions name the
// file the object's Pos names, when a caller renames it (xpkg joins the
// examples directory to the names of its files).
func TestFieldPositionFollowsRenamedFile(t *testing.T) {
	t.Parallel()
	p := mustParse(t, "apiVersion: v1\nkind: X\nmetadata:\n  name: x\n", WithFile("x.yaml"))
	obj := p.Objects[0]
	obj.Pos.File = "examples/x.yaml"
	pos, err := obj.FieldPosition("metadata", "name")
	if err != nil {
		t.Fatal(err)
	}
	if pos.File != "examples/x.yaml" || pos.Line != 4 {
		t.Errorf("position %+v, want examples/x.yaml line 4", pos)
	}
	loc, err := obj.FieldLocator()
	if err != nil {
		t.Fatal(err)
	}
	if pos, err := loc.FieldPosition("kind"); err != nil || pos.File != "examples/x.yaml" {
		t.Errorf("locator position %+v, %v; want examples/x.yaml", pos, err)
	}
}
