package linter

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/xpkgkit/xpkgkit/meta"
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
	// xpkg/deps's Graph.Lint runs it) or the API changes between two
	// versions of a package (ScopeChange; linter/apidiff's Result.Lint
	// runs it). A rule set may mix scopes: each
	// runner runs the rules of its scope and knows the others by name, so
	// one rule set and one configuration serve every runner.
	Scope Scope
	// Bad and Good are short YAML examples for the rule catalog: a package
	// (or document) the rule reports, and its corrected form. Optional.
	Bad, Good string
	// Run inspects the rule's subject (the package, or for a rule of
	// another scope, Pass.Subject) and reports problems with pass.Report.
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
	// xpkg/deps's Graph.Lint runs it, and its Pass.Subject is the
	// *deps.Graph.
	ScopeGraph
	// ScopeChange is the scope of a rule over the API changes between an
	// older and a newer version of a package: linter/apidiff's Result.Lint
	// runs it, and its Pass.Subject is the *apidiff.Result of Diff.
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

// AppliesTo reports whether the rule runs for a package of kind k; the
// empty kind stands for a package of unknown kind.
func (r *Rule) AppliesTo(k meta.Kind) bool {
	return len(r.Kinds) == 0 || slices.Contains(r.Kinds, k)
}

// Matches reports whether idOrName is the rule's ID or name. IDs match
// without regard to case.
func (r *Rule) Matches(idOrName string) bool {
	return strings.EqualFold(r.ID, idOrName) || r.Name == idOrName
}

// String returns "ID name".
func (r *Rule) String() string { return r.ID + " " + r.Name }

// ErrInvalidRule is wrapped by the errors of Validate.
var ErrInvalidRule = errors.New("invalid rule")

// ErrUnknownRule is wrapped by the errors of Lint when an option names a
// rule that is not in the rule set.
var ErrUnknownRule = errors.New("unknown rule")

// validID reports whether id starts with a letter and holds only letters,
// digits, '-' and '_' (a byte loop: Lint validates its rule set on every
// call, and a regular expression cost a fifth of linting a small package).
func validID(id string) bool {
	for i := 0; i < len(id); i++ {
		c := id[i]
		letter := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		if !letter && (i == 0 || !('0' <= c && c <= '9' || c == '-' || c == '_')) {
			return false
		}
	}
	return id != ""
}

// validName reports whether name is lower-case kebab-case: words of
// lower-case letters and digits joined by single '-', starting with a
// letter.
func validName(name string) bool {
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case 'a' <= c && c <= 'z':
		case '0' <= c && c <= '9' || c == '-':
			if i == 0 || c == '-' && (name[i-1] == '-' || i == len(name)-1) {
				return false
			}
		default:
			return false
		}
	}
	return name != ""
}

// Validate checks a rule set before anything runs: every rule is non-nil,
// has a well-formed ID and Name, a Doc, a valid Severity, a known Scope,
// known Kinds and a Run function, and no two rules share an ID or a name (nor one rule's ID
// another's name). It returns every problem found, joined; each wraps
// ErrInvalidRule.
func Validate(rules []*Rule) error {
	var errs []error
	bad := func(i int, r *Rule, format string, args ...any) {
		who := fmt.Sprintf("rule %d", i)
		if r != nil && r.ID != "" {
			who = fmt.Sprintf("rule %s", r.ID)
		}
		errs = append(errs, fmt.Errorf("%w: %s: %s", ErrInvalidRule, who, fmt.Sprintf(format, args...)))
	}
	seen := map[string]int{} // lower-cased ID or name -> rule index
	// Reused IDs and names are said once, whatever their number: the usual
	// cause is one mistake, the same rules given twice (WithRules adds to
	// the rule set of WithRuleSet, the built-in ones say).
	type reuse struct {
		i, j      int
		r         *Rule
		key, what string
	}
	var reused []reuse
	claim := func(i int, r *Rule, key, what string) {
		k := strings.ToLower(key)
		if j, ok := seen[k]; ok && j != i {
			if len(reused) == 0 || reused[len(reused)-1].i != i {
				reused = append(reused, reuse{i, j, r, key, what})
			}
			return
		}
		seen[k] = i
	}
	for i, r := range rules {
		if r == nil {
			bad(i, r, "nil")
			continue
		}
		if !validID(r.ID) {
			bad(i, r, "ID %q must start with a letter and hold only letters, digits, '-' and '_'", r.ID)
		} else {
			claim(i, r, r.ID, "ID")
		}
		if !validName(r.Name) {
			bad(i, r, "name %q must be lower-case kebab-case", r.Name)
		} else if !strings.EqualFold(r.Name, r.ID) {
			claim(i, r, r.Name, "name")
		}
		if strings.TrimSpace(r.Doc) == "" {
			bad(i, r, "empty Doc")
		}
		if !r.Severity.Valid() {
			bad(i, r, "invalid severity %d", int(r.Severity))
		}
		if r.Scope > ScopeChange {
			bad(i, r, "unknown scope %d", int(r.Scope))
		}
		for _, k := range r.Kinds {
			if !slices.Contains(meta.Kinds(), k) {
				bad(i, r, "unknown package kind %q", k)
			}
		}
		if r.Run == nil {
			bad(i, r, "nil Run")
		}
	}
	switch n := len(reused); {
	case n == 1:
		u := reused[0]
		bad(u.i, u.r, "%s %q is already used by rule %d", u.what, u.key, u.j)
	case n > 1:
		ids := make([]string, 0, n)
		for _, u := range reused {
			ids = append(ids, u.key)
		}
		errs = append(errs, fmt.Errorf("%w: %d rules reuse the ID or name of an earlier rule (%s): each rule set holds a rule once; WithRules adds rules to the runner's own (WithRuleSet's), so give it only new ones",
			ErrInvalidRule, n, joinValues(ids, quote)))
	}
	return errors.Join(errs...)
}
