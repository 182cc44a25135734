package apiserver

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
)

// TestMarshalJSON checks that marshalJSON writes what json.Marshal writes,
// on tricky values and on every object of a corpus package.
func TestMarshalJSON(t *testing.T) {
	t.Parallel()
	values := []any{
		nil, true, false, "", "plain", "q\"b\\s/", "<a>&b", "\x00\x01\x1f\x7f", "\b\f\n\r\t",
		"é ü 日本", "\u2028\u2029", "bad \xff\xfe utf8 \xc3", "\U0001F600",
		int64(0), int64(-1), int64(math.MaxInt64), int64(math.MinInt64), 7,
		0.0, math.Copysign(0, -1), 1.5, -2.25, 1e-7, 1e-6, 1e20, 1e21, 6.02e23, 1.5e-300, math.MaxFloat64, math.SmallestNonzeroFloat64, 100.0, 1e-10,
		[]any{}, []any(nil), map[string]any{}, map[string]any(nil),
		map[string]any{"b": int64(1), "a": []any{map[string]any{"z": nil, "y": "x"}}, "": 1.5, "é": true, "<": "&"},
	}
	for _, v := range values {
		want, werr := json.Marshal(v)
		got, gerr := marshalJSON(v)
		if (werr != nil) != (gerr != nil) || !bytes.Equal(got, want) {
			t.Errorf("marshalJSON(%#v) = %s, %v; json.Marshal: %s, %v", v, got, gerr, want, werr)
		}
	}
	for _, v := range []any{math.Inf(1), math.NaN(), map[string]any{"a": math.Inf(-1)}, []any{uint8(1)}, map[string]any{"a": struct{}{}}} {
		want, werr := json.Marshal(v)
		got, gerr := marshalJSON(v)
		if werr == nil && !bytes.Equal(got, want) || (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
			t.Errorf("marshalJSON(%#v) = %s, %v; json.Marshal: %s, %v", v, got, gerr, want, werr)
		}
	}
	pkg := parseCorpus(t, "provider-aws")
	for _, o := range pkg.Objects {
		u, err := o.Unstructured()
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(u.Object)
		got, err := marshalJSON(u.Object)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%s %s: marshalJSON differs from json.Marshal (%v)", o.Kind, o.ObjectMeta.Name, err)
		}
	}
}

func BenchmarkMarshalJSON(b *testing.B) {
	pkg := parseCorpus(b, "provider-aws")
	var objs []map[string]any
	for _, o := range pkg.Objects[:min(50, len(pkg.Objects))] {
		u, err := o.Unstructured()
		if err != nil {
			b.Fatal(err)
		}
		objs = append(objs, u.Object)
	}
	for _, name := range []string{"encoding-json", "marshalJSON"} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				for _, o := range objs {
					var err error
					if name == "marshalJSON" {
						_, err = marshalJSON(o)
					} else {
						_, err = json.Marshal(o)
					}
					if err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
