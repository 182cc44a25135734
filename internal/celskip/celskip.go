// Package celskip is the count of the CEL rule evaluations
// (x-kubernetes-validations) that the schema rules of linter/rules left
// out, by reason: what a report says was not checked. The rules tally it
// on their passes (linter.Pass.Tally, under the keys of Tallies), and
// xpkg-lint's reports read it back from linter.Result.Tallies
// (FromTallies).
package celskip

// Counts counts the CEL rule evaluations left out, by reason.
type Counts struct {
	// Transition counts transition rules (they use oldSelf): only an
	// update evaluates them.
	Transition int `json:"transition"`
	// Cost counts rules left out for cost: the API server's budget ran
	// out, or a rule or schema was beyond the compile bounds.
	Cost int `json:"cost"`
	// Partial counts presence rules (has()) left out of composed
	// resource templates, which patches and functions complete.
	Partial int `json:"partial"`
	// Blocked counts rules not evaluated because the object failed its
	// schema in a way that stops the API server before CEL.
	Blocked int `json:"blocked"`
	// Unevaluated counts rules not evaluated for want of a CEL extension
	// (linter/apiserver's, which xpkg-lint installs).
	Unevaluated int `json:"unevaluated"`
}

// The keys of the counts in linter.Result.Tallies.
const (
	keyTransition  = "cel-skipped/transition"
	keyCost        = "cel-skipped/cost"
	keyPartial     = "cel-skipped/partial"
	keyBlocked     = "cel-skipped/blocked"
	keyUnevaluated = "cel-skipped/unevaluated"
)

// Total is how many rule evaluations were left out.
func (c Counts) Total() int {
	return c.Transition + c.Cost + c.Partial + c.Blocked + c.Unevaluated
}

// Add adds o's counts to c.
func (c *Counts) Add(o Counts) {
	c.Transition += o.Transition
	c.Cost += o.Cost
	c.Partial += o.Partial
	c.Blocked += o.Blocked
	c.Unevaluated += o.Unevaluated
}

// Tallies returns the counts that are not zero, by key, for
// linter.Pass.Tally and linter.Result.Tallies.
func (c Counts) Tallies() map[string]int {
	m := map[string]int{}
	for k, n := range map[string]int{keyTransition: c.Transition, keyCost: c.Cost, keyPartial: c.Partial, keyBlocked: c.Blocked, keyUnevaluated: c.Unevaluated} {
		if n != 0 {
			m[k] = n
		}
	}
	return m
}

// FromTallies reads the counts back from linter.Result.Tallies; other keys
// are ignored.
func FromTallies(m map[string]int) Counts {
	return Counts{Transition: m[keyTransition], Cost: m[keyCost], Partial: m[keyPartial], Blocked: m[keyBlocked], Unevaluated: m[keyUnevaluated]}
}
