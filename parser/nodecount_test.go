package parser

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/xpkgkit/xpkgkit/internal/testcorpus"
	"github.com/xpkgkit/xpkgkit/limit"
)

// yamlNodes counts the nodes go-yaml builds for data (its document node
// included), or -1 when data does not parse.
func yamlNodes(data []byte) int64 {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return -1
	}
	var count func(n *yaml.Node) int64
	count = func(n *yaml.Node) int64 {
		c := int64(1)
		for _, ch := range n.Content {
			c += count(ch)
		}
		return c
	}
	return count(&doc)
}

// nodeCountInputs are documents whose nodes the count must not
// underestimate: every way go-yaml makes up a node, and the places a
// context-aware count could be fooled into skipping (comments, quotes,
// block scalars, tags, anchors, continuation lines).
var nodeCountInputs = []string{
	"", "a", "a: b\n", "- a\n- b\n", "[a,a,a]", "{a,b,c}", "{a, b: , : c}", "[a: b, ? c, : d]",
	"? \n: \n", ":\n:\n", "-\n-\n-\n", "- - - -\n", "&a\n", "!t\n", "[&a , !t , *a]", "{? , ? }",
	"k: &a [x, *a]\n", "a: !!str\nb: !t\n", "--- |\n  x\n", "--- [a,b]\n", "k: |\n  - a\n  - b\n",
	"k: 'x\n  - a\n  - b'\n", "k: \"x\\\"\n  [a,b]\"\n", "# [a,a,a]\nk: v\n", "k: a #c\n  [b]\n",
	"k: a\n  'b\n", "k:\n- a\n- b\n", "[a\n,b\n,c]", "{\"a\":b,\"c\":d}", "[\"a\":b]", "[*a]",
	"a: &x 1\nb: *x\n", "\ufeffa: b\n", "k: v\u2028- a\n", "[a,\u0085b]", "k: a:b:c\n", "[!t,a]",
	"- ? a\n  : b\n", "!t &a [x]\n", "[-a,-b]", "- -\n", "k: >2\n   x\n", "%YAML 1.1\n--- a\n",
	"[[[[[]]]]]", "{{{}}}", "[{},{},{}]", "- {a: [b, {c: d}]}\n",
}

func TestCountNodesBoundsNodes(t *testing.T) {
	t.Parallel()
	for _, in := range nodeCountInputs {
		real := yamlNodes([]byte(in))
		got := countNodes([]byte(in), 0).count
		if real >= 0 && got < real {
			t.Errorf("%q: count %d, below the %d nodes go-yaml builds", in, got, real)
		}
	}
}

// TestMaxNodesBoundary checks MaxNodes at its exact boundary: a document
// that counts MaxNodes parses, one more count fails at the byte that
// crossed the limit, in the stream's coordinates.
func TestMaxNodesBoundary(t *testing.T) {
	t.Parallel()
	const prefix = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n"
	doc := prefix + "- a\n- a\n- a\n"
	n := countNodes([]byte(doc), 0).count
	stream := "apiVersion: v1\nkind: A\n---\n" + doc
	lim := Limits{MaxNodes: int(n)}
	p, err := Parse(context.Background(), strings.NewReader(stream), WithLimits(lim))
	if err != nil || len(p.Errors) != 0 || len(p.Objects) != 2 {
		t.Fatalf("at the limit: %v, %v", err, p.Errors)
	}
	lim.MaxNodes = int(n - 1)
	p, err = Parse(context.Background(), strings.NewReader(stream), WithLimits(lim), WithFile("p.yaml"))
	if err != nil || len(p.Errors) != 1 {
		t.Fatalf("over the limit: %v, %v", err, p)
	}
	var le *limit.Error
	if !errors.As(p.Errors[0], &le) || le.Limit != "MaxNodes" || le.Max != n-1 {
		t.Fatalf("over the limit: %v, want a MaxNodes limit.Error", p.Errors[0])
	}
	// The last entry's "a" (line 11 of the stream, column 3) is where the
	// count crosses the limit.
	want := Position{File: "p.yaml", Document: 1, Line: 11, Column: 3, Offset: int64(len(stream) - 2)}
	if p.Errors[0].Pos != want || le.Pos != want {
		t.Errorf("position %+v (limit %+v), want %+v", p.Errors[0].Pos, le.Pos, want)
	}
	if got := p.Errors[0].Error(); got != "p.yaml:11:3: document 1: MaxNodes "+itoa(n-1)+" exceeded" {
		t.Errorf("message %q", got)
	}
}

// TestMaxNodesFirstLine checks the position when the limit is crossed on
// the first line of a document that does not start at column 1.
func TestMaxNodesFirstLine(t *testing.T) {
	t.Parallel()
	p, err := Parse(context.Background(), strings.NewReader("--- [a,a,a,a,a,a,a,a]\n"), WithLimits(Limits{MaxNodes: 10}))
	if err != nil || len(p.Errors) != 1 {
		t.Fatalf("%v, %v", err, p)
	}
	// The count is 2 + 1 ("---" content) ... crossing 10 at the fourth "a".
	pos := p.Errors[0].Pos
	if pos.Line != 1 || pos.Offset != int64(pos.Column-1) || pos.Column < 5 {
		t.Errorf("position %+v is not a byte of line 1", pos)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func FuzzCountNodes(f *testing.F) {
	fuzzSeeds(f)
	for _, in := range nodeCountInputs {
		f.Add([]byte(in))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) > 1<<16 {
			return
		}
		defer fuzzBounds(t, in)()
		for _, max := range []int64{0, 7, int64(len(in))} {
			if got, want := countNodes(in, max), countNodesRef(in, max); got != want {
				t.Fatalf("max %d: countNodes %+v, the reference %+v", max, got, want)
			}
		}
		// decode counts a document's nodes only after the fast path gave
		// up when fewNodes says the count cannot pass the limit.
		if max := 3*len(in) + 2; fewNodes(len(in), max) && countNodes(in, int64(max)).over {
			t.Fatalf("fewNodes(%d, %d), but the count passes the limit", len(in), max)
		}
		real := yamlNodes(in)
		if got := countNodes(in, 0).count; real >= 0 && got < real {
			t.Fatalf("count %d, below the %d nodes go-yaml builds", got, real)
		}
	})
}

// BenchmarkCountNodes counts the nodes of the monolith's stream, the
// pre-pass every document goes through before go-yaml parses it.
func BenchmarkCountNodes(b *testing.B) {
	file, size := benchFile(b, monolith)
	data, err := os.ReadFile(file)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(size)
	for b.Loop() {
		if nc := countNodes(data, 0); nc.count == 0 {
			b.Fatal("no nodes counted")
		}
	}
}

// TestCountNodesMatchesRef holds countNodes to the byte-at-a-time
// reference on every corpus package.yaml (when the corpus is there), on
// the test inputs and on every prefix of a document
// full of prose, blanks, properties and byte order marks.
func TestCountNodesMatchesRef(t *testing.T) {
	t.Parallel()
	inputs := append([]string(nil), nodeCountInputs...)
	tricky := "a: b c  d\t e &x f !t g *y h\n- x y\n-y z\n \xef\xbb\xbfk: v \xef\xbb\xbfw\n" +
		"p: [a b, c d] {e f: g h}\n'q r': \"s t\"\n? u v\n: w x\nz:  \xc2\x85 y \xe2\x80\xa8 x\n--- | a\n"
	for i := 0; i <= len(tricky); i++ {
		inputs = append(inputs, tricky[:i], tricky[i:])
	}
	for _, in := range inputs {
		if max := 3*len(in) + 2; !fewNodes(len(in), max) || countNodes([]byte(in), int64(max)).over || fewNodes(len(in)+1, max) {
			t.Errorf("%.40q: fewNodes is not the bound decode relies on", in)
		}
		for _, max := range []int64{0, 10, 1000} {
			if got, want := countNodes([]byte(in), max), countNodesRef([]byte(in), max); got != want {
				t.Errorf("%.40q max %d: countNodes %+v, the reference %+v", in, max, got, want)
			}
		}
	}
	for _, name := range testcorpus.Names() {
		if name == monolith && raceEnabled {
			continue // 100 MB, twice, under the race detector
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b, err := os.ReadFile(filepath.Join(testcorpus.Path(t, name), "package.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			for _, max := range []int64{0, 400_000} {
				if got, want := countNodes(b, max), countNodesRef(b, max); got != want {
					t.Errorf("max %d: countNodes %+v, the reference %+v", max, got, want)
				}
			}
		})
	}
}
