package linter

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/xpkgkit/xpkgkit/meta"
	"github.com/xpkgkit/xpkgkit/parser"
)

// Rule is one check: a value with a stable identity, a description and a
// function that inspects a package through a Pass. Rules are plain values;
// build a set as a slice, give it to Lint with WithRules or WithRuleSet. A
// Rule must not be modified while a Lint call uses it.
type Rule struct {
	// ID is the stable identifier users disable or suppress the rule by,
	// e.g. "XP102". It holds letters, digits, '-' and '_', and starts with a
	// letter.
	ID string
	// Name is a short kebab-case name, e.g. "allowed-kind". Users may name
	// the rule by it wherever an ID is accepted.
	Name string
	// Doc describes the rule: the first line is a title, the rest (after a
	// blank line) explains what the rule checks and why.
	Doc string
	// Severity is the default severity of the rule's diagnostics.
	Severity Severity
	// Kinds lists the package kinds the rule applies to; empty means every
	// package, including packages whose kind is unknown because they hold
	// zero or several meta objects.
	Kinds []meta.Kind
	// Scope is what the rule inspects: one package (ScopePackage, the zero
	// value; Lint runs it), a resolved dependency graph (ScopeGraph;
	// linter/graphrules's Lint runs it) or the API changes between two
	// versions of a package (ScopeChange; linter/changerules's Lint
	// runs it). A rule set may mix scopes: each
	// runner runs the rules of its scope and knows the others by name, so
	// one rule set and one configuration serve every runner.
	Scope Scope
	// Bad and Good are short YAML examples for the rule catalog: a package
	// (or document) the rule reports, and its corrected form. Optional.
	Bad, Good string
	// Run inspects the rule's subject (the package, or for a rule of
	// another scope, the subject RunOn gives) and reports problems with pass.Report.
	// An error return means the rule itself failed (it is recorded in
	// Result.Failures), not that the package has a problem.
	Run func(pass *Pass) error

	// Requires lists the inputs (keys of WithInput) the rule reads: when
	// one of them was not given, the rule does not run (Result.Rules does
	// not list it), as a rule needing an image's facts when a package.yaml
	// is linted on its own.
	Requires []any
	// Regrade, when set, sees each diagnostic the rule reports, its
	// severity filled in, before the pass keeps it, and may change it: a
	// rule whose diagnostics weigh less in some packages or at some
	// targets says so once here rather than at each report.
	Regrade func(p *Pass, d *Diagnostic)
	// SuppressionCheck marks the rule whose diagnostics say which entries
	// of the suppression annotations (meta.AnnotationSuppress) silenced
	// nothing, or name no rule: Lint reports them itself once every other
	// rule has run, when this rule runs (its Run is called too, and may
	// do nothing). When several rules of a set are so marked, the first
	// that runs reports them.
	SuppressionCheck bool
}

// Scope says what a rule inspects, and so which runner runs it.
type Scope uint8

const (
	// ScopePackage is the scope of a rule over one parsed package: Lint
	// runs it.
	ScopePackage Scope = iota
	// ScopeGraph is the scope of a rule over a resolved dependency graph:
	// linter/graphrules's Lint runs it, and its subject (RunOn) is the
	// *deps.Graph.
	ScopeGraph
	// ScopeChange is the scope of a rule over the API changes between an
	// older and a newer version of a package: linter/changerules's Lint
	// runs it, and its subject (RunOn) is the *apidiff.Result of Diff.
	ScopeChange
)

// String returns "package", "graph" or "change" ("Scope(N)" for an
// unknown value).
func (s Scope) String() string {
	switch s {
	case ScopePackage:
		return "package"
	case ScopeGraph:
		return "graph"
	case ScopeChange:
		return "change"
	}
	return fmt.Sprintf("Scope(%d)", int(s))
}

// Title returns the first line of the rule's Doc.
func (r *Rule) Title() string {
	title, _, _ := strings.Cut(strings.TrimSpace(r.Doc), "\n")
	return strings.TrimSpace(title)
}

// appliesTo reports whether the rule runs for a package of kind k; the
// empty kind stands for a package of unknown kind.
func (r *Rule) appliesTo(k meta.Kind) bool {
	return len(r.Kinds) == 0 || slices.Contains(r.Kinds, k)
}

// Matches reports whether idOrName is the rule's ID or name. IDs match
// without regard to case.
func (r *Rule) Matches(idOrName string) bool {
	return strings.EqualFold(r.ID, idOrName) || r.Name == idOrName
}

// String returns "ID name".
func (r *Rule) String() string { return r.ID + " " + r.Name }

// Pass is what a rule's Run receives: the package and what is known about
// it, and the Report functions that are the rule's only output. A Pass is
// used by one rule in one goroutine; the package it points to is shared by
// every rule of the Lint call and must not be modified.
type Pass struct {
	// Rule is the rule being run.
	Rule *Rule
	// Package is the parsed package.
	Package *parser.Package
	// Kind is the package's kind, taken from its meta object; empty when
	// the package holds zero or several meta objects, or one of a kind this
	// module does not know.
	Kind meta.Kind
	// CrossplaneVersion is the Crossplane version the package is checked
	// against (WithCrossplaneVersion); empty when none was given.
	CrossplaneVersion string
	// Target is the release line the rules follow: that of
	// CrossplaneVersion, else DefaultCrossplaneVersion.
	Target Target

	// subject is what a rule of another scope than ScopePackage runs on
	// (LintSubject); its rules reach it through RunOn.
	subject any

	ctx     context.Context
	shared  *shared
	memo    *memo
	inputs  map[any]any
	diags   []Diagnostic
	tallies map[string]int // Tally
	// max is how many diagnostics the pass keeps (0: no cap); dropped
	// counts those reported beyond it, and droppedSev is the highest
	// severity among them (see summarize).
	max        int
	dropped    int
	droppedSev Severity
	// droppedAt is the first diagnostic Report left out: the place of the
	// summary of a pass without a package.
	droppedAt Diagnostic
	// pending are diagnostics of Reportf whose field positions are
	// resolved after the rule ran, one parse per object (resolvePositions).
	pending []pendingPos
}

// pendingPos is a diagnostic of p.diags whose position is still to be
// found: the field at path in obj.
type pendingPos struct {
	diag int
	obj  *parser.Object
	path []string
}

// Context returns the context of the Lint call. A rule that loops over
// the package's objects, or over any list the package holds, checks it at
// each step (ctx.Err() is cheap) and returns its error when it is done, so
// that a cancelled Lint returns promptly on any input.
func (p *Pass) Context() context.Context { return p.ctx }

// canceled reports whether the Lint call's context is done.
func (p *Pass) canceled() bool {
	select {
	case <-p.ctx.Done():
		return true
	default:
		return false
	}
}

// Meta returns the package's meta object when it holds exactly one, else nil.
func (p *Pass) Meta() *parser.Object {
	if len(p.Package.Meta) != 1 {
		return nil
	}
	return p.Package.Meta[0]
}

// Report records a diagnostic. Empty RuleID, RuleName and Severity are
// filled in from the rule. Pos is kept as given: use Pos, PackagePos or
// ImagePos to make one.
//
// A pass keeps at most the number of diagnostics WithMaxDiagnostics allows
// (DefaultMaxDiagnostics unless set); those reported beyond it are counted,
// not kept, and one diagnostic at the end of the rule's run says how many
// were left out.
func (p *Pass) Report(d Diagnostic) {
	if !d.Severity.Valid() {
		d.Severity = p.Rule.Severity
	}
	if p.Rule.Regrade != nil {
		p.Rule.Regrade(p, &d)
	}
	if p.atCap() && p.dropped == 0 {
		p.droppedAt = d
	}
	if p.full(d.Severity) {
		return
	}
	if d.RuleID == "" {
		d.RuleID = p.Rule.ID
	}
	if d.RuleName == "" {
		d.RuleName = p.Rule.Name
	}
	p.diags = append(p.diags, d)
}

// atCap reports whether the pass keeps no more diagnostics: those
// reported now are only counted, so a rule may skip the work of their
// messages.
func (p *Pass) atCap() bool { return p.max > 0 && len(p.diags) >= p.max }

// AtCap reports whether the pass keeps no more diagnostics
// (WithMaxDiagnostics): a diagnostic reported now is only counted, so a
// rule may leave its Message empty and skip the work of formatting it. It
// must still Report it, so that the summary's count and severity (and,
// for a rule without a package, place) stay right.
func (p *Pass) AtCap() bool { return p.atCap() }

// full reports whether the pass holds as many diagnostics as it may keep;
// if so, it counts one more left out, of severity sev.
func (p *Pass) full(sev Severity) bool {
	if !p.atCap() {
		return false
	}
	p.dropped++
	p.droppedSev = max(p.droppedSev, sev)
	return true
}

// Reportf reports a problem with obj (nil for the package as a whole) at
// the field given by path (see Pos), with the rule's severity.
func (p *Pass) Reportf(obj *parser.Object, path []string, format string, args ...any) {
	p.report(0, obj, path, format, args...)
}

// ReportSeverityf is Reportf with a severity other than the rule's.
func (p *Pass) ReportSeverityf(sev Severity, obj *parser.Object, path []string, format string, args ...any) {
	p.report(sev, obj, path, format, args...)
}

func (p *Pass) report(sev Severity, obj *parser.Object, path []string, format string, args ...any) {
	if !sev.Valid() {
		sev = p.Rule.Severity
	}
	if p.full(sev) { // before formatting: a left-out diagnostic costs nothing
		return
	}
	d := Diagnostic{Severity: sev, Message: fmt.Sprintf(format, args...)}
	if obj != nil {
		d.Pos = obj.Pos
		d.Object = obj.Ref()
		d.Field = parser.FieldPath(path...)
		if len(path) > 0 {
			p.pending = append(p.pending, pendingPos{diag: len(p.diags), obj: obj, path: path})
		}
	} else {
		d.Pos = p.PackagePos()
	}
	p.Report(d)
}

// resolvePositions sets the positions of the diagnostics Reportf recorded,
// as Pos would, parsing each object concerned once however many
// diagnostics it drew (asking Pos for each would parse it again each time:
// quadratic for a rule reporting every entry of a long list).
func (p *Pass) resolvePositions() { resolvePositions(p.ctx, []*Pass{p}) }

// resolvePositions resolves the pending positions of every pass of
// passes, parsing each object concerned once for all of them.
func resolvePositions(ctx context.Context, passes []*Pass) {
	type target struct {
		p  *Pass
		pp pendingPos
	}
	byObj := make(map[*parser.Object][]target)
	var order []*parser.Object
	for _, p := range passes {
		for _, pp := range p.pending {
			if _, ok := byObj[pp.obj]; !ok {
				order = append(order, pp.obj)
			}
			byObj[pp.obj] = append(byObj[pp.obj], target{p, pp})
		}
		p.pending = nil
	}
	for _, obj := range order {
		if ctx.Err() != nil {
			break // Lint returns the context's error
		}
		loc, err := obj.FieldLocator()
		if err != nil {
			continue // the diagnostics keep the object's position
		}
		for _, q := range byObj[obj] {
			for n := len(q.pp.path); n > 0; n-- {
				if pos, err := loc.FieldPosition(q.pp.path[:n]...); err == nil {
					q.p.diags[q.pp.diag].Pos = pos
					break
				}
			}
		}
	}
}

// Pos returns the position of the field at path in obj: the position of
// its key, or, when the field is absent, of the nearest parent that is
// present, or of the object itself. Positions are computed from the raw
// bytes on demand, so rules should ask only when they report.
func (p *Pass) Pos(obj *parser.Object, path ...string) parser.Position {
	for n := len(path); n > 0; n-- {
		if pos, err := obj.FieldPosition(path[:n]...); err == nil {
			return pos
		}
	}
	return obj.Pos
}

// PackagePos returns where package-level diagnostics point: line 1,
// column 1 of the file of the package's first document.
func (p *Pass) PackagePos() parser.Position {
	if p.shared == nil {
		return parser.Position{} // a rule of another scope: no package
	}
	return p.shared.packagePos()
}

// Input returns the value given under key (WithInput), nil when none
// was.
func (p *Pass) Input(key any) any { return p.inputs[key] }

// Shared returns the value compute returns for key, computing it once per
// Lint (or LintSubject) call: every pass of the call asking for key gets
// the first caller's value, the others waiting for it. Rules share work
// this way, such as one decoding of an object that several rules read, or
// one walk whose findings each rule then reports. Keys compare as map keys
// do: use a value of an unexported type, as for context.WithValue. A
// compute that panics panics in every caller. compute must not call
// Shared with the same key.
func (p *Pass) Shared(key any, compute func() any) any {
	if p.memo == nil {
		return compute()
	}
	return p.memo.get(key, compute)
}

// memo holds the values of Shared for one run of rules.
type memo struct {
	mu     sync.Mutex
	values map[any]func() any
}

func (m *memo) get(key any, compute func() any) any {
	m.mu.Lock()
	f, ok := m.values[key]
	if !ok {
		if m.values == nil {
			m.values = map[any]func() any{}
		}
		f = sync.OnceValue(compute)
		m.values[key] = f
	}
	m.mu.Unlock()
	return f()
}

// shared holds what the passes of one Lint call compute once.
type shared struct {
	pkg        *parser.Package
	packagePos func() parser.Position
}

func newShared(pkg *parser.Package) *shared {
	s := &shared{pkg: pkg}
	s.packagePos = sync.OnceValue(func() parser.Position {
		first := parser.Position{}
		found := false
		consider := func(pos parser.Position) {
			if !found || pos.File < first.File || pos.File == first.File && pos.Offset < first.Offset {
				first, found = pos, true
			}
		}
		for _, o := range pkg.Meta {
			consider(o.Pos)
		}
		for _, o := range pkg.Objects {
			consider(o.Pos)
		}
		for _, e := range pkg.Errors {
			consider(e.Pos)
		}
		return parser.Position{File: first.File, Line: 1, Column: 1}
	})
	return s
}

// Tally adds n to the count named key: Result.Tallies adds up the counts
// of every rule that ran. A rule counts there what a report should say of
// its run beside its diagnostics, such as the CEL rule evaluations
// linter/rules's schema rules left out.
func (p *Pass) Tally(key string, n int) {
	if p.tallies == nil {
		p.tallies = map[string]int{}
	}
	p.tallies[key] += n
}
