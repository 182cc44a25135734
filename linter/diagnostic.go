package linter

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/xpkgkit/xpkgkit/parser"
)

// Diagnostic is one problem found in a package.
type Diagnostic struct {
	// RuleID and RuleName identify the rule that reported it.
	RuleID   string `json:"ruleID"`
	RuleName string `json:"ruleName"`
	// Severity is the rule's severity, or what the rule or the options
	// (WithSeverity) made of it.
	Severity Severity `json:"severity"`
	// Message says what is wrong, in one line.
	Message string `json:"message"`
	// Pos is where the problem is: a field's key, or the start of an
	// object. Package-level diagnostics point at line 1 of the first file;
	// image-level ones have Line 0 (see ImageFacts), and so do those about
	// a file that was not read (XP006), whose File is that file's path.
	Pos parser.Position `json:"position"`
	// Field is the dotted path of the field concerned (e.g.
	// "spec.dependsOn[0].version"), empty when the diagnostic is about a
	// whole object, the package or the image.
	Field string `json:"field,omitempty"`
	// Object identifies the object concerned, nil when the diagnostic is
	// about the package or the image.
	Object *ObjectRef `json:"object,omitempty"`
}

// String formats the diagnostic as "file:line:col: severity: message (ID name)".
func (d Diagnostic) String() string {
	return fmt.Sprintf("%s: %s: %s (%s %s)", d.Pos, d.Severity, d.Message, d.RuleID, d.RuleName)
}

// ObjectRef identifies an object of a package.
type ObjectRef struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Name       string `json:"name,omitempty"`
}

// String returns "Kind name" ("Kind" when there is no name).
func (r *ObjectRef) String() string {
	if r == nil {
		return ""
	}
	if r.Name == "" {
		return r.Kind
	}
	return r.Kind + " " + r.Name
}

// RefOf returns the ObjectRef of obj.
func RefOf(obj *parser.Object) *ObjectRef {
	if obj == nil {
		return nil
	}
	return &ObjectRef{APIVersion: obj.APIVersion, Kind: obj.Kind, Name: obj.ObjectMeta.Name}
}

// SortDiagnostics sorts ds by file, line, column, rule ID and message.
func SortDiagnostics(ds []Diagnostic) {
	slices.SortStableFunc(ds, compareDiagnostics)
}

func compareDiagnostics(a, b Diagnostic) int {
	return cmp.Or(
		cmp.Compare(a.Pos.File, b.Pos.File),
		cmp.Compare(a.Pos.Line, b.Pos.Line),
		cmp.Compare(a.Pos.Column, b.Pos.Column),
		cmp.Compare(a.RuleID, b.RuleID),
		cmp.Compare(a.Message, b.Message),
	)
}
