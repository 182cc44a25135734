package sent

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/xpkgkit/xpkgkit/internal/target"
)

// at returns the value at path in v, and whether it is there.
func at(v any, path string) (any, bool) {
	for _, k := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[k]; !ok {
				return nil, false
			}
		case []any:
			i := int(k[0] - '0')
			if len(k) != 1 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

func TestSend(t *testing.T) {
	t.Parallel()
	const op = "apiVersion: ops.crossplane.io/v1alpha1\nkind: Operation\nmetadata:\n  name: once\n"
	cases := []struct {
		name, line, yaml string
		// want maps a path to the JSON sent there ("-": absent).
		want map[string]string
		// zeroed are the paths Report.Zeroed names; dropped the paths
		// it lists as dropped.
		zeroed, dropped []string
	}{
		{
			name: "operation without mode", line: "v2.4",
			yaml:   op + "spec:\n  pipeline:\n  - step: run\n    functionRef: {name: f}\n",
			want:   map[string]string{"spec.mode": `""`, "spec.pipeline.0.step": `"run"`, "spec.pipeline.0.functionRef.name": `"f"`},
			zeroed: []string{"spec.mode"},
		},
		{
			name: "null is absent", line: "v2.3",
			yaml:   op + "spec:\n  mode: null\n  pipeline:\n  - step: run\n    functionRef: {name: f}\n",
			want:   map[string]string{"spec.mode": `""`},
			zeroed: []string{"spec.mode"},
		},
		{
			name: "empty step", line: "v2.4",
			yaml:   op + "spec:\n  mode: Pipeline\n  pipeline:\n  - {}\n",
			want:   map[string]string{"spec.pipeline.0.step": `""`, "spec.pipeline.0.functionRef": `{"name":""}`, "spec.pipeline.0.input": "-"},
			zeroed: []string{"spec.pipeline.0.step", "spec.pipeline.0.functionRef"},
		},
		{
			name: "unknown fields dropped, case-sensitive", line: "v2.4",
			yaml:    op + "spec:\n  Mode: Pipeline\n  mode: Pipeline\n  pipeline:\n  - step: run\n    functionRef: {name: f, extra: 1}\n",
			want:    map[string]string{"spec.Mode": "-", "spec.pipeline.0.functionRef.extra": "-", "spec.mode": `"Pipeline"`},
			dropped: []string{"spec.Mode", "spec.pipeline.0.functionRef.extra"},
		},
		{
			name: "opaque values kept as written", line: "v2.4",
			yaml: op + "spec:\n  mode: Pipeline\n  pipeline:\n  - step: run\n    functionRef: {name: f}\n    input: {apiVersion: x/v1, kind: In, anything: [1, {b: c}]}\n",
			want: map[string]string{"spec.pipeline.0.input": `{"anything":[1,{"b":"c"}],"apiVersion":"x/v1","kind":"In"}`},
		},
		{
			name: "cron operation without schedule", line: "v2.4",
			yaml:   "apiVersion: ops.crossplane.io/v1alpha1\nkind: CronOperation\nmetadata:\n  name: c\nspec:\n  operationTemplate:\n    spec:\n      mode: Pipeline\n      pipeline:\n      - step: run\n        functionRef: {name: f}\n",
			want:   map[string]string{"spec.schedule": `""`},
			zeroed: []string{"spec.schedule"},
		},
		{
			name: "composition type ref without kind", line: "v2.1",
			yaml:   "apiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata:\n  name: c\nspec:\n  compositeTypeRef: {apiVersion: example.org/v1}\n  mode: Pipeline\n  pipeline:\n  - step: run\n    functionRef: {name: f}\n",
			want:   map[string]string{"spec.compositeTypeRef.kind": `""`, "spec.compositeTypeRef.apiVersion": `"example.org/v1"`},
			zeroed: []string{"spec.compositeTypeRef.kind"},
		},
		{
			name: "type mismatch kept", line: "v2.4",
			yaml: op + "spec:\n  mode: Pipeline\n  pipeline: {step: run}\n",
			want: map[string]string{"spec.pipeline": `{"step":"run"}`},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var obj map[string]any
			if err := yaml.Unmarshal([]byte(c.yaml), &obj); err != nil {
				t.Fatal(err)
			}
			before, _ := json.Marshal(obj)
			gv, _ := obj["apiVersion"].(string)
			group, version, _ := strings.Cut(gv, "/")
			out, rep, ok, err := Send(context.Background(), c.line, group, version, obj["kind"].(string), obj)
			if err != nil || !ok {
				t.Fatalf("Send: ok %v, %v", ok, err)
			}
			for p, want := range c.want {
				v, found := at(out, p)
				switch {
				case want == "-" && found:
					t.Errorf("%s: sent %v, want it absent", p, v)
				case want == "-":
				case !found:
					t.Errorf("%s: absent, want %s", p, want)
				default:
					got, _ := json.Marshal(v)
					if string(got) != want {
						t.Errorf("%s: sent %s, want %s", p, got, want)
					}
				}
			}
			for _, p := range c.zeroed {
				if _, ok := rep.Zeroed(strings.Split(p, ".")); !ok {
					t.Errorf("Zeroed(%s) = false", p)
				}
			}
			var dropped []string
			for _, d := range rep.Dropped {
				dropped = append(dropped, strings.Join(d, "."))
			}
			slices.Sort(dropped)
			if !slices.Equal(dropped, c.dropped) || rep.DroppedCount != len(c.dropped) {
				t.Errorf("dropped %v (%d), want %v", dropped, rep.DroppedCount, c.dropped)
			}
			if after, _ := json.Marshal(obj); string(after) != string(before) {
				t.Errorf("Send changed its input:\n%s\n%s", before, after)
			}
		})
	}
}

// TestSendUntyped: a kind the line's Go types do not include, and a line
// the table does not hold, are not typed.
func TestSendUntyped(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ line, group, version, kind string }{
		{"v1.20", "ops.crossplane.io", "v1alpha1", "Operation"},
		{"v2.4", "apiextensions.k8s.io", "v1", "CustomResourceDefinition"},
		{"v9.9", "ops.crossplane.io", "v1alpha1", "Operation"},
	} {
		if _, _, ok, err := Send(context.Background(), c.line, c.group, c.version, c.kind, map[string]any{}); ok || err != nil {
			t.Errorf("%v: ok %v, err %v; want not typed", c, ok, err)
		}
		if Typed(c.line, c.group, c.version, c.kind) {
			t.Errorf("%v: Typed", c)
		}
	}
}

// TestSendCanceled: a canceled context stops the round trip.
func TestSendCanceled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	steps := make([]any, 5000)
	for i := range steps {
		steps[i] = map[string]any{}
	}
	obj := map[string]any{"spec": map[string]any{"pipeline": steps}}
	if _, _, _, err := Send(ctx, "v2.4", "ops.crossplane.io", "v1alpha1", "Operation", obj); !errors.Is(err, context.Canceled) {
		t.Errorf("err %v, want context.Canceled", err)
	}
}

// TestLines: the table holds every release line of internal/target, with
// each of Crossplane's kinds the line serves.
func TestLines(t *testing.T) {
	t.Parallel()
	for _, r := range target.Releases() {
		if Source(r.Line) == "" {
			t.Errorf("no Go types for %s", r.Line)
			continue
		}
		if !Typed(r.Line, "apiextensions.crossplane.io", "v1", "Composition") {
			t.Errorf("%s: no Composition", r.Line)
		}
		if got := Typed(r.Line, "ops.crossplane.io", "v1alpha1", "Operation"); got != r.V2Kinds {
			t.Errorf("%s: Operation typed %v, want %v", r.Line, got, r.V2Kinds)
		}
	}
}

// TestSendTooLarge: zero values that would take the sent object past
// MaxNodes stop the round trip with ErrTooLarge; just under it, it is
// sent.
func TestSendTooLarge(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		steps int
		want  error
	}{{57_000, nil}, {58_000, ErrTooLarge}} {
		steps := make([]any, c.steps)
		for i := range steps {
			steps[i] = map[string]any{}
		}
		obj := map[string]any{"spec": map[string]any{"mode": "Pipeline", "pipeline": steps}}
		if _, _, _, err := Send(context.Background(), "v2.4", "ops.crossplane.io", "v1alpha1", "Operation", obj); !errors.Is(err, c.want) {
			t.Errorf("%d empty steps: err %v, want %v", c.steps, err, c.want)
		}
	}
}
