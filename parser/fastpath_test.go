package parser

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/xpkgkit/xpkgkit/internal/testcorpus"
)

// objectView is everything an Object tells its users.
type objectView struct {
	Pos, DataPos      Position
	APIVersion, Kind  string
	Meta              any
	DuplicateKeys     []DuplicateKey
	MoreDuplicateKeys int
	Outline           map[string]any
	Raw               string
	Typed             bool
	// Content is what Unstructured returns, or its error's text: the
	// fast path reads whole documents there too.
	Content any
}

func viewOf(o *Object) objectView {
	var content any
	if u, err := o.Unstructured(); err != nil {
		content = "error: " + err.Error()
	} else {
		content = u.Object
	}
	return objectView{
		Pos: o.Pos, DataPos: o.dataPos, APIVersion: o.APIVersion, Kind: o.Kind, Meta: o.ObjectMeta,
		DuplicateKeys: o.DuplicateKeys, MoreDuplicateKeys: o.MoreDuplicateKeys,
		Outline: o.outline, Raw: string(o.Raw()), Typed: o.typed != nil, Content: content,
	}
}

// packageView is everything a Package tells its users, as text.
func packageView(p *Package, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	var b strings.Builder
	for _, o := range p.Meta {
		fmt.Fprintf(&b, "meta %#v\n", viewOf(o))
	}
	for _, o := range p.Objects {
		fmt.Fprintf(&b, "object %#v\n", viewOf(o))
	}
	for _, e := range p.Errors {
		fmt.Fprintf(&b, "error %#v %v\n", e.Pos, e)
	}
	return b.String()
}

// sameViews reports whether a and b tell the same.
func sameViews(a, b objectView) bool {
	return reflect.DeepEqual(a, b) || fmt.Sprintf("%#v", a) == fmt.Sprintf("%#v", b)
}

// samePackages reports whether the two parses' results tell the same: the
// same errors, and the same objects in the same order.
func samePackages(p *Package, perr error, q *Package, qerr error) bool {
	if p == nil || q == nil || perr != nil || qerr != nil {
		return packageView(p, perr) == packageView(q, qerr)
	}
	if len(p.Meta) != len(q.Meta) || len(p.Objects) != len(q.Objects) || len(p.Errors) != len(q.Errors) {
		return false
	}
	for i, e := range p.Errors {
		if fmt.Sprintf("%#v %v", e.Pos, e) != fmt.Sprintf("%#v %v", q.Errors[i].Pos, q.Errors[i]) {
			return false
		}
	}
	for i := range p.Meta {
		if !sameViews(viewOf(p.Meta[i]), viewOf(q.Meta[i])) {
			return false
		}
	}
	for i := range p.Objects {
		if !sameViews(viewOf(p.Objects[i]), viewOf(q.Objects[i])) {
			return false
		}
	}
	return true
}

// comparePaths parses data with the fast path and without it and fails t
// when the packages differ in anything. It returns how many documents the
// fast path read.
func comparePaths(t *testing.T, name string, data []byte, opts ...Option) int {
	t.Helper()
	ctx := context.Background()
	fast, ferr := Parse(ctx, bytes.NewReader(data), append([]Option{WithFile(name)}, opts...)...)
	full, uerr := Parse(ctx, bytes.NewReader(data), append([]Option{WithFile(name), withFullParse()}, opts...)...)
	// Object by object, and formatted only where reflect.DeepEqual sees
	// a difference (a NaN is not DeepEqual to itself): formatting a
	// 100 MB package's every value took most of this test's time.
	if !samePackages(fast, ferr, full, uerr) {
		t.Errorf("%s: the fast path and the full parse differ", name)
		if fast != nil && full != nil && len(fast.Objects) == len(full.Objects) {
			for i := range fast.Objects {
				if a, b := viewOf(fast.Objects[i]), viewOf(full.Objects[i]); !sameViews(a, b) {
					t.Errorf("object %d:\nfast %#v\nfull %#v", i, a, b)
					break
				}
			}
		} else {
			t.Errorf("fast:\n%.2000s\nfull:\n%.2000s", packageView(fast, ferr), packageView(full, uerr))
		}
	}
	// A document the parse's fast path read for Unstructured (o.fast)
	// must be one fastContent reads: it never pays both paths.
	if fast != nil {
		for _, o := range append(append([]*Object(nil), fast.Meta...), fast.Objects...) {
			if !o.fast {
				continue
			}
			if _, ok := fastContent(o.Raw(), o.dec.limits.MaxDepth); !ok {
				t.Errorf("%s: object %s %q: the parse's fast path said fastContent reads it, and fastContent gave up:\n%.2000s", name, o.Kind, o.Name, o.Raw())
			}
		}
	}
	n := 0
	sp := NewSplitter(bytes.NewReader(data))
	for {
		d, err := sp.Next()
		if err != nil {
			break
		}
		if _, ok := fastDecode(d.Data, defaultOutlineDepth, DefaultLimits().MaxDepth, nil); ok {
			n++
		}
	}
	return n
}

// TestFastPathEquivalence parses every corpus package, every YAML file of
// the repository's testdata (parser, linter rules and verdicts, xpkg) and
// the table inputs with the fast path and with the full parse, and asserts
// the same objects, positions, outlines, metadata and errors.
func TestFastPathEquivalence(t *testing.T) {
	t.Parallel()
	var files []string
	for _, root := range []string{"testdata", filepath.Join("..", "linter", "rules", "testdata"), filepath.Join("..", "xpkg", "testdata"), filepath.Join("..", "internal")} {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml")) {
				files = append(files, p)
			}
			return nil
		})
	}
	if len(files) < 100 {
		t.Fatalf("found %d test YAML files; want the repository's testdata", len(files))
	}
	fastDocs := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		fastDocs += comparePaths(t, f, data)
		comparePaths(t, f, data, WithOutlineDepth(2), WithLimits(Limits{MaxDepth: 5}))
	}
	for _, s := range fastPathCases {
		comparePaths(t, "case", []byte(s))
		comparePaths(t, "case", []byte(s), WithOutlineDepth(1))
		comparePaths(t, "case", []byte(s), WithOutlineDepth(-1))
	}
	t.Logf("%d files; %d documents read by the fast path", len(files), fastDocs)
}

// TestFastPathCorpus compares the two paths on every corpus package and
// requires the fast path to read most of the large ones' documents. Under
// the race detector (the README's test command) the monolith takes two and
// a half minutes, and is left out: CI runs this test again without -race,
// the monolith included.
func TestFastPathCorpus(t *testing.T) {
	t.Parallel()
	for _, name := range testcorpus.Names() {
		if name == monolith && (raceEnabled || testing.Short()) {
			t.Logf("%s: left out under -race and -short", name)
			continue
		}
		data, err := os.ReadFile(filepath.Join(testcorpus.Path(t, name), "package.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		n := comparePaths(t, name, data)
		docs := bytes.Count(data, []byte("\nkind: "))
		t.Logf("%s: %d of about %d documents by the fast path", name, n, docs)
	}
}

// TestFastContentDecided checks which documents the parse marks for
// Unstructured's fast path (Object.fast): those its fast path read, unless
// a container it did not build holds what fastContent would give up on;
// and that Unstructured's content is the full parse's either way.
func TestFastContentDecided(t *testing.T) {
	t.Parallel()
	const head = "apiVersion: v1\nkind: X\nmetadata:\n  name: a\nspec:\n  a:\n    b:\n"
	for _, c := range []struct {
		name  string
		doc   string
		depth int // outline depth
		fast  bool
	}{
		{"block", head + "      c: 1\n      d: []\n", 1, true},
		{"built", head + "      c: 1\n", defaultOutlineDepth, true},
		{"no outline", head + "      c: 1\n", -1, true},
		{"flow mapping", head + "      c: {d: 1}\n", 1, false},
		{"meta object", "apiVersion: meta.pkg.crossplane.io/v1\nkind: Provider\nmetadata:\n  name: p\n", 1, false},
		{"word key", head + "      yes: 1\n", 1, false},
		{"null key", head + "      Null: 1\n", -1, false},
		{"true key", head + "      true: 1\n", 1, true},
		{"word key built", head + "      yes: 1\n", defaultOutlineDepth, false},
		{"infinity", head + "      c: -.inf\n", 1, false},
		{"NaN item", head + "      - .NaN\n", 1, false},
		{"fraction", head + "      c: .5\n", 1, true},
		{"boolean", head + "      c: off\n", 1, true},
		{"infinity and text", head + "      c: .inf x\n", 1, true},
		{"infinity continued", head + "      c: .inf\n        x\n", 1, false}, // what the pass does not look at: it gives the full parse
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := Parse(context.Background(), strings.NewReader(c.doc), WithOutlineDepth(c.depth))
			if err != nil {
				t.Fatal(err)
			}
			objs := append(append([]*Object(nil), p.Meta...), p.Objects...)
			if len(objs) != 1 {
				t.Fatalf("%d objects, %d errors (%v); want one object", len(objs), len(p.Errors), p.Errors)
			}
			if got := objs[0].fast; got != c.fast {
				t.Errorf("Object.fast = %v, want %v", got, c.fast)
			}
			comparePaths(t, c.name, []byte(c.doc), WithOutlineDepth(c.depth))
		})
	}
}

// TestPlainWordBytes checks that plainWordBytes, which looks only at
// texts of at most maxPlainWord bytes, finds every word plainWord
// resolves (the YAML 1.1 booleans and nulls, NaN and the infinities), and
// nothing else.
func TestPlainWordBytes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		tag   string
		words string
	}{
		{tagBool, "y Y yes Yes YES true True TRUE on On ON n N no No NO false False FALSE off Off OFF"},
		{tagNull, "~ null Null NULL"},
		{tagFloat, ".nan .NaN .NAN .inf .Inf .INF +.inf +.Inf +.INF -.inf -.Inf -.INF"},
		{"", "type yess nulls x .infinity +.infx FALSE_ 1 1e3 -"},
	} {
		for _, w := range strings.Fields(c.words) {
			tag, _, ok := plainWord(w)
			btag, bok := plainWordBytes([]byte(w))
			if tag != c.tag || ok != (c.tag != "") || btag != tag || bok != ok {
				t.Errorf("%q: plainWord %q %v, plainWordBytes %q %v; want %q", w, tag, ok, btag, bok, c.tag)
			}
		}
	}
}

// fastPathCases are documents at the edges of the fast path's subset.
var fastPathCases = []string{
	"apiVersion: v1\nkind: X\n",
	"apiVersion: v1\nkind: X\nmetadata:\n  name: a\n  labels:\n    a: b\n",
	"apiVersion: v1\nkind: X\nmetadata:\n",
	"apiVersion: v1\nkind: X\nmetadata: 3\n",
	"apiVersion: v1\nkind: X\nmetadata:\n  name: [a]\n",
	"apiVersion: v1\nkind: X\nmetadata:\n  managedFields:\n  - a:\n      b:\n        c:\n          d:\n            e: 1\n",
	"apiVersion: 1\nkind: X\n",
	"apiVersion: v1\nkind: X\nkind: Y\n",
	"apiVersion: v1\nkind: X\nspec:\n  a: 1\n  a: 2\n",
	"apiVersion: v1\nkind: X\nspec:\n  a: b\n   c\n",
	"apiVersion: v1\nkind: X\nspec:\n  a: b\n  c\n",
	"apiVersion: v1\nkind: X\nspec:\n  - a\n  - b: c\n    d: e\n  -\n  - |\n    x\n\n    y\n\n  - |-\n    z\n",
	"apiVersion: v1\nkind: X\nspec:\n- a\n- b\nstatus: {}\nx: []\ny: ''\nz: 'it''s'\nw: \"q\"\n",
	"apiVersion: v1\nkind: X\nspec:\n  a: |\n   x\n  b: 1\n",
	"apiVersion: v1\nkind: X\nspec:\n  a: |\n    x\n   y\n",
	"apiVersion: v1\nkind: X\nspec:\n  a: |\n\n    x\n",
	"apiVersion: v1\nkind: X\nspec:\n  a: |\n    x\n  \n    y\n",
	"apiVersion: v1\nkind: X\nspec:\n  a: |\n    # not a comment\n    y\n",
	"apiVersion: v1\nkind: X\nspec:\n  a: b # c\n",
	"apiVersion: v1\nkind: X\nspec:\n  a: b#c\n  c: 'x' \n  d: \"x\"  \n",
	"apiVersion: v1\nkind: X\nspec:\n  a: true\n  b: 1e3\n  c: 0x1F\n  d: ~\n  e: 2001-12-14\n  f: .inf\n  g: -1\n  h: -x\n  i: 1_000\n",
	"apiVersion: v1\nkind: X\nspec:\n  yes: 1\n  \"q\": 2\n  'r': 3\n  1: 4\n",
	"apiVersion: v1\nkind: X\nspec:\n  a: b: c\n",
	"apiVersion: v1\nkind: X\nspec:\n  a: b:\n",
	"apiVersion: v1\nkind: X\nspec:\n  a: - b\n",
	"apiVersion: v1\nkind: X\nspec:\n  a:\n  - - b\n",
	"apiVersion: v1\nkind: X\nspec:\n  a: [b]\n  c: {d: e}\n",
	"apiVersion: v1\nkind: X\nspec:\n  a: &x b\n  c: *x\n  d: !!str 1\n",
	"apiVersion: v1\nkind: X\nspec:\n\ta: 1\n",
	"apiVersion: v1\r\nkind: X\r\n",
	"# comment\napiVersion: v1\nkind: X\n",
	"apiVersion: v1\n# comment\nkind: X\n",
	"apiVersion: v1\nkind: X\nspec:\n  a: \"x\\ny\"\n",
	"apiVersion: v1\nkind: X\nspec:\n  a: 'x\n    y'\n",
	"apiVersion: v1\nkind: X\nspec:\n  a: >\n    x\n",
	"apiVersion: v1\nkind: X\nspec:\n  a: é ü 中\n",
	"apiVersion: v1\nkind: X\nspec:\n  a: \u00a0x\n",
	"apiVersion: v1\nkind: X\nspec:\n  a: x\u00a0\n",
	" apiVersion: v1\n kind: X\n",
	"apiVersion: v1\nkind: X\nspec:\n    a: 1\n  b: 2\n",
	"apiVersion: v1\nkind: X\nspec:\n  a:\n    b:\n      c:\n        d:\n          e:\n            f:\n              g: 1\n",
	"apiVersion: v1\nkind: X\nspec:\n  a: ---\n  b: ...\n  c: -\n",
	"apiVersion: v1\nkind: X\nspec:\n  a: x]\n  b: x,y\n  c: a{b}\n  d: .status.conditions[?(@.type=='Ready')].status\n",
	"apiVersion: v1\nkind: X\nspec:\n  a: x  \n  b:   \n  c:\n",
	"apiVersion: meta.pkg.crossplane.io/v1\nkind: Provider\nmetadata:\n  name: p\n",
	"apiVersion: v1\nkind: X\nspec:\n  a: 'x'y'\n",
	"apiVersion: v1\nkind: X\nspec:\n  a: \"x\"y\"\n",
	"apiVersion: v1\nkind: X\nspec:\n  k" + strings.Repeat("x", 600) + ": 1\n",
	"apiVersion: v1\nkind: X\nspec:\n- a\n  b\n",
	"apiVersion: v1\nkind: X\nspec:\n- a\n  - b\n  - c\n- d\n",
	"apiVersion: v1\nkind: X\nspec:\n  d: See AWS\n    - Customizing prefixes\n    cache.\n  t: string\n",
	"apiVersion: v1\nkind: X\nspec:\n  d:\n    a\n    - b\n    -c\n    - \n    -\n  t: string\n",
	"apiVersion: v1\nkind: X\nspec:\n  d: a\n   - b: c\n",
	"apiVersion: v1\nkind: X\nspec:\n  d: a\n   - b #c\n",
	"apiVersion: v1\nkind: X\nspec:\n  d: a\n   - - b\n   - [b]\n   - {b}\n   - 'b'\n   - &b\n",
	"apiVersion: v1\nkind: X\nspec:\n  - - a\n    - b\n",
	"apiVersion: v1\nkind: X\nspec:\n  - a\n   - b\n",
	"apiVersion: v1\nkind: X\nspec:\n  - a: 1\n   b: 2\n",
	"apiVersion: v1\nkind: X\nspec:\n  - a: 1\n      b: 2\n",
	"apiVersion: v1\nkind: X\nspec:\n  -   a: 1\n      b: |\n        t\n",
	"apiVersion: v1\nkind: X\nspec:\n  a:\n  b:\n  - 1\n",
	"apiVersion: v1\nkind: X\nspec: |-\n  x\nstatus: 1",
	"apiVersion: v1\nkind: X\nspec: |-\n  x",
	"apiVersion: v1\nkind: X\nspec:\n  a: 1\n\n\n",
	"apiVersion: v1\nkind: X\nspec:\n  - \n  - x\n",
	"apiVersion: v1\nkind: X\nspec:\n  a: \"\"\n  b: ''\n",
	"apiVersion: v1\nkind: X\nspec:\n  $ref: x\n  a.b/c-d_e: 1\n  _x: 2\n",
	"apiVersion: v1\nkind: X\nspec:\n  True: 1\n  ON: 2\n  Null: 3\n  nan: 4\n",
	"apiVersion: v1\nkind: X\nmetadata:\n  name: a\n  name: b\n",
	"apiVersion: v1\nkind: X\nmetadata:\n  creationTimestamp: null\n  annotations:\n    a: '1'\n",
	"apiVersion: v1\nkind: X\nmetadata:\n  annotations:\n    a: 1\n",
	"kind: X\n",
	"apiVersion: v1\n",
	"apiVersion: v1\nkind: \"\"\n",
}

// FuzzFastPath compares the fast path with the full parse on random
// documents (seeded with the table above and the parser's seeds).
func FuzzFastPath(f *testing.F) {
	for _, s := range fastPathCases {
		f.Add([]byte(s))
	}
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) > 1<<16 {
			return
		}
		comparePaths(t, "fuzz", in)
		comparePaths(t, "fuzz", in, WithOutlineDepth(1), WithLimits(Limits{MaxDepth: 4}))
	})
}

// TestCommonKeys checks that every key commonKey returns without a check
// is one the check (keyOK) lets through, and is its own text.
func TestCommonKeys(t *testing.T) {
	t.Parallel()
	if len(commonKeys) == 0 {
		t.Fatal("no common keys")
	}
	for k, v := range commonKeys {
		got, ok := commonKey([]byte(k))
		if !ok || got != k || v != k {
			t.Errorf("commonKey(%q) = %q, %v; want %q, true", k, got, ok, k)
		}
		if !keyOK(k) {
			t.Errorf("keyOK(%q) is false: commonKey must not return it", k)
		}
	}
	for _, k := range []string{"", "Type", "yes", "null", "1", "descriptions"} {
		if got, ok := commonKey([]byte(k)); ok {
			t.Errorf("commonKey(%q) = %q, true; want false", k, got)
		}
	}
}

// fastLinesBytewise is fastLines checking one byte at a time, as it did
// before it read eight at once: TestFastLinesEightAtOnce compares them.
func fastLinesBytewise(data []byte) ([]fline, bool) {
	var lines []fline
	start := 0
	for start <= len(data) {
		end := bytes.IndexByte(data[start:], '\n')
		if end < 0 {
			end = len(data)
		} else {
			end += start
		}
		l := fline{start: start, end: end}
		for l.indent < end-start && data[start+l.indent] == ' ' {
			l.indent++
		}
		l.blank = l.indent == end-start
		for i := start; i < end; {
			c := data[i]
			if c >= 0x20 && c < 0x7F {
				i++
				continue
			}
			if c < 0x80 {
				return nil, false
			}
			r, n := utf8.DecodeRune(data[i:end])
			if r == utf8.RuneError || !(r >= 0xA0 && r <= 0xD7FF || r >= 0xE000 && r <= 0xFFFD && r != 0xFEFF || r >= 0x10000 && r <= 0x10FFFF) {
				return nil, false
			}
			i += n
		}
		lines = append(lines, l)
		if end == len(data) {
			break
		}
		start = end + 1
	}
	return lines, true
}

// TestFastLinesEightAtOnce checks fastLines against the byte-at-a-time
// check on lines that hold each byte value at each offset of an eight-byte
// word, and on random lines of bytes drawn mostly from around the edges of
// printable ASCII.
func TestFastLinesEightAtOnce(t *testing.T) {
	t.Parallel()
	check := func(data []byte) {
		t.Helper()
		got, gotOK := fastLines(data, nil)
		want, wantOK := fastLinesBytewise(data)
		if gotOK != wantOK || gotOK && !reflect.DeepEqual(got, want) {
			t.Fatalf("fastLines(%q) = %v, %v; byte at a time: %v, %v", data, got, gotOK, want, wantOK)
		}
	}
	for b := 0; b < 256; b++ {
		for off := 0; off < 17; off++ {
			line := []byte(strings.Repeat("a", off) + string(rune(0)) + strings.Repeat("b", 17-off))
			line[off] = byte(b)
			check(line)
			check(append([]byte("  key: "), line...))
			check(append(append([]byte{}, line...), '\n', 'x'))
		}
	}
	// Multi-byte characters across a word's edge.
	for _, r := range []string{"\u00a0", "é", "\u2028", "\ufeff", "\ufffd", "😀", "\u0085"} {
		for off := 0; off < 10; off++ {
			check([]byte(strings.Repeat("x", off) + r + "yyyyyyyyyyyyyyyy"))
		}
	}
	edges := []byte{0x00, 0x09, 0x0a, 0x0d, 0x1f, 0x20, 0x21, 0x41, 0x7e, 0x7f, 0x80, 0xa0, 0xbf, 0xc2, 0xe2, 0xef, 0xf0, 0xff}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		n := rng.IntN(40)
		data := make([]byte, n)
		for i := range data {
			if rng.IntN(8) == 0 {
				data[i] = edges[rng.IntN(len(edges))]
			} else {
				data[i] = byte(0x20 + rng.IntN(0x5f))
			}
		}
		check(data)
	}
}
