package apiserver

// This file is part of the gateway (gateway.go): the API server's CEL
// compiler and evaluator, for the CEL Extension (XP408, XP409).

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"

	lschema "github.com/xpkgkit/xpkgkit/linter/schema"
)

// DefaultBudget is the CEL cost a CEL Extension spends, at most, over all
// the objects it checks: one object's worth of the API server's per-object
// budget (k8s.io/apiserver/pkg/apis/cel RuntimeCELCostBudget, 10 million,
// "roughly 1 second"; 1.3 to 2.7 s of CPU here, see stringScale). Rules
// left unevaluated once it is spent are counted in lschema.CELCounts.Cost,
// and draw no violation.
const DefaultBudget = celconfig.RuntimeCELCostBudget

// Compilation is bounded too: a schema whose rules sit on more than
// maxRuleNodes fields, or that holds more than maxRules rules, is not
// evaluated (its rules count as skipped for cost), and one Extension
// compiles at most maxCompiledRules rules over all the schemas it sees.
// The API server compiles each rule on a field in its own environment,
// about a millisecond a rule; real CRDs hold a few rules a kind (upjet's
// largest, a few dozen).
const (
	maxRuleNodes     = 500
	maxRules         = 2000
	maxCompiledRules = 4000
)

// Compilation is bounded by bytes as well as by rules (a few long rules
// cost as much as thousands of short ones: 1.5 MB of rules took over
// 40 s): a schema whose rules (and messageExpressions) hold more than
// maxRuleBytes bytes is not evaluated, and one Extension compiles at most
// maxCompiledBytes of rules over all the schemas it sees, every compiled
// validator counted (a schema is compiled again for each string-length
// scale, and once per version when versions alias one schema).
const (
	maxRuleBytes     = 64 << 10
	maxCompiledBytes = 256 << 10
)

// maxCompiledPatternInsts bounds the literal regular expressions one
// Extension compiles with its rules (the API server's compiler compiles a
// literal pattern when it builds the rule's program), by their estimated
// program size (patternSize): about 40 bytes an instruction.
const maxCompiledPatternInsts = 1_000_000

// CEL returns an Extension for linter/schema Validators (WithExtension)
// that evaluates a schema's CEL rules (x-kubernetes-validations) with the
// API server's own validator (k8s.io/apiextensions-apiserver
// pkg/apiserver/schema/cel, NewValidator and Validator.Validate, as the
// custom resource strategy calls them on create): the Kubernetes CEL
// libraries, messageExpression, fieldPath and reason honoured, the
// per-call cost limit (PerCallLimit) and the per-object budget
// (RuntimeCELCostBudget) enforced. Transition rules (oldSelf) need an old
// object: they are skipped and counted. Each schema's rules are compiled
// once, the first time an object of it is checked. The Extension spends at
// most DefaultBudget over every object it checks (on an object with
// strings over 256 bytes, the per-call limit and the object's budget are
// divided, and its cost multiplied, by the longest string's length over
// 256, rounded up to a power of two: the cost model prices size() on a
// string at 1 whatever its length), and compiles a bounded
// number of rules (a schema with rules on more than 500 fields, more than
// 2,000 rules or more than 64 KiB of them, or rules beyond 4,000 or
// 256 KiB over all schemas, every compiled validator counted, are not
// evaluated and count as skipped for cost). A rule whose regular
// expression is not a string literal (built from the object's data, or
// concatenated) is not evaluated either, nor one whose pattern's compiled
// program is too large for the object's strings (see regexUse): they
// count as skipped for cost.
//
// On a partial object (lschema.WithoutRequired: a Composition's composed
// resource template, which patches and functions complete), rules that
// test a field's presence (they call has()) are left out and counted in
// CELCounts.Partial, and a rule that fails because a field it reads is
// absent ("no such key") draws no violation: the composition may fill the
// field in.
func CEL() lschema.Extension { return newCEL(DefaultBudget) }

func newCEL(budget int64) *celExt {
	x := &celExt{}
	x.budget.Store(budget)
	return x
}

type celExt struct {
	budget        atomic.Int64
	compiled      atomic.Int64 // rules compiled, against maxCompiledRules
	compiledBytes atomic.Int64 // their bytes, against maxCompiledBytes
	// compiledPatterns is their literal regular expressions' estimated
	// program size, against maxCompiledPatternInsts.
	compiledPatterns atomic.Int64
}

// Compile converts schema to the API server's structural schema and
// counts its rules; the rules compile on first use.
func (x *celExt) Compile(schema any) (lschema.Checker, error) {
	s, err := structural(schema)
	if err != nil {
		return nil, err
	}
	c := &checker{ext: x, s: s}
	c.nodes = countRuleNodes(s)
	walkRules(s, func(r *apiextensionsv1.ValidationRule) {
		c.rules++
		c.bytes += int64(len(r.Rule) + len(r.MessageExpression))
		switch re := regexUse(r.Rule, r.MessageExpression); {
		case re.insts > maxRegexInsts || heavyRegex(r):
			c.heavy++
		case re.dynamic:
			c.dynamic++
		case re.insts > 0:
			c.regexInsts = append(c.regexInsts, re.insts)
			c.patternInsts += re.literalSize
		}
		if usesOldSelf(r) {
			c.transition++
		} else if usesHas(r) {
			c.presence++
		}
	})
	return c, nil
}

// structural converts an apiextensions.k8s.io/v1 openAPIV3Schema (decoded
// JSON) to the API server's structural schema.
func structural(schema any) (*structuralschema.Structural, error) {
	b, err := marshalJSON(schema)
	if err != nil {
		return nil, err
	}
	var v1 apiextensionsv1.JSONSchemaProps
	if err := json.Unmarshal(b, &v1); err != nil {
		return nil, err
	}
	var internal apiextensions.JSONSchemaProps
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(&v1, &internal, nil); err != nil {
		return nil, err
	}
	s, err := structuralschema.NewStructural(&internal)
	if err != nil {
		return nil, fmt.Errorf("not a structural schema: %w", err)
	}
	return s, nil
}

// countRuleNodes counts the fields of s that carry rules.
func countRuleNodes(s *structuralschema.Structural) int {
	if s == nil {
		return 0
	}
	n := 0
	if len(s.XValidations) > 0 {
		n++
	}
	for k := range s.Properties {
		p := s.Properties[k]
		n += countRuleNodes(&p)
	}
	n += countRuleNodes(s.Items)
	if s.AdditionalProperties != nil {
		n += countRuleNodes(s.AdditionalProperties.Structural)
	}
	return n
}

// walkRules calls f with every rule of s, depth first.
func walkRules(s *structuralschema.Structural, f func(*apiextensionsv1.ValidationRule)) {
	if s == nil {
		return
	}
	for i := range s.XValidations {
		f(&s.XValidations[i])
	}
	for k := range s.Properties {
		p := s.Properties[k]
		walkRules(&p, f)
	}
	walkRules(s.Items, f)
	if s.AdditionalProperties != nil {
		walkRules(s.AdditionalProperties.Structural, f)
	}
}

var (
	oldSelfRE = regexp.MustCompile(`\boldSelf\b`)
	hasRE     = regexp.MustCompile(`\bhas\s*\(`)
)

// usesOldSelf tells a transition rule (the API server's compiler decides
// it from the checked expression; a rule naming oldSelf only inside a
// string literal is counted as one here, which only changes the count:
// the validator itself skips exactly the transition rules).
func usesOldSelf(r *apiextensionsv1.ValidationRule) bool { return oldSelfRE.MatchString(r.Rule) }

func usesHas(r *apiextensionsv1.ValidationRule) bool { return hasRE.MatchString(r.Rule) }

// checker is one schema's rules.
type checker struct {
	ext                         *celExt
	s                           *structuralschema.Structural
	rules, transition, presence int
	nodes                       int
	bytes                       int64 // of the rules and messageExpressions
	heavy                       int   // rules with a regex beyond maxRegexInsts
	dynamic                     int   // rules with a regex not known before evaluation (regexUse)
	regexInsts                  []int // the program size of each other rule with a regex
	patternInsts                int64 // their literal patterns' estimated size (compiled with the rules)
	mu                          sync.Mutex
	validators                  map[validatorKey]*cel.Validator
}

// validatorKey names one compiled validator of a schema: for partial
// objects or whole ones, with the per-call cost limit divided by scale
// (stringScale, a power of two).
type validatorKey struct {
	partial bool
	scale   int64
}

// validator returns the schema's validator for partial or whole objects
// with the per-call limit divided by scale, compiled on first use (nil
// beyond the compile bounds). A schema has at most one validator per
// power of two of scale, and every one counts against maxCompiledRules.
func (c *checker) validator(partial bool, scale int64) *cel.Validator {
	if c.nodes > maxRuleNodes || c.rules > maxRules || c.bytes > maxRuleBytes {
		return nil
	}
	k := validatorKey{partial, scale}
	c.mu.Lock()
	defer c.mu.Unlock()
	if v, ok := c.validators[k]; ok {
		return v
	}
	s := c.s
	if partial || c.heavy > 0 || c.dynamic > 0 || c.overwork(scale) > 0 {
		s = c.s.DeepCopy()
		filterRules(s, func(r *apiextensionsv1.ValidationRule) bool {
			re := regexUse(r.Rule, r.MessageExpression)
			return re.insts > maxRegexInsts || heavyRegex(r) || re.dynamic || regexOverwork(re.insts, scale) ||
				(partial && usesHas(r) && !usesOldSelf(r))
		})
	}
	var v *cel.Validator
	// Every validator compiled is charged, by rules and by bytes.
	rules, bytes := c.ext.compiled.Add(int64(c.rules)), c.ext.compiledBytes.Add(c.bytes)
	insts := c.ext.compiledPatterns.Add(c.patternInsts)
	if rules <= maxCompiledRules && bytes <= maxCompiledBytes && insts <= maxCompiledPatternInsts {
		v = newValidator(s, max(1, celconfig.PerCallLimit/scale))
	}
	if c.validators == nil {
		c.validators = make(map[validatorKey]*cel.Validator)
	}
	c.validators[k] = v
	return v
}

func newValidator(s *structuralschema.Structural, perCallLimit int64) (v *cel.Validator) {
	defer func() {
		if r := recover(); r != nil {
			v = nil
		}
	}()
	return cel.NewValidator(s, true, uint64(perCallLimit))
}

// stringScaleBytes is the string length up to which a unit of CEL cost
// is taken at its word (stringScale).
const stringScaleBytes = 256

// stringScale is how many times a unit of CEL cost may under-price the
// work of evaluating a rule on obj: the cost model prices size() on a
// string at 1 whatever its length, but Go counts the string's runes, so a
// unit can stand for a scan of the object's longest string (nested all()
// over 100 strings of 70,000 characters: 28 s of CPU within the API
// server's per-object budget, where the same rules on 1,000 characters
// take 2.7 s). It is 1 for strings up to stringScaleBytes, and else the
// longest string's length over stringScaleBytes rounded up to a power of
// two; Check divides the per-call limit and the object's budget by it,
// and charges the Extension's budget the cost spent times it, so that the
// CPU a lint spends on CEL stays bounded whatever the strings. Only rules
// that cost more than the reduced limits are affected: they count as
// skipped for cost.
func stringScale(v any) int64 {
	n := longestString(v, 0)
	scale := int64(1)
	for n > stringScaleBytes*int(scale) {
		scale *= 2
	}
	return scale
}

// longestString returns the length of the longest string in v (keys
// included), or longest if none is longer.
func longestString(v any, longest int) int {
	switch x := v.(type) {
	case string:
		return max(longest, len(x))
	case map[string]any:
		for k, e := range x {
			longest = longestString(e, max(longest, len(k)))
		}
	case []any:
		for _, e := range x {
			longest = longestString(e, longest)
		}
	}
	return longest
}

// filterRules drops the rules of s that drop reports.
func filterRules(s *structuralschema.Structural, drop func(*apiextensionsv1.ValidationRule) bool) {
	if s == nil {
		return
	}
	kept := s.XValidations[:0]
	for _, r := range s.XValidations {
		if drop(&r) {
			continue
		}
		kept = append(kept, r)
	}
	s.XValidations = kept
	for k, p := range s.Properties {
		filterRules(&p, drop)
		s.Properties[k] = p
	}
	filterRules(s.Items, drop)
	if s.AdditionalProperties != nil {
		filterRules(s.AdditionalProperties.Structural, drop)
	}
}

// maxRegexInsts bounds the size of a regular expression a rule may use:
// the API server's cost model prices matches() by the length of the
// string only, but Go's regexp takes time in the length times the size of
// the compiled expression ('(a|b){1,1000}' compiles to thousands of
// instructions). A rule with a string literal that compiles to a larger
// expression is not evaluated, and counts as skipped for cost.
const maxRegexInsts = 1000

var literalRE = regexp.MustCompile(`'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"`)

// heavyRegex reports whether r uses a regular expression beyond
// maxRegexInsts.
func heavyRegex(r *apiextensionsv1.ValidationRule) bool {
	if !strings.Contains(r.Rule, "matches") && !strings.Contains(r.Rule, "find") {
		return false
	}
	for _, lit := range literalRE.FindAllString(r.Rule, 100) {
		pat := lit[1 : len(lit)-1]
		re, err := syntax.Parse(pat, syntax.Perl)
		if err != nil {
			continue
		}
		prog, err := syntax.Compile(re.Simplify())
		if err != nil || len(prog.Inst) > maxRegexInsts {
			return true
		}
	}
	return false
}

// regexInfo is what regexUse finds of a rule's regular expressions.
type regexInfo struct {
	// dynamic: a regular expression the rule builds at run time (from
	// the object's data, or by concatenation), or one the scan cannot
	// read as a single string literal.
	dynamic bool
	// insts is the size of the largest literal pattern's program.
	insts int
	// literalSize is the literal patterns' estimated program size, in
	// all (patternSize): the API server's compiler compiles them with
	// the rule (cel-go and the Kubernetes regex library's
	// RegexOptimization).
	literalSize int64
}

var (
	// regexFuncRE finds the functions that compile a regular expression
	// (cel-go's matches, the Kubernetes regex library's find and
	// findAll) as identifiers, wherever they stand: CEL has no other way
	// to call them, so a rule without one compiles none.
	regexFuncRE = regexp.MustCompile(`\b(?:matches|findAll|find)\b`)
	// literalCallRE matches, after the function's name, an argument list
	// that is one plain string literal (findAll may have a second
	// argument, its limit).
	literalCallRE = regexp.MustCompile(`^\s*\(\s*('(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*")\s*([),])`)
)

// regexUse reads the regular expressions a rule (its rule and its
// messageExpression) compiles. The API server's cost model prices a
// matches() call by the pattern's length, and the evaluator charges a
// call's cost after it has run (cel-go interpreter/runtimecost.go: the
// observer adds each step's cost once it returns), so neither the
// per-call limit nor the budget stops one call; but Go's regexp takes
// time in the input's length times the compiled program's size, and 26
// bytes compile to 16,000 instructions: ^(?:a?a?a?a?a?a?a?a?){999}x on a
// string of 400 bytes takes 100 ms, and an example brings both. So the
// program's size must be known before evaluation: a rule is dynamic unless
// every call of the three functions has a string literal as its pattern
// (read with CEL's escapes), and the largest literal's program is
// measured. Dynamic rules are not evaluated (they count as skipped for
// cost), nor rules whose program size times the object's longest string
// is beyond maxRegexWork (regexOverwork). The scan over-approximates: a
// name in a string literal or a comment makes a rule dynamic, never the
// reverse.
func regexUse(rule, messageExpression string) regexInfo {
	var info regexInfo
	for _, text := range []string{rule, messageExpression} {
		for _, loc := range regexFuncRE.FindAllStringIndex(text, -1) {
			name, rest := text[loc[0]:loc[1]], text[loc[1]:]
			m := literalCallRE.FindStringSubmatch(rest)
			if m == nil || (m[2] == "," && name != "findAll") {
				info.dynamic = true
				return info
			}
			pat, ok := celUnquote(m[1])
			if !ok {
				info.dynamic = true
				return info
			}
			// Compiled only when the estimate (patternSize, from the
			// parse tree) is small: a large one is too large anyway.
			size := patternSize(pat)
			info.literalSize += size
			insts := int(min(size, 1<<30))
			if size <= 4*maxRegexInsts {
				insts = regexInsts(pat)
			}
			info.insts = max(info.insts, insts)
		}
	}
	return info
}

// celUnquote returns the value of a CEL string literal in single or
// double quotes (CEL's escapes are Go's, with \? and \` added), or false.
func celUnquote(lit string) (string, bool) {
	quote, body := lit[0], lit[1:len(lit)-1]
	var b strings.Builder
	for body != "" {
		if len(body) >= 2 && body[0] == '\\' && (body[1] == '?' || body[1] == '`') {
			b.WriteByte(body[1])
			body = body[2:]
			continue
		}
		c, _, tail, err := strconv.UnquoteChar(body, quote)
		if err != nil {
			return "", false
		}
		b.WriteRune(c)
		body = tail
	}
	return b.String(), true
}

// regexInsts returns the size of pat's program, or 0 when it does not
// compile (the API server's compiler refuses it then).
func regexInsts(pat string) int {
	re, err := syntax.Parse(pat, syntax.Perl)
	if err != nil {
		return 0
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		return 0
	}
	return len(prog.Inst)
}

// maxRegexWork bounds a regular expression's program size times the
// length of the strings it may run on (the object's longest, rounded up
// to stringScale's power of two times stringScaleBytes): Go's regexp
// takes up to that many steps, about 40 ns each; 4 million is a tenth of
// a second.
const maxRegexWork = 4 << 20

// regexOverwork reports whether a program of insts instructions may take
// more than maxRegexWork steps on the strings of an object of stringScale
// scale.
func regexOverwork(insts int, scale int64) bool {
	return int64(insts)*stringScaleBytes*scale > maxRegexWork
}

// overwork counts the rules whose regular expressions are beyond
// maxRegexWork at scale.
func (c *checker) overwork(scale int64) int {
	n := 0
	for _, insts := range c.regexInsts {
		if regexOverwork(insts, scale) {
			n++
		}
	}
	return n
}

const (
	outOfBudget   = "running out of cost budget"
	callTooCostly = "call cost exceeds limit"
)

// Check evaluates the rules on obj.
func (c *checker) Check(ctx context.Context, obj map[string]any, partial bool) (res lschema.CheckResult) {
	res.CEL = lschema.CELCounts{Rules: c.rules, Transition: c.transition}
	evaluable := c.rules - c.transition
	if partial {
		res.CEL.Partial = c.presence
		evaluable -= c.presence
	}
	scale := stringScale(obj)
	res.CEL.Cost = c.heavy + c.dynamic + c.overwork(scale)
	res.CEL.Regex = res.CEL.Cost
	evaluable -= res.CEL.Cost
	if evaluable <= 0 {
		return res
	}
	budget := min(int64(celconfig.RuntimeCELCostBudget), c.ext.budget.Load()) / scale
	if budget <= 0 {
		res.CEL.Cost += evaluable
		return res
	}
	v, err := withContext(ctx, func() (*cel.Validator, error) { return c.validator(partial, scale), nil })
	if err != nil {
		return res
	}
	if v == nil {
		// Beyond the compile bounds: not evaluated.
		res.CEL.Cost += evaluable
		return res
	}
	integers(obj)
	// The evaluator looks at ctx between the steps of a comprehension,
	// not inside a call: return as soon as ctx is done.
	type ran struct {
		errs      field.ErrorList
		remaining int64
	}
	r, err := withContext(ctx, func() (ran, error) {
		errs, remaining := c.run(ctx, v, obj, budget)
		return ran{errs, remaining}, nil
	})
	if err != nil {
		return res
	}
	errs, remaining := r.errs, r.remaining
	if remaining < 0 {
		remaining = 0
	}
	c.ext.budget.Add(-(budget - remaining) * scale)
	for _, e := range errs {
		if e == nil {
			continue
		}
		if strings.Contains(e.Detail, outOfBudget) || strings.Contains(e.Detail, callTooCostly) {
			res.CEL.Cost++
			if budget < celconfig.RuntimeCELCostBudget && strings.Contains(e.Detail, outOfBudget) {
				continue // the Extension's budget ran out, not the API server's
			}
			if scale > 1 && strings.Contains(e.Detail, callTooCostly) {
				continue // the per-call limit divided by stringScale, not the API server's
			}
		}
		if partial && strings.Contains(e.Detail, "no such key") {
			continue
		}
		if ctx.Err() != nil {
			break
		}
		res.Violations = append(res.Violations, violation(e))
	}
	return res
}

func (c *checker) run(ctx context.Context, v *cel.Validator, obj map[string]any, budget int64) (errs field.ErrorList, remaining int64) {
	defer func() {
		if r := recover(); r != nil {
			errs, remaining = field.ErrorList{field.InternalError(nil, fmt.Errorf("CEL evaluation failed: %v", r))}, 0
		}
	}()
	return v.Validate(ctx, nil, c.s, obj, nil, budget)
}

// violation converts an error of the CEL validator.
func violation(e *field.Error) lschema.Violation {
	// A rule whose reason is FieldValueDuplicate (or another without a
	// detail) is reported by the API server as the bare error type
	// ("Duplicate value"); the path is the violation's own.
	msg := e.Detail
	if msg == "" {
		msg = e.Type.String()
	}
	return lschema.Violation{
		Path:     splitFieldPath(e.Field),
		Kind:     lschema.KindCEL,
		Expected: "CEL rule",
		Found:    e.Type.String(),
		Message:  msg,
	}
}

// integers turns integral float64 values into int64, in place: as the API
// server's JSON decoding (sigs.k8s.io/json, PreserveInts) reads numbers,
// where linter/schema's defaults (decoded by encoding/json) are float64,
// and the CEL validator refuses a float64 for an integer field.
func integers(v any) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if f, ok := e.(float64); ok {
				if f == float64(int64(f)) && f < 1<<53 && f > -(1<<53) {
					x[k] = int64(f)
				}
				continue
			}
			integers(e)
		}
	case []any:
		for i, e := range x {
			if f, ok := e.(float64); ok {
				if f == float64(int64(f)) && f < 1<<53 && f > -(1<<53) {
					x[i] = int64(f)
				}
				continue
			}
			integers(e)
		}
	}
}
