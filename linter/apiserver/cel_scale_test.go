package apiserver

import (
	"context"
	"strings"
	"testing"

	celconfig "k8s.io/apiserver/pkg/apis/cel"
)

func TestStringScale(t *testing.T) {
	t.Parallel()
	long := func(n int) string { return strings.Repeat("a", n) }
	for _, tc := range []struct {
		name string
		obj  any
		want int64
	}{
		{"nothing", nil, 1},
		{"no strings", map[string]any{"n": int64(1), "l": []any{true, 1.5}}, 1},
		{"at the bound", map[string]any{"s": long(stringScaleBytes)}, 1},
		{"one past", map[string]any{"s": long(stringScaleBytes + 1)}, 2},
		{"in a list", map[string]any{"l": []any{"a", long(1000)}}, 4},
		{"a key", map[string]any{long(600): "a"}, 4},
		{"deep", map[string]any{"a": map[string]any{"b": []any{map[string]any{"c": long(70000)}}}}, 512},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := stringScale(tc.obj); got != tc.want {
				t.Errorf("stringScale = %d, want %d", got, tc.want)
			}
		})
	}
}

// TestCELLongStrings checks that long strings cut the CEL budget of an
// object, not the verdict of a cheap rule: size() on a string costs one
// unit whatever its length, so the per-call limit and the object's budget
// are divided by stringScale, and the Extension's budget is charged the
// cost times it.
func TestCELLongStrings(t *testing.T) {
	t.Parallel()
	schema := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"l": map[string]any{"type": "array", "maxItems": int64(100), "items": map[string]any{"type": "string", "maxLength": int64(70000)}},
		},
		"x-kubernetes-validations": []any{
			map[string]any{"rule": "self.l.all(x, x.size() < 5000)"},
			map[string]any{"rule": "self.l.all(x, self.l.all(y, x.size() + y.size() != 1))"},
		},
	}
	list := func(n, size int) []any {
		l := make([]any, n)
		for i := range l {
			l[i] = strings.Repeat("a", size)
		}
		return l
	}
	for _, tc := range []struct {
		name       string
		obj        map[string]any
		violations int
		cost       int
	}{
		// Short strings: both rules run, the first fails on none.
		{name: "short", obj: map[string]any{"l": list(100, 100)}},
		// Long strings, few of them: both rules are cheap enough to run
		// within the reduced limits, and the first fails.
		{name: "few long", obj: map[string]any{"l": list(2, 6000)}, violations: 1},
		// 100 strings of 70,000 characters: the nested rule's 10,000
		// size() calls are over the reduced per-call limit, and count as
		// skipped for cost rather than as the API server's refusal.
		{name: "many long", obj: map[string]any{"l": list(100, 70000)}, violations: 1, cost: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			x := newCEL(DefaultBudget)
			c, err := x.Compile(schema)
			if err != nil {
				t.Fatal(err)
			}
			res := c.Check(context.Background(), tc.obj, false)
			if len(res.Violations) != tc.violations || res.CEL.Cost != tc.cost {
				t.Errorf("violations %v, cost-skipped %d; want %d violations, %d cost-skipped", res.Violations, res.CEL.Cost, tc.violations, tc.cost)
			}
			spent := DefaultBudget - x.budget.Load()
			if spent <= 0 || spent > celconfig.RuntimeCELCostBudget {
				t.Errorf("the Extension's budget was charged %d, want within (0, %d]", spent, celconfig.RuntimeCELCostBudget)
			}
		})
	}
}
