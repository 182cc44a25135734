package linter

import (
	"cmp"
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/xpkgkit/xpkgkit/parser"
)

// Diagnostic is one problem found in a package.
//
// Its JSON encoding is the one xpkg-lint's -o json prints, one object per
// diagnostic, described by the JSON Schema in diagnostic.schema.json (see
// DiagnosticSchema):
//
//	{
//	  "rule": "XP204", "name": "license", "severity": "warning",
//	  "message": "...",
//	  "source": "provider.xpkg",
//	  "file": "package.yaml", "document": 0, "line": 8, "column": 5,
//	  "field": "metadata.annotations[\"meta.crossplane.io/license\"]",
//	  "object": {"apiVersion": "meta.pkg.crossplane.io/v1", "kind": "Provider", "name": "p"},
//	  "suppressed": {"reason": "mirrored package, source is private"}
//	}
//
// source, field, object and suppressed are left out when empty. Pos.Offset
// is not encoded.
type Diagnostic struct {
	// RuleID and RuleName identify the rule that reported it.
	RuleID   string
	RuleName string
	// Severity is the rule's severity, or what the rule or the options
	// (WithSeverity) made of it.
	Severity Severity
	// Message says what is wrong, in one line.
	Message string
	// Source names where the package was read from (a path, a reference,
	// "<stdin>"): set by linter/rules.LintPackage, empty from Lint. For an image
	// it is the image, and Pos.File the file inside it.
	Source string
	// Pos is where the problem is: a field's key, or the start of an
	// object. Package-level diagnostics point at line 1 of the first file;
	// image-level ones have Line 0 (see ImageFacts), and so do those about
	// a file that was not read (XP006), whose File is that file's path.
	Pos parser.Position
	// Field is the dotted path of the field concerned (e.g.
	// "spec.dependsOn[0].version"), empty when the diagnostic is about a
	// whole object, the package or the image.
	Field string
	// Object identifies the object concerned, nil when the diagnostic is
	// about the package or the image.
	Object *parser.ObjectRef
	// Suppression is set on the diagnostics an annotation silenced
	// (Result.Suppressed); nil on those that stand.
	Suppression *Suppression
	// SuggestedFixes are changes that resolve the diagnostic, as
	// go/analysis's: each a message and text edits of the package's files.
	// A rule attaches them where the change is mechanical; nil when there
	// is none.
	SuggestedFixes []SuggestedFix
}

// SuggestedFix is a change that resolves a diagnostic: a message saying
// what it does, and the text edits that do it, applied together or not at
// all.
type SuggestedFix struct {
	Message   string     `json:"message"`
	TextEdits []TextEdit `json:"edits"`
}

// TextEdit replaces the bytes [Offset, End) of File with NewText. File is
// named as the diagnostic's Pos.File is; offsets are bytes in the file as
// it was read. An insertion has End equal to Offset.
type TextEdit struct {
	File    string `json:"file"`
	Offset  int64  `json:"offset"`
	End     int64  `json:"end"`
	NewText string `json:"newText"`
}

// Suppression says why a diagnostic was silenced: the reason given after
// the rule in the meta.AnnotationSuppress, e.g. "XP205: mirrored package,
// source is private".
type Suppression struct {
	// Reason is the text after the colon, empty when none was given.
	Reason string `json:"reason,omitempty"`
}

// jsonDiagnostic is the JSON form of a Diagnostic.
type jsonDiagnostic struct {
	RuleID     string            `json:"rule"`
	Name       string            `json:"name"`
	Severity   Severity          `json:"severity"`
	Message    string            `json:"message"`
	Source     string            `json:"source,omitempty"`
	File       string            `json:"file"`
	Document   int               `json:"document"`
	Line       int               `json:"line"`
	Column     int               `json:"column"`
	Field      string            `json:"field,omitempty"`
	Object     *parser.ObjectRef `json:"object,omitempty"`
	Suppressed *Suppression      `json:"suppressed,omitempty"`
	Fixes      []SuggestedFix    `json:"fixes,omitempty"`
}

// MarshalJSON encodes d in the flat form described on Diagnostic.
func (d Diagnostic) MarshalJSON() ([]byte, error) {
	return json.Marshal(jsonDiagnostic{
		RuleID: d.RuleID, Name: d.RuleName, Severity: d.Severity, Message: d.Message,
		Source: d.Source, File: d.Pos.File, Document: d.Pos.Document, Line: d.Pos.Line, Column: d.Pos.Column,
		Field: d.Field, Object: d.Object, Suppressed: d.Suppression, Fixes: d.SuggestedFixes,
	})
}

// UnmarshalJSON decodes the form MarshalJSON writes, so that a program can
// read xpkg-lint's -o json output back into Diagnostics.
func (d *Diagnostic) UnmarshalJSON(b []byte) error {
	var j jsonDiagnostic
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*d = Diagnostic{
		RuleID: j.RuleID, RuleName: j.Name, Severity: j.Severity, Message: j.Message, Source: j.Source,
		Pos:   parser.Position{File: j.File, Document: j.Document, Line: j.Line, Column: j.Column},
		Field: j.Field, Object: j.Object, Suppression: j.Suppressed, SuggestedFixes: j.Fixes,
	}
	return nil
}

// String formats the diagnostic as xpkg-lint's text format prints it:
// "file:line:col: severity ID name: message" ("file:line" without a
// column, "file" for an image-level diagnostic at line 0, the Source when
// there is no file).
func (d Diagnostic) String() string {
	return d.Where() + ": " + d.Severity.String() + " " + d.RuleID + " " + d.RuleName + ": " + d.Message
}

// Where formats where the diagnostic is: "file:line:col", "file:line"
// when there is no column, "file" for an image-level diagnostic (line 0),
// and the Source in place of an empty file.
func (d Diagnostic) Where() string {
	p := d.Pos
	file := p.File
	if file == "" {
		file = d.Source
	}
	switch {
	case p.Line <= 0:
		return file
	case p.Column <= 0:
		return fmt.Sprintf("%s:%d", file, p.Line)
	}
	return fmt.Sprintf("%s:%d:%d", file, p.Line, p.Column)
}

//go:embed diagnostic.schema.json
var diagnosticSchema []byte

// DiagnosticSchema returns the JSON Schema (draft-04) of an array of
// diagnostics in their JSON encoding, or of the report object xpkg-lint's
// -o json prints (its findings, suppressed and baselined findings, and a
// summary).
func DiagnosticSchema() []byte { return slices.Clone(diagnosticSchema) }

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
