package schemaparity

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/xpkgkit/xpkgkit/linter/schema"
	"github.com/xpkgkit/xpkgkit/parser"
)

// Fuzz bounds of FuzzParity (both validators included): at most
// fuzzAllocBase plus fuzzAllocPerByte bytes per input byte, and fuzzTimeout.
const (
	fuzzAllocBase    = 128 << 20
	fuzzAllocPerByte = 64 << 10
	fuzzTimeout      = 20 * time.Second
)

// fuzzCRD is one CRD version the fuzz target draws objects for.
type fuzzCRD struct {
	group, version, kind string
	schema               map[string]any
}

// corpusPackages are the corpus packages whose CRDs the fuzz target uses
// (the small providers and a function: every CRD version, quickly).
var corpusPackages = []string{"function-patch-and-transform", "provider-helm", "provider-kubernetes", "provider-azure", "provider-gcp"}

// corpusDir finds ../shared/corpus beside the repository, or
// $XPKGKIT_CORPUS.
func corpusDir() string {
	if d := os.Getenv("XPKGKIT_CORPUS"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "..", "shared", "corpus")
}

var fuzzSetup = sync.OnceValues(func() (*schema.Validator, []fuzzCRD) {
	var objs []*parser.Object
	streams := []string{"testdata/crd.yaml"}
	for _, p := range corpusPackages {
		streams = append(streams, filepath.Join(corpusDir(), p, "package.yaml"))
	}
	for _, path := range streams {
		f, err := os.Open(path)
		if err != nil {
			continue // the corpus is optional: testdata always runs
		}
		pkg, err := parser.Parse(context.Background(), f)
		f.Close()
		if err != nil {
			continue
		}
		objs = append(objs, pkg.Objects...)
	}
	var crds []fuzzCRD
	for _, o := range objs {
		if o.Kind != "CustomResourceDefinition" || o.APIVersion != "apiextensions.k8s.io/v1" {
			continue
		}
		u, err := o.Unstructured()
		if err != nil {
			continue
		}
		spec, _ := u.Object["spec"].(map[string]any)
		group, _ := spec["group"].(string)
		names, _ := spec["names"].(map[string]any)
		kind, _ := names["kind"].(string)
		versions, _ := spec["versions"].([]any)
		for _, v := range versions {
			vm, _ := v.(map[string]any)
			name, _ := vm["name"].(string)
			s, _ := vm["schema"].(map[string]any)
			oas, _ := s["openAPIV3Schema"].(map[string]any)
			if oas == nil {
				continue
			}
			// Only schemas the API server accepts as structural.
			if _, _, err := Reference(oas, map[string]any{}); err != nil {
				continue
			}
			crds = append(crds, fuzzCRD{group: group, version: name, kind: kind, schema: oas})
		}
	}
	// One Validator serves every input of the fuzzer: its work budget
	// (MaxCost, for all its validations) must not run out over a run.
	return schema.New(objs, schema.WithLimits(schema.Limits{MaxCost: math.MaxInt})), crds
})

// gen draws a value for schema s from the fuzz input: mostly well-typed,
// sometimes of a random type, sometimes with unknown fields.
type gen struct {
	data []byte
	pos  int
}

func (g *gen) byte() byte {
	if g.pos >= len(g.data) {
		return 0
	}
	b := g.data[g.pos]
	g.pos++
	return b
}

var wild = []any{nil, true, false, int64(0), int64(7), int64(-3), 1.5, "", "x", "ABC", "10.0.0.1", "2024-01-02T03:04:05Z",
	map[string]any{}, []any{}, map[string]any{"zz": int64(1)}, []any{"a", "a"}, int64(3000000000)}

func (g *gen) value(s map[string]any, depth int) any {
	b := g.byte()
	if b%11 == 0 || depth > 10 {
		return wild[int(b/11)%len(wild)]
	}
	if enum, ok := s["enum"].([]any); ok && len(enum) > 0 && b%3 != 0 {
		return enum[int(b)%len(enum)]
	}
	t, _ := s["type"].(string)
	if ios, _ := s["x-kubernetes-int-or-string"].(bool); ios {
		if b%2 == 0 {
			return int64(b % 5)
		}
		return "s"
	}
	switch t {
	case "object":
		out := map[string]any{}
		props, _ := s["properties"].(map[string]any)
		keys := make([]string, 0, len(props))
		for k := range props {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if g.byte()%3 == 0 {
				p, _ := props[k].(map[string]any)
				out[k] = g.value(p, depth+1)
			}
		}
		if ap, ok := s["additionalProperties"].(map[string]any); ok && b%4 == 1 {
			out["k"+fmt.Sprint(b%3)] = g.value(ap, depth+1)
		}
		if b%13 == 5 {
			out["unknownField"] = "u"
		}
		return out
	case "array":
		items, _ := s["items"].(map[string]any)
		n := int(b % 4)
		out := make([]any, 0, n)
		for range n {
			out = append(out, g.value(items, depth+1))
		}
		return out
	case "string":
		return []any{"abc", "", "Z-9", "a.b/c", "10.0.0.1"}[int(b)%5]
	case "integer":
		return int64(int(b%64) - 8)
	case "number":
		return []any{0.5, int64(2), -1.25, int64(0)}[int(b)%4]
	case "boolean":
		return b%2 == 0
	}
	return wild[int(b)%len(wild)]
}

// FuzzParity draws objects for the CRDs of the corpus and checks that
// linter/schema and the API server's validation give the same verdict and
// find the same number of unknown fields. One input in four (which%4 == 3)
// draws CEL rules instead (fuzzCEL): XP420 and the API server must agree
// on the CRD, and, on an object, linter/schema with the CEL extension and
// the API server's CEL validator on the verdict and the violations.
func FuzzParity(f *testing.F) {
	f.Add(uint16(0), []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
	f.Add(uint16(1), []byte{3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3})
	f.Add(uint16(7), []byte{0, 11, 22, 33, 44, 55, 66, 77, 88, 99})
	f.Add(uint16(42), []byte(strings.Repeat("\x03\x01\x05", 40)))
	for i := range 24 {
		f.Add(uint16(4*i+3), []byte(strings.Repeat(string(rune('0'+i)), 5+i)+"\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f"))
	}
	v, crds := fuzzSetup()
	if len(crds) == 0 {
		f.Fatal("no CRDs to fuzz with")
	}
	f.Fuzz(func(t *testing.T, which uint16, data []byte) {
		// A watchdog turns a hang into a failure the fuzzer records, and
		// an allocation bound reports amplification, as the parser's and
		// linter/schema's fuzz targets do.
		watchdog := time.AfterFunc(fuzzTimeout, func() {
			panic(fmt.Sprintf("ran past %v on %d bytes", fuzzTimeout, len(data)))
		})
		defer watchdog.Stop()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		defer func() {
			var after runtime.MemStats
			runtime.ReadMemStats(&after)
			if got, max := after.TotalAlloc-before.TotalAlloc, uint64(fuzzAllocBase+fuzzAllocPerByte*len(data)); got > max {
				t.Fatalf("allocated %d bytes for %d bytes of input (bound %d)", got, len(data), max)
			}
		}()
		// One input in four: generated CEL rules (XP420's verdict on the
		// CRD) over generated objects (the CEL extension's violations).
		if which%4 == 3 {
			fuzzCEL(t, data)
			return
		}
		c := crds[int(which)%len(crds)]
		g := &gen{data: data}
		obj, _ := g.value(c.schema, 0).(map[string]any)
		if obj == nil {
			obj = map[string]any{}
		}
		obj["apiVersion"] = c.group + "/" + c.version
		obj["kind"] = c.kind
		obj["metadata"] = map[string]any{"name": "fuzz"}
		ours, ref, ou, ru, detail := verdicts(t, v, c.schema, obj)
		if ours != ref || ou != ru {
			t.Fatalf("%s %s/%s: ours valid=%v unknown=%d, reference valid=%v pruned=%d\nobject: %v\n%s",
				c.kind, c.group, c.version, ours, ou, ref, ru, obj, detail)
		}
	})
}
