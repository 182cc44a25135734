package apidiff

import "github.com/xpkgkit/xpkgkit/parser"

// Class says what a change does to the objects users wrote against the
// old API.
type Class int

const (
	// Compatible changes keep every object valid under the old API valid
	// (a new optional field, a new version, a widened enum, a relaxed
	// limit).
	Compatible Class = iota
	// MayBreak changes may turn some existing objects invalid, depending
	// on their values (a changed pattern or format, a CEL rule added to an
	// existing field, a changed default).
	MayBreak
	// Breaking changes turn objects valid under the old API invalid, or
	// lose their data (a field or a served version removed, a type
	// changed, a field made required).
	Breaking
)

// String returns "compatible", "may break" or "breaking".
func (c Class) String() string {
	switch c {
	case Compatible:
		return "compatible"
	case MayBreak:
		return "may break"
	case Breaking:
		return "breaking"
	}
	return "unknown"
}

// Kind is the kind of a change: the name of the rule that reports it
// (linter/changerules; RuleOf there gives its ID).
type Kind string

// The kinds of change Diff finds. Each is a rule of linter/changerules:
// the ID is in XP701-XP749.
const (
	DefinitionRemoved   Kind = "api-definition-removed"
	DefinitionAdded     Kind = "api-definition-added"
	NamesChanged        Kind = "api-names-changed"
	ScopeChanged        Kind = "api-scope-changed"
	ClaimRemoved        Kind = "api-claim-kind-removed"
	VersionRemoved      Kind = "api-version-removed"
	VersionUnserved     Kind = "api-version-unserved"
	VersionAdded        Kind = "api-version-added"
	StorageChanged      Kind = "api-storage-version-changed"
	FieldRemoved        Kind = "api-field-removed"
	FieldAdded          Kind = "api-field-added"
	FieldRequired       Kind = "api-field-required"
	TypeChanged         Kind = "api-type-changed"
	EnumNarrowed        Kind = "api-enum-narrowed"
	EnumWidened         Kind = "api-enum-widened"
	LimitTightened      Kind = "api-limit-tightened"
	LimitRelaxed        Kind = "api-limit-relaxed"
	PatternChanged      Kind = "api-pattern-changed"
	FormatChanged       Kind = "api-format-changed"
	ListTypeChanged     Kind = "api-list-type-changed"
	UnknownFieldsPruned Kind = "api-unknown-fields-pruned"
	DefaultChanged      Kind = "api-default-changed"
	ValidationAdded     Kind = "api-validation-rule-added"
	ConstraintChanged   Kind = "api-constraint-changed"
)

// Location is where one side of a change is: the object (nil when the
// definition is absent on that side), the field's path in the object (for
// instance spec.versions[0].schema.openAPIV3Schema.properties.spec) and
// its position (the key of the nearest field that is present, or the
// object's start, or, without an object, the package's first line).
type Location struct {
	Object *parser.Object
	Field  []string
	Pos    parser.Position
}

// Change is one difference between the old and the new package's API.
type Change struct {
	// Kind is what changed; Class what it does to existing objects.
	Kind  Kind
	Class Class
	// Definition names the definition ("CustomResourceDefinition
	// \"buckets.example.org\""), Version its version ("" for a change of
	// the whole definition).
	Definition string
	Version    string
	// Path is the field of the API's objects concerned, as a user writes
	// it: spec.forProvider.tags[*].key ("" for a change of a definition or
	// a version).
	Path string
	// Old and New locate the change in each package.
	Old, New Location
	// Error reports whether the change is an error, not a warning: the
	// API server refuses it at install whatever the version change (a
	// changed kind, scope or claim kind of one definition), or it is
	// breaking and the package's version change is not major on a package
	// at 1.0 or later (a semver violation). Otherwise a compatible change
	// is information, and one that may break or breaks a warning
	// (linter/changerules reports them so).
	Error bool
	// Message says what changed, in one line.
	Message string
}
