package linter

import (
	"fmt"
	"strings"
)

// Severity grades a diagnostic. Severities are ordered: SeverityInfo <
// SeverityWarning < SeverityError. The zero value is not a valid severity.
type Severity int

// The severities, least severe first.
const (
	// SeverityInfo is advice: the package works as it is.
	SeverityInfo Severity = iota + 1
	// SeverityWarning is a likely mistake or a deprecated construct.
	SeverityWarning
	// SeverityError is a problem that stops Crossplane from installing the
	// package, or makes it misbehave.
	SeverityError
)

// String returns "info", "warning" or "error" ("Severity(N)" for an invalid
// value).
func (s Severity) String() string {
	switch s {
	case SeverityInfo:
		return "info"
	case SeverityWarning:
		return "warning"
	case SeverityError:
		return "error"
	default:
		return fmt.Sprintf("Severity(%d)", int(s))
	}
}

// Valid reports whether s is one of the defined severities.
func (s Severity) Valid() bool { return s >= SeverityInfo && s <= SeverityError }

// MarshalText encodes s as its String form. It fails on an invalid severity.
func (s Severity) MarshalText() ([]byte, error) {
	if !s.Valid() {
		return nil, fmt.Errorf("linter: invalid severity %d", int(s))
	}
	return []byte(s.String()), nil
}

// UnmarshalText decodes a severity written as by MarshalText (any case).
func (s *Severity) UnmarshalText(text []byte) error {
	v, err := ParseSeverity(string(text))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// ParseSeverity parses "error", "warning" or "info", in any case.
func ParseSeverity(text string) (Severity, error) {
	switch strings.ToLower(strings.TrimSpace(text)) {
	case "info":
		return SeverityInfo, nil
	case "warning":
		return SeverityWarning, nil
	case "error":
		return SeverityError, nil
	}
	return 0, fmt.Errorf("linter: unknown severity %q (want error, warning or info)", text)
}
