package report

import (
	"encoding/json"
	"io"
)

// JSONDiagnostic is one element of the JSON format's array.
type JSONDiagnostic struct {
	// Source is the source as given on the command line.
	Source string `json:"source"`
	// Rule and Name are the rule's ID and name.
	Rule string `json:"rule"`
	Name string `json:"name"`
	// Severity is "error", "warning" or "info".
	Severity string `json:"severity"`
	// Message says what is wrong.
	Message string `json:"message"`
	// File, Line and Column are where; Line and Column are 0 for an
	// image-level diagnostic.
	File   string `json:"file"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
	// Field is the dotted path of the field concerned, when there is one.
	Field string `json:"field,omitempty"`
	// Object is the object concerned; absent for package- and image-level
	// diagnostics.
	Object *JSONObject `json:"object,omitempty"`
}

// JSONObject identifies the object a diagnostic is about.
type JSONObject struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Name       string `json:"name"`
}

// jsonWriter collects every diagnostic and writes one indented array.
type jsonWriter struct {
	w     io.Writer
	diags []JSONDiagnostic
}

func (j *jsonWriter) Source(s *Source) error {
	for _, d := range s.Diagnostics {
		jd := JSONDiagnostic{
			Source:   s.Name,
			Rule:     d.RuleID,
			Name:     d.RuleName,
			Severity: d.Severity.String(),
			Message:  d.Message,
			File:     d.Pos.File,
			Line:     d.Pos.Line,
			Column:   d.Pos.Column,
			Field:    d.Field,
		}
		if d.Object != nil {
			jd.Object = &JSONObject{APIVersion: d.Object.APIVersion, Kind: d.Object.Kind, Name: d.Object.Name}
		}
		j.diags = append(j.diags, jd)
	}
	return nil
}

func (j *jsonWriter) Close() error {
	if j.diags == nil {
		j.diags = []JSONDiagnostic{}
	}
	enc := json.NewEncoder(j.w)
	enc.SetIndent("", "  ")
	return enc.Encode(j.diags)
}
