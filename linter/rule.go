package linter

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/xpkgkit/xpkgkit/meta"
)

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
		errs = append(errs, fmt.Errorf("%w: %d rules reuse the ID or name of an earlier rule (%s): each rule set holds a rule once, so add only rules the set does not hold yet",
			ErrInvalidRule, n, joinValues(ids, quote)))
	}
	return errors.Join(errs...)
}
