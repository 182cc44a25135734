package linter

import (
	"fmt"
	"strings"

	"github.com/xpkgkit/xpkgkit/internal/target"
)

// Option configures a run of rules: Lint, LintSubject and the runners
// built on them. An option that does not concern a runner (WithExamples
// or WithInput for a runner without a package, say) is ignored by it, so
// one list of options serves every runner.
type Option func(*config)

type config struct {
	ruleSet     []*Rule
	ruleSetSet  bool
	extra       []*Rule
	disabled    []string
	severities  []severityOverride
	xpVersion   string
	resolved    target.Resolved
	inputs      map[any]any
	concurrency int
	maxDiags    int
	maxDiagsSet bool
}

type severityOverride struct {
	name string
	to   Severity
}

// WithRules adds rules (the user's own) to the rule set. Rules of another
// scope than the runner's (see Rule.Scope) are known, not run: naming one
// in WithDisabled or WithSeverity is no error.
func WithRules(rules ...*Rule) Option {
	return Option(func(c *config) { c.extra = append(c.extra, rules...) })
}

// WithRuleSet replaces the runner's default rules (Lint and LintSubject
// have none; graphrules.Lint: the graph rules) by rules. Rules given with
// WithRules are still added.
func WithRuleSet(rules ...*Rule) Option {
	return Option(func(c *config) { c.ruleSet, c.ruleSetSet = rules, true })
}

// WithDisabled turns off the rules named, by ID or name. Naming a rule that
// is not in the rule set makes the run fail with ErrUnknownRule.
func WithDisabled(idsOrNames ...string) Option {
	return Option(func(c *config) { c.disabled = append(c.disabled, idsOrNames...) })
}

// WithSeverity regrades every diagnostic of the rule named (by ID or name)
// to s. Naming an unknown rule makes the run fail with ErrUnknownRule, and
// an invalid severity fails it too. When several WithSeverity options name
// the same rule (by its ID or its name), the last one given wins.
func WithSeverity(idOrName string, s Severity) Option {
	return Option(func(c *config) { c.severities = append(c.severities, severityOverride{idOrName, s}) })
}

// WithCrossplaneVersion sets the Crossplane version the package must work
// with, e.g. "v2.0.0" (Pass.CrossplaneVersion): the rules whose answer
// depends on the version follow the release line of that version
// (Pass.Target; for the built-in rules see RULES.md, "By target"). Any
// patch or pre-release maps to its line; a version newer than every line
// the linter knows is judged as the newest, and Result.Target.Note says so. Without it the rules follow
// DefaultCrossplaneVersion, the newest stable line. A version that is not
// valid semver makes the run fail.
func WithCrossplaneVersion(v string) Option {
	return Option(func(c *config) { c.xpVersion = v })
}

// WithInput gives the rules a value of the caller's under key: a rule
// reads it with Pass.Input, and a rule that lists key in Rule.Requires
// runs only when a value was given. Keys compare as map keys do: use a
// value of an unexported type of the package that defines the input, as
// for context.WithValue. A nil value removes the key.
func WithInput(key, value any) Option {
	return Option(func(c *config) {
		if value == nil {
			delete(c.inputs, key)
			return
		}
		if c.inputs == nil {
			c.inputs = map[any]any{}
		}
		c.inputs[key] = value
	})
}

// WithConcurrency sets how many rules run at once (GOMAXPROCS by default).
func WithConcurrency(n int) Option {
	return Option(func(c *config) { c.concurrency = n })
}

// DefaultMaxDiagnostics is how many diagnostics each rule reports at most
// on one package unless WithMaxDiagnostics says otherwise.
const DefaultMaxDiagnostics = 1000

// WithMaxDiagnostics sets how many diagnostics each rule reports at most on
// one package or graph (DefaultMaxDiagnostics by default); n <= 0 removes
// the cap. A rule that finds more keeps the first n it reports and adds
// one diagnostic, with the highest severity among those left out, saying
// how many it left out: at the package's first line for a package rule,
// at the first left out for a rule of another scope. The cap bounds the
// memory and the output a package can buy: without it, a package of a few
// KiB can draw millions of diagnostics. The unused-suppression
// diagnostics of the Rule.SuppressionCheck rule are capped the same way.
func WithMaxDiagnostics(n int) Option {
	return Option(func(c *config) { c.maxDiags, c.maxDiagsSet = max(n, 0), true })
}

// summarize adds, when diagnostics were left out, one diagnostic saying
// how many, with the highest severity among them (so that a package
// failing on them still fails): at the package's position, or, without a
// package (a rule of another scope), at the place of the first left out.
func (p *Pass) summarize() {
	if p.dropped == 0 {
		return
	}
	d := Diagnostic{Pos: p.PackagePos()}
	if p.Package == nil {
		d = p.droppedAt
	}
	d.RuleID, d.RuleName, d.Severity = p.Rule.ID, p.Rule.Name, p.droppedSev
	d.Message = fmt.Sprintf("%d more diagnostics of this rule were left out: at most %d are reported per rule (WithMaxDiagnostics)", p.dropped, p.max)
	p.diags = append(p.diags, d)
	p.dropped = 0
}

// DefaultCrossplaneVersion is the Crossplane release line the rules follow
// when WithCrossplaneVersion is not given: the newest stable release line,
// v2.4 (read from Crossplane v2.4.0).
const DefaultCrossplaneVersion = target.DefaultLine

// CrossplaneLine returns the release line the rules follow for Crossplane
// version v (such as "v2.3" for "v2.3.4"; DefaultCrossplaneVersion, v2.4, for ""),
// and a note when v is outside the lines the linter knows and is judged
// as the nearest one instead. A version that is not semver is an error.
func CrossplaneLine(v string) (line, note string, err error) {
	t, err := target.Resolve(v)
	if err != nil {
		return "", "", fmt.Errorf("linter: %w", err)
	}
	return t.Line, t.Note, nil
}

// hasInputs reports whether every input of keys was given.
func (c *config) hasInputs(keys []any) bool {
	for _, k := range keys {
		if _, ok := c.inputs[k]; !ok {
			return false
		}
	}
	return true
}

func (c *config) resolve() error {
	if !c.maxDiagsSet {
		c.maxDiags = DefaultMaxDiagnostics
	}
	t, err := target.Resolve(c.xpVersion)
	if err != nil {
		return fmt.Errorf("linter: %w", err)
	}
	c.resolved = t
	for _, o := range c.severities {
		if !o.to.Valid() {
			return fmt.Errorf("linter: severity for %s: invalid severity %d", o.name, int(o.to))
		}
	}
	return nil
}

// ruleSets returns the rule set after disabling, and the severity overrides
// keyed by rule ID.
func (c *config) ruleSets(defaults func() []*Rule) (all, active []*Rule, sev map[string]Severity, err error) {
	base := c.ruleSet
	if !c.ruleSetSet && defaults != nil {
		base = defaults()
	}
	all = append(append([]*Rule(nil), base...), c.extra...)
	if err := Validate(all); err != nil {
		return nil, nil, nil, err
	}
	find := func(name string) *Rule {
		for _, r := range all {
			if r.Matches(strings.TrimSpace(name)) {
				return r
			}
		}
		return nil
	}
	off := map[*Rule]bool{}
	for _, name := range c.disabled {
		r := find(name)
		if r == nil {
			return nil, nil, nil, fmt.Errorf("linter: disabling %q: %w", name, ErrUnknownRule)
		}
		off[r] = true
	}
	sev = map[string]Severity{}
	for _, o := range c.severities {
		r := find(o.name)
		if r == nil {
			return nil, nil, nil, fmt.Errorf("linter: regrading %q: %w", o.name, ErrUnknownRule)
		}
		sev[r.ID] = o.to
	}
	for _, r := range all {
		if !off[r] {
			active = append(active, r)
		}
	}
	return all, active, sev, nil
}
