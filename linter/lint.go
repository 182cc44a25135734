package linter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"

	"golang.org/x/sync/errgroup"

	"github.com/xpkgkit/xpkgkit/meta"
	"github.com/xpkgkit/xpkgkit/parser"
)

// Result is the outcome of a Lint call.
type Result struct {
	// Kind is the package's kind; empty when it has zero or several meta
	// objects.
	Kind meta.Kind
	// Diagnostics holds every problem found, sorted by file, line, column
	// and rule ID.
	Diagnostics []Diagnostic
	// Suppressed holds the diagnostics an annotation (meta.AnnotationSuppress)
	// silenced, sorted as Diagnostics, each with its Suppression (the
	// reason given). They count for nothing; reports show them as
	// suppressed.
	Suppressed []Diagnostic
	// Failures holds the rules that could not finish (they returned an
	// error or panicked). Their diagnostics before the failure are kept.
	Failures []*RuleError
	// Rules lists the IDs of the rules that ran, in rule-set order.
	Rules []string
	// Target is the Crossplane release line the verdicts follow, such as
	// "v2.3" (WithCrossplaneVersion, else DefaultCrossplaneVersion, v2.4),
	// with a Note when the version given is outside the lines the linter
	// knows; the rules saw the same (Pass.Target).
	Target Target
	// Tallies adds up the counts the rules that ran kept (Pass.Tally), by
	// key; nil when none counted anything.
	Tallies map[string]int
}

// Count returns how many diagnostics have severity s.
func (r *Result) Count(s Severity) int {
	n := 0
	for _, d := range r.Diagnostics {
		if d.Severity == s {
			n++
		}
	}
	return n
}

// AtOrAbove reports whether any diagnostic has severity min or a more
// severe one: AtOrAbove(SeverityError) is the usual "does this package
// fail" question.
func (r *Result) AtOrAbove(min Severity) bool {
	for _, d := range r.Diagnostics {
		if d.Severity >= min {
			return true
		}
	}
	return false
}

// RuleError records that a rule failed to run.
type RuleError struct {
	// RuleID and RuleName identify the rule.
	RuleID, RuleName string
	// Err is what the rule returned, or describes its panic.
	Err error
}

// Error returns "rule ID name: err".
func (e *RuleError) Error() string {
	return fmt.Sprintf("rule %s %s: %v", e.RuleID, e.RuleName, e.Err)
}

// Unwrap returns the rule's error.
func (e *RuleError) Unwrap() error { return e.Err }

// ErrRulePanic is wrapped by the RuleError of a rule that panicked.
var ErrRulePanic = errors.New("rule panicked")

// Lint runs the rule set over pkg: the rules given with WithRuleSet and
// WithRules that apply to the package's kind, less those disabled and
// those missing an input they require (Rule.Requires); Lint has no rules
// of its own (the built-in ones are linter/rules's). Of the rule set,
// only the package rules run (Rule.Scope), the others are known by name.
// Rules run in parallel; the diagnostics
// come back sorted, with suppressions (meta.AnnotationSuppress) applied and
// severities regraded (WithSeverity).
//
// Lint fails only when it cannot run: a nil context or package, an
// invalid rule set (see Validate), an option naming an unknown rule
// (ErrUnknownRule), an invalid option value, or ctx ending. A rule that
// fails is recorded in Result.Failures. Nil entries of pkg.Meta,
// pkg.Objects and pkg.Errors are ignored.
//
// Lint's cost is bounded on any package as far as its rules' is (every
// rule of linter/rules is linear, or n log n, in the package's objects and
// their content): each rule keeps at
// most WithMaxDiagnostics diagnostics (DefaultMaxDiagnostics by default)
// and says how many it left out, and the rules check ctx at each object,
// so a cancelled Lint returns promptly.
func Lint(ctx context.Context, pkg *parser.Package, opts ...Option) (*Result, error) {
	if ctx == nil {
		return nil, errors.New("linter: nil context")
	}
	if pkg == nil {
		return nil, errors.New("linter: nil package")
	}
	c := &config{}
	for _, o := range opts {
		if o != nil {
			o(c)
		}
	}
	return run(ctx, c, ScopePackage, withoutNil(pkg), nil, nil)
}

// LintSubject runs the rules of scope (not ScopePackage: Lint runs those)
// over subject, which they reach through RunOn, as Lint runs
// package rules: in parallel, each capped (WithMaxDiagnostics), their
// diagnostics regraded (WithSeverity) and sorted, a failing rule recorded
// in Result.Failures. It is how a runner of rules over something other
// than one package runs them: linter/graphrules's Lint is LintSubject with
// ScopeGraph, the *deps.Graph, and the graph rules as its default rule set;
// linter/changerules's Lint is LintSubject with ScopeChange, the
// *apidiff.Result of Diff, and the API change rules. The
// rule set is the one opts give (WithRuleSet, WithRules); rules of other
// scopes in it are known, not run. Suppression annotations are a
// package's: LintSubject applies none.
func LintSubject(ctx context.Context, scope Scope, subject any, opts ...Option) (*Result, error) {
	if ctx == nil {
		return nil, errors.New("linter: nil context")
	}
	if scope == ScopePackage {
		return nil, errors.New("linter: LintSubject runs rules of a scope other than ScopePackage: Lint runs package rules")
	}
	if subject == nil {
		return nil, fmt.Errorf("linter: nil %s", scope)
	}
	c := &config{}
	for _, o := range opts {
		if o != nil {
			o(c)
		}
	}
	return run(ctx, c, scope, nil, subject, nil)
}

// run runs the rules of scope in the rule set c gives (defaults when it
// gives none) over pkg (ScopePackage) or subject.
func run(ctx context.Context, c *config, scope Scope, pkg *parser.Package, subject any, defaults func() []*Rule) (*Result, error) {
	if err := c.resolve(); err != nil {
		return nil, err
	}
	all, active, regrade, err := c.ruleSets(defaults)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	var (
		kind meta.Kind
		sh   *shared
	)
	if pkg != nil {
		kind = packageKind(pkg)
		sh = newShared(pkg)
	}
	var run []*Rule
	for _, r := range active {
		if r.Scope != scope || !r.appliesTo(kind) {
			continue
		}
		if !c.hasInputs(r.Requires) {
			continue
		}
		run = append(run, r)
	}

	m := &memo{}
	passes := make([]*Pass, len(run))
	failures := make([]*RuleError, len(run))
	n := c.concurrency
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	var g errgroup.Group
	g.SetLimit(max(min(n, len(run)), 1))
	for i := range run {
		if ctx.Err() != nil {
			break
		}
		g.Go(func() error {
			if ctx.Err() != nil {
				return nil // the result is ctx.Err(): passes[i] is never read
			}
			p := &Pass{
				Rule: run[i], Package: pkg, Kind: kind,
				CrossplaneVersion: c.xpVersion, Target: Target{Line: c.resolved.Line, Note: c.resolved.Note},
				ctx: ctx, shared: sh, memo: m, inputs: c.inputs, max: c.maxDiags,
				subject: subject,
			}
			passes[i] = p
			if err := runRule(p); err != nil {
				failures[i] = &RuleError{RuleID: p.Rule.ID, RuleName: p.Rule.Name, Err: err}
			}
			return nil
		})
	}
	_ = g.Wait() // rules report through passes and failures
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	res := &Result{Kind: kind, Target: Target{Line: c.resolved.Line, Note: c.resolved.Note}}
	ran := map[string]bool{}
	var diags []Diagnostic
	for i, p := range passes {
		ran[run[i].ID] = true
		res.Rules = append(res.Rules, run[i].ID)
		diags = append(diags, p.diags...)
		for k, n := range p.tallies {
			if res.Tallies == nil {
				res.Tallies = map[string]int{}
			}
			res.Tallies[k] += n
		}
		if failures[i] != nil {
			res.Failures = append(res.Failures, failures[i])
		}
	}
	var silenced []Diagnostic
	if pkg != nil {
		diags, silenced = suppress(ctx, pkg, all, ran, diags, sh, c.maxDiags)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	for i := range diags {
		if s, ok := regrade[diags[i].RuleID]; ok {
			diags[i].Severity = s
		}
	}
	for i := range silenced {
		if s, ok := regrade[silenced[i].RuleID]; ok {
			silenced[i].Severity = s
		}
	}
	SortDiagnostics(diags)
	SortDiagnostics(silenced)
	res.Diagnostics = slices.Clip(diags)
	res.Suppressed = silenced
	return res, nil
}

func runRule(p *Pass) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("%w: %v", ErrRulePanic, v)
		}
	}()
	if err := p.ctx.Err(); err != nil {
		return err
	}
	defer p.summarize()
	defer p.resolvePositions()
	return p.Rule.Run(p)
}

// withoutNil returns pkg, or a shallow copy of it without the nil entries
// of its Meta, Objects and Errors when it has any, so that no rule meets a
// nil object.
func withoutNil(pkg *parser.Package) *parser.Package {
	nilObj := func(o *parser.Object) bool { return o == nil }
	nilErr := func(e *parser.DocumentError) bool { return e == nil }
	if !slices.ContainsFunc(pkg.Meta, nilObj) && !slices.ContainsFunc(pkg.Objects, nilObj) && !slices.ContainsFunc(pkg.Errors, nilErr) {
		return pkg
	}
	cp := *pkg
	cp.Meta = slices.DeleteFunc(slices.Clone(pkg.Meta), nilObj)
	cp.Objects = slices.DeleteFunc(slices.Clone(pkg.Objects), nilObj)
	cp.Errors = slices.DeleteFunc(slices.Clone(pkg.Errors), nilErr)
	return &cp
}

// packageKind returns the kind of the package's single meta object.
func packageKind(pkg *parser.Package) meta.Kind {
	if len(pkg.Meta) != 1 {
		return ""
	}
	k := meta.Kind(pkg.Meta[0].Kind)
	if !slices.Contains(meta.Kinds(), k) {
		return ""
	}
	return k
}

// MarshalJSON encodes the result with the keys "kind", "diagnostics",
// "suppressed", "failures" and "rules"; the lists are arrays, empty ones
// included, never null.
func (r *Result) MarshalJSON() ([]byte, error) {
	orEmpty := func(ds []Diagnostic) []Diagnostic {
		if ds == nil {
			return []Diagnostic{}
		}
		return ds
	}
	failures, rules := r.Failures, r.Rules
	if failures == nil {
		failures = []*RuleError{}
	}
	if rules == nil {
		rules = []string{}
	}
	return json.Marshal(struct {
		Kind        string       `json:"kind"`
		Diagnostics []Diagnostic `json:"diagnostics"`
		Suppressed  []Diagnostic `json:"suppressed"`
		Failures    []*RuleError `json:"failures"`
		Rules       []string     `json:"rules"`
	}{string(r.Kind), orEmpty(r.Diagnostics), orEmpty(r.Suppressed), failures, rules})
}

// MarshalJSON encodes the rule's failure as {"rule", "name", "error"}, the
// error as its text, so that it never encodes as an empty object.
func (e *RuleError) MarshalJSON() ([]byte, error) {
	msg := ""
	if e.Err != nil {
		msg = e.Err.Error()
	}
	return json.Marshal(struct {
		Rule  string `json:"rule"`
		Name  string `json:"name"`
		Error string `json:"error"`
	}{e.RuleID, e.RuleName, msg})
}
