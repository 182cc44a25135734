package apidiff

import (
	"encoding/json"
	"testing"
)

func TestSameSchema(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		a, b string
		want bool
	}{
		{"equal", `{"type":"object","properties":{"a":{"type":"string"}}}`, `{"type":"object","properties":{"a":{"type":"string"}}}`, true},
		{"descriptions differ", `{"description":"x","properties":{"a":{"type":"string","description":"1"}}}`, `{"properties":{"a":{"type":"string","description":"2","title":"t"}}}`, true},
		{"in items and combinators", `{"items":{"description":"1","type":"string"},"anyOf":[{"description":"a","required":["x"]}]}`, `{"items":{"type":"string"},"anyOf":[{"required":["x"]}]}`, true},
		{"a field named description", `{"properties":{"description":{"type":"string"}}}`, `{"properties":{}}`, false},
		{"a field named description retyped", `{"properties":{"description":{"type":"string"}}}`, `{"properties":{"description":{"type":"integer"}}}`, false},
		{"type differs", `{"type":"string"}`, `{"type":"integer"}`, false},
		{"keyword added", `{"type":"string"}`, `{"type":"string","maxLength":3}`, false},
		{"additionalProperties", `{"additionalProperties":{"type":"string","description":"a"}}`, `{"additionalProperties":{"type":"string"}}`, true},
		{"additionalProperties bool", `{"additionalProperties":true}`, `{"additionalProperties":false}`, false},
		{"list lengths", `{"allOf":[{"type":"string"}]}`, `{"allOf":[{"type":"string"},{"maxLength":1}]}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var a, b any
			if err := json.Unmarshal([]byte(tc.a), &a); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(tc.b), &b); err != nil {
				t.Fatal(err)
			}
			if got := sameSchema(a, b); got != tc.want {
				t.Errorf("sameSchema = %v, want %v", got, tc.want)
			}
			if got := sameSchema(b, a); got != tc.want {
				t.Errorf("sameSchema (swapped) = %v, want %v", got, tc.want)
			}
		})
	}
}
