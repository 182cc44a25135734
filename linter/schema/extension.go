package schema

import "context"

// Extension checks, beside the OpenAPI validation of a Validator, what
// that validation leaves out: the CEL rules (x-kubernetes-validations) of
// a schema. linter/apiserver provides one on the API server's own
// CEL validator; this package depends on no CEL implementation.
type Extension interface {
	// Compile prepares the checks of one definition version's schema (its
	// openAPIV3Schema, as decoded JSON). A Validator calls it at most once
	// per version, the first time an object of that version is validated
	// in full. An error leaves the version's CEL rules unevaluated (they
	// are counted in Result.CEL.Unevaluated).
	Compile(schema any) (Checker, error)
}

// Checker checks objects against one schema an Extension compiled. It
// must be safe for concurrent use.
type Checker interface {
	// Check checks obj, already pruned and defaulted as the API server
	// does before its CEL rules run. partial is set when the object is a
	// template something completes later (WithoutRequired): a Checker then
	// leaves out what the completion could change.
	Check(ctx context.Context, obj map[string]any, partial bool) CheckResult
}

// CheckResult is what a Checker found.
type CheckResult struct {
	// Violations are the problems found; their Pos is set by
	// ValidateObject.
	Violations []Violation
	// CEL counts the rules evaluated and those left out.
	CEL CELCounts
}

// CELCounts counts the CEL rules (x-kubernetes-validations) of a schema by
// what became of them in one validation.
type CELCounts struct {
	// Rules is how many rules the schema holds.
	Rules int
	// Transition counts the transition rules (they use oldSelf), which
	// only an update evaluates: skipped.
	Transition int
	// Cost counts the rules left unevaluated because the API server's
	// cost budget ran out (the object is then refused, a Violation says
	// so).
	Cost int
	// Partial counts the rules left out of a partial object
	// (WithoutRequired): those that test a field's presence.
	Partial int
	// Blocked counts the rules not evaluated because the object failed
	// the schema in a way that stops the API server before CEL (a wrong
	// type, a missing required field, a value not in an enum, a value too
	// long).
	Blocked int
	// Regex counts, of Cost, the rules left unevaluated because the cost
	// model cannot price their regular expression: one built at run time
	// (from the object's data, or by concatenation), or one whose
	// compiled program is too large for the object's strings.
	Regex int
	// Unevaluated counts the rules no Extension was asked to evaluate:
	// the Validator has none (WithExtension), the validation is
	// WithTypesOnly, or the Extension could not compile the schema. Then
	// every rule of the schema is counted here.
	Unevaluated int
}

// Skipped is how many rules were not evaluated, for any reason.
func (c CELCounts) Skipped() int {
	return c.Transition + c.Cost + c.Partial + c.Blocked + c.Unevaluated
}

// unevaluated counts n rules that no Extension evaluates.
func unevaluated(n int) CELCounts { return CELCounts{Rules: n, Unevaluated: n} }

// WithExtension makes the Validator run x beside its OpenAPI validation
// (not under WithTypesOnly, nor for Kubernetes' built-in kinds).
func WithExtension(x Extension) Option { return func(c *config) { c.ext = x } }

// KindCEL is a Violation of a CEL rule (x-kubernetes-validations), found
// by an Extension: Message is the rule's message (or its
// messageExpression's), Found the reason (Invalid, Forbidden, Required,
// Duplicate).
const KindCEL ViolationKind = "cel"

// blocking reports whether a violation stops the API server before it
// evaluates CEL rules (k8s.io/apiextensions-apiserver
// pkg/registry/customresource/strategy.go hasBlockingErr: NotSupported,
// Required, TooLong, TooMany and TypeInvalid errors).
func blocking(v Violation) bool {
	switch v.Kind {
	case KindType, KindRequired, KindEnum:
		return true
	case KindLength, KindItems, KindProperties:
		return len(v.Expected) > 0 && (contains(v.Expected, "at most") || contains(v.Expected, "less than") || contains(v.Message, "at most") || contains(v.Message, "too long") || contains(v.Message, "too many"))
	}
	return false
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

// runCheck runs the version's Checker over data (the pruned, defaulted
// object) unless a violation already stops the API server before CEL.
func runCheck(ctx context.Context, c *compiled, data any, r *Result, partial bool) {
	obj, ok := data.(map[string]any)
	if !ok {
		return
	}
	for _, v := range r.Violations {
		if blocking(v) {
			r.CEL = CELCounts{Rules: c.cel, Blocked: c.cel}
			return
		}
	}
	res := c.check.Check(ctx, obj, partial)
	r.Violations = append(r.Violations, res.Violations...)
	r.CEL = res.CEL
}
