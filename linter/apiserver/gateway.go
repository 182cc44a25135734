package apiserver

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"regexp/syntax"
	"sync"
	"sync/atomic"
)

// The gateway. Every call into the API server's code (k8s.io/
// apiextensions-apiserver, the CEL compiler and evaluator through
// k8s.io/apiserver, kube-openapi's validators through both) is made in the
// files named gateway*.go, and only there: TestGatewayConfinesImports
// fails when another file of the package imports that code. Their cost is
// not ours to bound inside (kube-openapi merges each error into its result
// by comparing it with every error before it; the API server compiles
// every CEL rule of every version in its own environment; Go's regexp
// works in the compiled program's size, which the CEL cost model does not
// see), so the gateway bounds it from outside, by mechanism:
//
//   - before a call, a linear pre-count of what the call can do (the
//     values its default and enum checks can each report an error for,
//     the CEL rules it compiles and their bytes, version by version, so
//     that a schema aliased across versions counts once per version, and
//     the schema nodes it walks), charged against per-call limits and a
//     budget per rule run;
//   - a call over a limit or the budget is not made: the check says so
//     (info, "not validated: …", naming the limit), never passes in
//     silence;
//   - every call runs under the context: the caller returns as soon as
//     ctx is done (withContext), the API server's code not looking at it;
//   - CEL evaluation is charged in the CEL cost units the API server
//     enforces, priced up where the cost model under-prices the work
//     (stringScale for long strings, regexScale for a regular expression
//     the rule builds at run time).

// errOverBudget is the class of the gateway's refusals (budgetError).
var errOverBudget = errors.New("over the API server gateway's budget")

// budgetError is the gateway's refusal of a call: what it counted, and
// the limit the count went over.
type budgetError struct {
	what  string // what was counted, plural ("CEL rules")
	count int64  // the count (it stops early past the limit: "or more")
	limit int64
	run   bool // the limit is the rule run's budget, not one call's
}

func (e *budgetError) Error() string {
	scope := "one definition"
	if e.run {
		scope = "the package, over its definitions so far"
	}
	return fmt.Sprintf("%d or more %s, over the API server gateway's limit of %d for %s", e.count, e.what, e.limit, scope)
}

func (e *budgetError) Is(target error) bool { return target == errOverBudget }

// The gateway's limits on one call into the API server's CRD validation
// (XP420, XP421) and on one rule run. The largest CRDs of the corpus hold
// 22 rules of 1 KB in all, and at most a few hundred default and enum
// values; the upjet monolith about 2,800 rules over 900 CRDs.
const (
	// maxCallValues bounds the values of the defaults and enums of one
	// CRD: the API server checks each against its schema, and kube-openapi
	// merges each error by comparing it with every one before it (39,000
	// wrong items of one default: 14 s, 60 s on a loaded machine).
	maxCallValues = 5_000
	// maxCallRules and maxCallRuleBytes bound the CEL rules (and
	// messageExpressions) one CRD validation compiles, over its versions:
	// the API server compiles each in its own environment (20,000 short
	// rules: 409 MiB; 470 KB of rules aliased across 30 versions: 20 s).
	maxCallRules     = 2_000
	maxCallRuleBytes = 128 << 10
	// maxCallNodes bounds the schema nodes of one CRD validation, over
	// its versions (aliases expanded).
	maxCallNodes = 250_000
	// maxCallPatternInsts bounds the program size of the patterns one
	// CRD validation compiles to validate its defaults (about 0.2 µs and
	// 40 bytes an instruction, kept by kube-openapi for the life of the
	// process).
	maxCallPatternInsts = 200_000
	// maxRunRules and maxRunRuleBytes bound the CEL rules one rule run
	// compiles over all its definitions, as the gateway counts them
	// (again for each default above them and each version that does not
	// share its schema): provider-upjet-aws-monolith (2,844 rules of
	// 214 KB as written) counts over 512 KiB, which refused 113 of its
	// 2,065 CRDs, so the budget is twice that. At the budget, 40,000 short
	// rules take 4.6 s of CPU and 1 MiB of long ones 3.9 s
	// (gateway-run-rules-at-cap, gateway-run-rule-bytes-at-cap; xpkg-lint
	// under /usr/bin/time at load 4): under the hostile budget of 10 s.
	maxRunRules     = 40_000
	maxRunRuleBytes = 1 << 20
	// maxRunPatternInsts bounds the patterns' program size one rule run
	// has kube-openapi compile (and keep) for defaults: about 40 MiB.
	maxRunPatternInsts = 1_000_000
)

// callCost is the pre-count of one call into the API server's CRD
// validation.
type callCost struct {
	values    int64 // default and enum values
	rules     int64 // CEL rules and messageExpressions
	ruleBytes int64
	nodes     int64 // schema nodes
	// schemaRules and schemaRuleBytes count the rules of the schemas
	// once each (rules and ruleBytes count them again for each default
	// above them), schemaPatternInsts their literal patterns.
	schemaRules, schemaRuleBytes, schemaPatternInsts int64
	// patternInsts estimates the program size of the patterns a default
	// is validated against, and of the rules' literal regular
	// expressions, compiled with each rule (patternSize).
	patternInsts int64
	// unpriced counts the rules whose regular expression the cost model
	// cannot price (regexUse), unpricedDefaults those of them the API
	// server evaluates on a default.
	unpriced, unpricedDefaults int64
}

// over returns the per-call limit c goes over, or nil.
func (c callCost) over() error {
	switch {
	case c.values > maxCallValues:
		return &budgetError{what: "default and enum values to check", count: c.values, limit: maxCallValues}
	case c.rules > maxCallRules:
		return &budgetError{what: "CEL rules to compile", count: c.rules, limit: maxCallRules}
	case c.ruleBytes > maxCallRuleBytes:
		return &budgetError{what: "bytes of CEL rules to compile", count: c.ruleBytes, limit: maxCallRuleBytes}
	case c.nodes > maxCallNodes:
		return &budgetError{what: "schema nodes", count: c.nodes, limit: maxCallNodes}
	case c.patternInsts > maxCallPatternInsts:
		return &budgetError{what: "instructions of the patterns to compile (for defaults, and in CEL rules)", count: c.patternInsts, limit: maxCallPatternInsts}
	case c.unpricedDefaults > 0:
		return &budgetError{what: "evaluations on defaults of CEL rules whose regular expression the cost model cannot price (built at run time, or too large)", count: c.unpricedDefaults}
	}
	return nil
}

// runBudget is what one rule run may spend in the API server's CRD
// validation over all its definitions. Its charges are made in the
// package's order (charge, from ordered's emit), so that which definition
// goes over is the same on every run; a worker asks spent first (exceeds)
// and leaves out a call that is over already, which the charge, made
// later with at least as much spent, refuses too.
type runBudget struct {
	rules, ruleBytes, patternInsts atomic.Int64
}

// exceeds reports whether c would go over the budget after what was
// charged so far.
func (b *runBudget) exceeds(c callCost) bool {
	return b.rules.Load()+c.rules > maxRunRules || b.ruleBytes.Load()+c.ruleBytes > maxRunRuleBytes ||
		b.patternInsts.Load()+c.patternInsts > maxRunPatternInsts
}

// charge charges c, in the package's order, and returns the budget's
// refusal when it goes over (nothing is charged then).
func (b *runBudget) charge(c callCost) error {
	if r := b.rules.Load() + c.rules; r > maxRunRules {
		return &budgetError{what: "CEL rules to compile", count: r, limit: maxRunRules, run: true}
	}
	if n := b.ruleBytes.Load() + c.ruleBytes; n > maxRunRuleBytes {
		return &budgetError{what: "bytes of CEL rules to compile", count: n, limit: maxRunRuleBytes, run: true}
	}
	if n := b.patternInsts.Load() + c.patternInsts; n > maxRunPatternInsts {
		return &budgetError{what: "instructions of the patterns to compile (for defaults, and in CEL rules)", count: n, limit: maxRunPatternInsts, run: true}
	}
	b.rules.Add(c.rules)
	b.ruleBytes.Add(c.ruleBytes)
	b.patternInsts.Add(c.patternInsts)
	return nil
}

// countCRD pre-counts the validation of content, an apiextensions.k8s.io/v1
// CustomResourceDefinition as decoded JSON: every version's schema is
// counted, so a schema that versions share through a YAML alias counts
// once per version, as the API server validates it, unless every version
// has the same schema, which it validates once. The walk is linear in
// the schemas' nodes and stops once a count is past its limit.
func countCRD(content map[string]any) callCost {
	var c callCost
	spec, _ := content["spec"].(map[string]any)
	versions, _ := spec["versions"].([]any)
	schemas := make([]any, 0, len(versions))
	identical := true
	for _, v := range versions {
		vm, _ := v.(map[string]any)
		schemas = append(schemas, vm["schema"])
		identical = identical && reflect.DeepEqual(vm["schema"], schemas[0])
	}
	if identical && len(schemas) > 1 {
		// The conversion to the internal type moves a schema every
		// version shares to spec.validation, validated once
		// (apiextensions/v1 Convert_v1_CustomResourceDefinitionSpec_To_
		// apiextensions_CustomResourceDefinitionSpec).
		schemas = schemas[:1]
	}
	for _, s := range schemas {
		sm, _ := s.(map[string]any)
		countSchema(sm["openAPIV3Schema"], &c, false)
	}
	return c
}

// countSchema adds the cost of the schema s (a JSON Schema as decoded
// JSON) to c; underDefault tells that a default above s is validated
// against it.
func countSchema(s any, c *callCost, underDefault bool) {
	m, ok := s.(map[string]any)
	if !ok || c.over() != nil {
		return
	}
	c.nodes++
	if _, ok := m["default"]; ok {
		underDefault = true
		// The API server validates a default with the rules of its
		// schema's subtree, compiled for it (apiserver/schema/defaulting
		// validate: cel.NewValidator per default) and evaluated on it:
		// they count again, and a rule whose regular expression the cost
		// model cannot price (regexUse) is not run on it.
		rules, bytes, insts, unpriced := c.schemaRules, c.schemaRuleBytes, c.schemaPatternInsts, c.unpriced
		defer func() {
			c.rules += c.schemaRules - rules
			c.ruleBytes += c.schemaRuleBytes - bytes
			c.patternInsts += c.schemaPatternInsts - insts
			c.unpricedDefaults += c.unpriced - unpriced
		}()
	}
	for k, v := range m {
		switch k {
		case "properties", "patternProperties", "definitions", "dependencies":
			if ps, ok := v.(map[string]any); ok {
				for _, p := range ps {
					countSchema(p, c, underDefault)
				}
			}
		case "items", "additionalProperties", "additionalItems", "not":
			if l, ok := v.([]any); ok {
				for _, e := range l {
					countSchema(e, c, underDefault)
				}
				continue
			}
			countSchema(v, c, underDefault)
		case "allOf", "anyOf", "oneOf":
			if l, ok := v.([]any); ok {
				for _, e := range l {
					countSchema(e, c, underDefault)
				}
			}
		case "default":
			c.values += countValues(v, maxCallValues+1-c.values)
		case "pattern":
			// kube-openapi compiles a pattern to validate a default
			// against it (validate.Pattern), and keeps it for the life
			// of the process: 1,000 patterns of 26 bytes under defaults
			// took 9.5 s and 794 MiB under XP420.
			if p, ok := v.(string); ok && underDefault {
				c.patternInsts += patternSize(p)
			}
		case "enum":
			if l, ok := v.([]any); ok {
				for _, e := range l {
					c.values += countValues(e, maxCallValues+1-c.values)
				}
			}
		case "x-kubernetes-validations":
			l, _ := v.([]any)
			for _, e := range l {
				r, _ := e.(map[string]any)
				rule, _ := r["rule"].(string)
				msg, _ := r["messageExpression"].(string)
				n, bytes := int64(1), int64(len(rule))
				if msg != "" {
					n, bytes = 2, bytes+int64(len(msg))
				}
				c.rules += n
				c.ruleBytes += bytes
				c.schemaRules += n
				c.schemaRuleBytes += bytes
				re := regexUse(rule, msg)
				if re.dynamic || re.insts > maxRegexInsts {
					c.unpriced++
				}
				c.patternInsts += re.literalSize
				c.schemaPatternInsts += re.literalSize
			}
		}
	}
}

// countValues counts the values of v (every scalar, list and map, v
// included), up to max.
func countValues(v any, max int64) int64 {
	if max <= 0 {
		return 0
	}
	n := int64(1)
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			if n >= max {
				break
			}
			n += countValues(e, max-n)
		}
	case []any:
		for _, e := range x {
			if n >= max {
				break
			}
			n += countValues(e, max-n)
		}
	}
	return n
}

// withContext runs f, and returns early with the context's error when ctx
// is done first: the API server's code does not look at a context, and a
// large CRD takes seconds (f goes on in the background, its result
// dropped).
func withContext[T any](ctx context.Context, f func() (T, error)) (T, error) {
	if err := ctx.Err(); err != nil {
		var zero T
		return zero, err
	}
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := f()
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}

// inFlight bounds the source bytes of the definitions and objects in the
// API server's code at once, over every rule of the package and every
// lint of the process: beyond the first (which enters whatever its size),
// at most maxInFlightBytes. A call costs up to a hundred times its source
// in memory (the decoded content, the derived CRDs, their JSON, the API
// server's typed and structural copies): XP421 and XP422 on one 8 MB XRD
// at once, each with its own copies, took 210 MiB, and five such XRDs
// more than the CLI's 256 MiB. ordered bounds one rule's definitions;
// inFlight bounds the rules together.
var inFlight = &memGate{changed: make(chan struct{})}

// memGate admits work by its size in bytes (see inFlight).
type memGate struct {
	mu      sync.Mutex
	n       int           // admitted
	bytes   int           // their sizes
	changed chan struct{} // closed (and replaced) at each release
}

// acquire waits until the work of size bytes may enter: no other work is
// in, or the bytes in stay within maxInFlightBytes. It returns ctx's
// error if ctx is done first.
func (g *memGate) acquire(ctx context.Context, size int) error {
	for {
		g.mu.Lock()
		if g.n == 0 || g.bytes+size <= maxInFlightBytes {
			g.n++
			g.bytes += size
			g.mu.Unlock()
			return nil
		}
		changed := g.changed
		g.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// release lets out the work of size bytes that acquire let in.
func (g *memGate) release(size int) {
	g.mu.Lock()
	g.n--
	g.bytes -= size
	close(g.changed)
	g.changed = make(chan struct{})
	g.mu.Unlock()
}

// patternSize estimates, linearly in the pattern's parse tree, the size of
// the program Go's regexp compiles p to (an upper bound of regexp/syntax's
// instruction count: a repetition {n,m} copies its subexpression m
// times), without compiling it; a pattern that does not parse counts its
// length.
func patternSize(p string) int64 {
	re, err := syntax.Parse(p, syntax.Perl)
	if err != nil {
		return int64(len(p))
	}
	var size func(re *syntax.Regexp) int64
	size = func(re *syntax.Regexp) int64 {
		var n int64
		for _, sub := range re.Sub {
			n += size(sub)
		}
		switch re.Op {
		case syntax.OpLiteral:
			return int64(len(re.Rune)) + 1
		case syntax.OpRepeat:
			times := int64(re.Max)
			if times < 0 {
				times = int64(re.Min) + 1
			}
			return n*max(times, 1) + times + 1
		}
		return n + int64(len(re.Sub)) + 2
	}
	return size(re)
}
