package schema_test

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	lschema "github.com/xpkgkit/xpkgkit/linter/schema"
	"github.com/xpkgkit/xpkgkit/parser"
)

// Fuzz bounds, as the parser's: an input may make a validation allocate at
// most fuzzAllocBase plus fuzzAllocPerByte bytes for each of its bytes, and
// run at most fuzzTimeout. The fuzzer then reports amplification (a schema
// and an object that buy much more memory or time than their size: schema
// times data), not only panics.
const (
	fuzzAllocBase    = 64 << 20
	fuzzAllocPerByte = 4096
	fuzzTimeout      = 10 * time.Second
)

// fuzzBounds starts the watchdog and the allocation count of one fuzz
// input; the function it returns (to defer) stops the watchdog and fails t
// when the input allocated past the bound.
func fuzzBounds(t *testing.T, size int, in string) func() {
	t.Helper()
	// A watchdog turns a hang into a failure the fuzzer records (a panic
	// on its own goroutine, since t.Fatal cannot be called from there).
	watchdog := time.AfterFunc(fuzzTimeout, func() {
		panic(fmt.Sprintf("ran past %v on %d bytes: %.200q", fuzzTimeout, size, in))
	})
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	return func() {
		watchdog.Stop()
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		if got, max := after.TotalAlloc-before.TotalAlloc, uint64(fuzzAllocBase+fuzzAllocPerByte*size); got > max {
			t.Fatalf("allocated %d bytes for %d bytes of input (bound %d)", got, size, max)
		}
	}
}

// FuzzValidate validates an object (JSON) against a CRD whose
// openAPIV3Schema is the schema given (JSON), full and types-only, within
// the fuzz bounds: no panic, no hang, no allocation beyond a multiple of
// the input's size, and a typed error or a result.
func FuzzValidate(f *testing.F) {
	seeds := [][2]string{
		{`{"type":"object","properties":{"spec":{"type":"object","properties":{"size":{"type":"integer"}}}}}`, `{"spec":{"size":"x"}}`},
		{`{"type":"object","properties":{"l":{"type":"array","items":{"type":"object","properties":{"d":{"type":"array","default":[1,2,3]}}}}}}`, `{"l":[{},{},{}]}`},
		{`{"type":"object","properties":{"l":{"type":"array","items":{"type":"string","enum":["a","b"]}}}}`, `{"l":["c","d"]}`},
		{`{"type":"object","properties":{"l":{"type":"array","uniqueItems":true,"x-kubernetes-list-type":"set","items":{"type":"string"}}}}`, `{"l":["a","a"]}`},
		{`{"type":"object","properties":{"s":{"type":"string","pattern":"^([a-z]+.){20}z$"}}}`, `{"s":"abababababababababababababab"}`},
		{`{"type":"object","properties":{"l":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["a","b"],"items":{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}}}}}}`, `{"l":[{"a":"x"},{"a":"x"}]}`},
		{`{"type":"object","properties":{"s":{"anyOf":[{"maxLength":1},{"minLength":3}],"not":{"maxLength":0},"oneOf":[{"maxLength":5}],"allOf":[{"minLength":1}]}}}`, `{"s":"ab"}`},
		{`{"type":"object","properties":{"m":{"type":"object","additionalProperties":{"type":"integer"},"required":["a.b"]}}}`, `{"m":{"a.b":"x","c":1}}`},
		{`{"type":"object","properties":{"e":{"type":"object","x-kubernetes-embedded-resource":true,"x-kubernetes-preserve-unknown-fields":true}}}`, `{"e":{"a":1}}`},
	}
	for _, s := range seeds {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, schemaJSON, objJSON string) {
		defer fuzzBounds(t, len(schemaJSON)+len(objJSON), schemaJSON+"\n"+objJSON)()
		var obj map[string]any
		if json.Unmarshal([]byte(objJSON), &obj) != nil || obj == nil {
			return
		}
		if strings.ContainsAny(schemaJSON, "\n\r") {
			return // the CRD stream embeds it on one line
		}
		pkg, err := parser.Parse(context.Background(), strings.NewReader(crdWith(schemaJSON)))
		if err != nil || len(pkg.Objects) == 0 {
			return
		}
		obj["apiVersion"], obj["kind"] = "example.org/v1", "Thing"
		v := lschema.New(pkg.Objects)
		for _, opts := range [][]lschema.ValidateOption{nil, {lschema.WithTypesOnly()}, {lschema.WithoutRequired()}} {
			r, err := v.Validate(context.Background(), obj, opts...)
			if err == nil && r == nil {
				t.Fatal("no result and no error")
			}
			if r != nil && len(r.Violations) > 1000 {
				t.Fatalf("%d violations listed, over MaxViolations", len(r.Violations))
			}
		}
	})
}
