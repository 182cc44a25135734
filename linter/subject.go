package linter

import (
	"errors"
	"fmt"
)

// ErrSubject is wrapped by the RuleError of a rule made with RunOn that
// was run on a subject of another type than its own (a graph rule given
// to a runner of change rules, say), or on none (Lint, which runs
// package rules).
var ErrSubject = errors.New("rule run on a subject of another type")

// RunOn returns the Run of a rule of a scope other than ScopePackage
// whose subject is of type S: the *deps.Graph of a graph rule, the
// *apidiff.Result of a change rule, or whatever a runner built on
// LintSubject gives. The returned Run checks the subject's type once and
// calls run with it; given another type, it fails the rule with an error
// wrapping ErrSubject, which the runner records in Result.Failures.
func RunOn[S any](run func(p *Pass, subject S) error) func(*Pass) error {
	return func(p *Pass) error {
		s, ok := p.subject.(S)
		if !ok {
			return fmt.Errorf("linter: rule %s: %w: it runs on %T, given %T", p.Rule.ID, ErrSubject, s, p.subject)
		}
		return run(p, s)
	}
}
