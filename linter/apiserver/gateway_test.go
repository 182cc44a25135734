package apiserver

import (
	"context"
	"errors"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"
)

// gatewayImports are the import paths of the code the gateway bounds: the
// API server's (CRD validation, custom resource validation, the CEL
// compiler and evaluator), and kube-openapi's validators and the CEL
// library it reaches through them.
var gatewayImports = []string{
	"k8s.io/apiextensions-apiserver/",
	"k8s.io/apiserver/",
	"k8s.io/kube-openapi/pkg/validation/",
	"github.com/google/cel-go/",
}

// TestGatewayConfinesImports fails when a file of the package other than
// the gateway's (gateway*.go) imports the code the gateway bounds: every
// call into it must go through the gateway's pre-count, limits and
// context. Tests may import it (to build inputs).
func TestGatewayConfinesImports(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	gatewayFiles := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		ast, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		gateway := strings.HasPrefix(f, "gateway")
		for _, imp := range ast.Imports {
			path, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				t.Fatal(err)
			}
			for _, prefix := range gatewayImports {
				if !strings.HasPrefix(path+"/", prefix) {
					continue
				}
				if gateway {
					gatewayFiles++
					continue
				}
				t.Errorf("%s imports %s: only the gateway's files (gateway*.go) may call the API server's code", f, path)
			}
		}
	}
	if gatewayFiles == 0 {
		t.Errorf("no gateway file imports the API server's code: the test looks at the wrong files")
	}
}

func TestCountCRD(t *testing.T) {
	t.Parallel()
	const crd = `
spec:
  versions:
  - name: v1
    schema:
      openAPIV3Schema: &s
        type: object
        properties:
          spec:
            type: object
            properties:
              l: {type: array, items: {type: string}, default: [a, b, c]}
              e: {type: string, enum: [x, y]}
              o: {type: object, default: {a: [1, 2]}}
            x-kubernetes-validations:
            - rule: self.l.size() > 0
              messageExpression: "'too short'"
            - rule: has(self.e)
  - name: v2
    schema:
      openAPIV3Schema: *s
`
	var content map[string]any
	if err := yaml.Unmarshal([]byte(crd), &content); err != nil {
		t.Fatal(err)
	}
	got := countCRD(content)
	// Per version: 6 schema nodes (the items schema one); the default list (1+3), the two enum
	// values, the default object (1 + 1 list + 2); 3 rules (a
	// messageExpression is compiled too) of 17+11+11 bytes. Once: every
	// version has the same schema, which the API server validates once.
	once := callCost{values: 4 + 2 + 4, rules: 3, ruleBytes: 17 + 11 + 11, nodes: 6, schemaRules: 3, schemaRuleBytes: 17 + 11 + 11}
	if got != once {
		t.Errorf("countCRD = %+v, want %+v", got, once)
	}
	// A third version with its own schema: each version's is counted
	// (v1's and v2's through the alias).
	versions := content["spec"].(map[string]any)["versions"].([]any)
	content["spec"].(map[string]any)["versions"] = append(versions, map[string]any{"name": "v3", "schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object"}}})
	got = countCRD(content)
	want := callCost{values: 2 * once.values, rules: 2 * once.rules, ruleBytes: 2 * once.ruleBytes, nodes: 2*once.nodes + 1,
		schemaRules: 2 * once.schemaRules, schemaRuleBytes: 2 * once.schemaRuleBytes}
	if got != want {
		t.Errorf("countCRD with a third version = %+v, want %+v", got, want)
	}
}

// TestCountCRDDefaults checks that the rules under a default count once
// more for it (the API server compiles and runs them on the default),
// linearly however deep defaults nest, and that a rule whose regular
// expression the cost model cannot price is refused under a default.
func TestCountCRDDefaults(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, schema string
		rules        int64
		refused      string // in over's error; "" for none
	}{
		{"no default", `{type: object, x-kubernetes-validations: [{rule: "true"}]}`, 1, ""},
		{"a default above", `{type: object, default: {}, properties: {a: {type: string, x-kubernetes-validations: [{rule: "true"}]}}}`, 2, ""},
		{"nested defaults", `{type: object, default: {}, properties: {a: {type: object, default: {}, properties: {b: {type: string, x-kubernetes-validations: [{rule: "true"}]}}}}}`, 3, ""},
		{"a costly pattern, no default", `{type: object, properties: {s: {type: string, pattern: '(?:a?a?a?a?a?a?a?a?){999}x'}}}`, 0, ""},
		{"costly patterns under a default", `{type: object, default: {}, properties: {` + strings.Repeat(`s: {type: string, pattern: '(?:a?a?a?a?a?a?a?a?){999}x'}, `, 1) + `t: {type: string, pattern: '(?:a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?){999}x'}, u: {type: string, pattern: '(?:a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?a?){999}x'}}}`, 0, "instructions of the patterns to compile"},
		{"a run-time regex, no default", `{type: object, properties: {s: {type: string}, p: {type: string}}, x-kubernetes-validations: [{rule: "self.s.matches(self.p)"}]}`, 1, ""},
		{"a run-time regex under a default", `{type: object, default: {s: a, p: a}, properties: {s: {type: string}, p: {type: string}}, x-kubernetes-validations: [{rule: "self.s.matches(self.p)"}]}`, 2, "regular expression the cost model cannot price"},
	} {
		var root map[string]any
		if err := yaml.Unmarshal([]byte("{spec: {versions: [{name: v1, schema: {openAPIV3Schema: "+tc.schema+"}}]}}"), &root); err != nil {
			t.Fatal(err)
		}
		c := countCRD(root)
		if c.rules != tc.rules {
			t.Errorf("%s: %d rules counted, want %d", tc.name, c.rules, tc.rules)
		}
		err := c.over()
		if (err == nil) != (tc.refused == "") || err != nil && !strings.Contains(err.Error(), tc.refused) {
			t.Errorf("%s: over() = %v, want an error saying %q", tc.name, err, tc.refused)
		}
	}
}

func TestCallCostOver(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		cost callCost
		want string // in the error; "" for none
	}{
		{callCost{values: maxCallValues, rules: maxCallRules, ruleBytes: maxCallRuleBytes, nodes: maxCallNodes}, ""},
		{callCost{values: maxCallValues + 1}, "5001 or more default and enum values to check, over the API server gateway's limit of 5000 for one definition"},
		{callCost{rules: maxCallRules + 1}, "2001 or more CEL rules to compile"},
		{callCost{ruleBytes: maxCallRuleBytes + 1}, "131073 or more bytes of CEL rules to compile, over the API server gateway's limit of 131072"},
		{callCost{nodes: maxCallNodes + 1}, "schema nodes"},
		{callCost{patternInsts: maxCallPatternInsts + 1}, "instructions of the patterns to compile"},
	} {
		err := tc.cost.over()
		if tc.want == "" {
			if err != nil {
				t.Errorf("%+v: %v, want none", tc.cost, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, errOverBudget) {
			t.Errorf("%+v: %v, want an errOverBudget saying %q", tc.cost, err, tc.want)
		}
	}
}

// TestRunBudgetOrder checks that the run budget's verdicts depend on the
// package's order only: a worker that leaves a call out (exceeds) is
// always refused at its charge.
func TestRunBudgetOrder(t *testing.T) {
	t.Parallel()
	var b runBudget
	big := callCost{rules: maxRunRules/2 + 1}
	if b.exceeds(big) {
		t.Fatal("the first half exceeds an empty budget")
	}
	if err := b.charge(big); err != nil {
		t.Fatal(err)
	}
	if !b.exceeds(big) {
		t.Fatal("a second half does not exceed the budget")
	}
	err := b.charge(big)
	if err == nil || !errors.Is(err, errOverBudget) || !strings.Contains(err.Error(), "for the package") {
		t.Errorf("charge over the budget: %v", err)
	}
	if err := b.charge(callCost{rules: 1}); err != nil {
		t.Errorf("a small call after a refused one: %v", err)
	}
}

func TestRegexUse(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		rule, msg string
		dynamic   bool
		insts     int // at least; 0: none
	}{
		{rule: "self.size() > 0"},
		{rule: "self.matches('^[a-z]+$')", insts: 1},
		{rule: `self.matches("^[a-z]+$") && self.find('[0-9]') == ''`, insts: 1},
		{rule: "self.findAll('[0-9]', 2).size() < 3", insts: 1},
		{rule: "self.s.matches(self.p)", dynamic: true},
		{rule: "self.s.matches('(a?)' + '{999}x')", dynamic: true},
		{rule: "matches(self.s, '^a$')", dynamic: true},
		{rule: "matches('^a$', self.p)", dynamic: true},
		{rule: "self.s.find('a', self.p) == ''", dynamic: true},
		{rule: "self.s.matches // a comment\n('^a$')", dynamic: true},
		{rule: "self.s.matches(r'^a$')", dynamic: true},
		{rule: "true", msg: "self.s.matches(self.p) ? 'a' : 'b'", dynamic: true},
		{rule: "'matches' == self.s", dynamic: true},
		// CEL's escapes: \x28 is '(' to CEL.
		{rule: `self.s.matches('\x28?:a?a?a?a?\x29{999}x')`, insts: 5000},
		{rule: `self.s.matches('\\d+\?')`, insts: 1},
		{rule: `self.s.matches('\q')`, dynamic: true},
	} {
		got := regexUse(tc.rule, tc.msg)
		if got.dynamic != tc.dynamic || (tc.insts == 0) != (got.insts == 0) || got.insts < tc.insts {
			t.Errorf("regexUse(%q, %q) = %+v, want dynamic %t and at least %d instructions", tc.rule, tc.msg, got, tc.dynamic, tc.insts)
		}
	}
}

// TestGatewayFixtureIsLarge keeps the limits fixture over the limits it
// tests (it is generated by hand).
func TestGatewayFixtureIsLarge(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("testdata/crd/gateway-limits.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "- rule:"); n <= maxCallRules {
		t.Errorf("%d rules in the fixture, want more than %d", n, maxCallRules)
	}
}

func TestMemGate(t *testing.T) {
	t.Parallel()
	g := &memGate{changed: make(chan struct{})}
	ctx := t.Context()
	// The first enters whatever its size; a second waits while the bytes
	// in would go over maxInFlightBytes.
	if err := g.acquire(ctx, 8<<20); err != nil {
		t.Fatal(err)
	}
	entered := make(chan error, 1)
	go func() { entered <- g.acquire(ctx, 1) }()
	select {
	case err := <-entered:
		t.Fatalf("a second entered beside 8 MiB in (err %v)", err)
	case <-time.After(20 * time.Millisecond):
	}
	g.release(8 << 20)
	if err := <-entered; err != nil {
		t.Fatal(err)
	}
	// Small ones enter together, within the bound.
	if err := g.acquire(ctx, maxInFlightBytes-1); err != nil {
		t.Fatal(err)
	}
	g.release(maxInFlightBytes - 1)
	g.release(1)
	// A cancelled context stops the wait.
	if err := g.acquire(ctx, 8<<20); err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := g.acquire(cctx, 8<<20); !errors.Is(err, context.Canceled) {
		t.Errorf("acquire under a cancelled context: %v, want context.Canceled", err)
	}
	g.release(8 << 20)
	if g.n != 0 || g.bytes != 0 {
		t.Errorf("after every release: %d in, %d bytes", g.n, g.bytes)
	}
}

// TestCELRegexNotEvaluated checks that the CEL Extension leaves out a
// rule whose regular expression is built at run time, and one whose
// literal pattern is too large for the object's strings, counting them
// (Cost, Regex), and still evaluates a rule with a small literal pattern.
func TestCELRegexNotEvaluated(t *testing.T) {
	t.Parallel()
	var schema map[string]any
	if err := yaml.Unmarshal([]byte(`
type: object
properties:
  s: {type: string}
  p: {type: string}
x-kubernetes-validations:
- rule: "!self.s.matches(self.p)"
- rule: "!self.s.matches('(?:a?a?' + 'a?a?){999}x')"
- rule: "self.s.matches('^b')"
`), &schema); err != nil {
		t.Fatal(err)
	}
	chk, err := CEL().Compile(schema)
	if err != nil {
		t.Fatal(err)
	}
	res := chk.Check(t.Context(), map[string]any{"s": strings.Repeat("a", 400), "p": "(?:a?a?a?a?a?a?a?a?){999}x"}, false)
	if res.CEL.Regex != 2 || res.CEL.Cost != 2 {
		t.Errorf("counts %+v, want 2 rules left out for their regular expressions", res.CEL)
	}
	if len(res.Violations) != 1 || !strings.Contains(res.Violations[0].Message, "^b") {
		t.Errorf("violations %+v, want the literal rule's only", res.Violations)
	}
}

// TestCELRegexOverwork checks that a literal pattern within
// maxRegexInsts is evaluated on short strings and left out on strings
// long enough for its program times their length to pass maxRegexWork.
func TestCELRegexOverwork(t *testing.T) {
	t.Parallel()
	var schema map[string]any
	if err := yaml.Unmarshal([]byte(`
type: object
properties:
  s: {type: string}
x-kubernetes-validations:
- rule: "self.s.matches('^(?:[a-z]+.){150}z$')"
`), &schema); err != nil {
		t.Fatal(err)
	}
	chk, err := CEL().Compile(schema)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		n     int
		regex int
	}{{400, 0}, {16000, 1}} {
		res := chk.Check(t.Context(), map[string]any{"s": strings.Repeat("a", tc.n)}, false)
		if res.CEL.Regex != tc.regex {
			t.Errorf("a string of %d bytes: counts %+v, want %d left out for its regular expression", tc.n, res.CEL, tc.regex)
		}
		if tc.regex == 0 && len(res.Violations) != 1 {
			t.Errorf("a string of %d bytes: violations %+v, want the rule's", tc.n, res.Violations)
		}
	}
}

// TestPatternSize checks the estimate against regexp/syntax's programs:
// never below.
func TestPatternSize(t *testing.T) {
	t.Parallel()
	for _, p := range []string{`^[a-z]+$`, `(?:a?a?a?a?a?a?a?a?){999}x`, `^([a-z]+.){1000}z$`, `((a|b){10}c){20}`, `(a{2,}){50}`, `\d{3}-\d{4}`, `x*`} {
		if got, want := patternSize(p), int64(regexInsts(p)); got < want {
			t.Errorf("patternSize(%q) = %d, below the program's %d instructions", p, got, want)
		}
	}
}
