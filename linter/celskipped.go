package linter

// CELSkipped counts the CEL rule evaluations (x-kubernetes-validations) that
// the schema rules (XP408 example-schema, XP409 and the other rules that
// validate objects against the package's CRDs) left out, by reason: what a
// report says was not checked.
type CELSkipped struct {
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
	// (linter/apiserver's, which the checker installs).
	Unevaluated int `json:"unevaluated"`
}

// Total is how many rule evaluations were left out.
func (c CELSkipped) Total() int {
	return c.Transition + c.Cost + c.Partial + c.Blocked + c.Unevaluated
}

// Add adds o's counts to c.
func (c *CELSkipped) Add(o CELSkipped) {
	c.Transition += o.Transition
	c.Cost += o.Cost
	c.Partial += o.Partial
	c.Blocked += o.Blocked
	c.Unevaluated += o.Unevaluated
}
