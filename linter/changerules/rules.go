package changerules

import (
	"context"
	"errors"
	"fmt"

	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/linter/apidiff"
	"github.com/xpkgkit/xpkgkit/parser"
)

// kindRule is the catalog entry of one kind of change.
type kindRule struct {
	kind  apidiff.Kind
	id    string
	class apidiff.Class // the kind's usual class
	doc   string
}

const semverDoc = `

A breaking change is a warning, and an error when the package's version
change (WithVersions; the CLI takes the tags of --against and of the
source) is not a major semver bump on a package at 1.0 or later: a semver
violation, which a registry or a CI job can refuse. A 0.x package may break
its API in a minor release.`

const mayBreakDoc = `

It may break: whether an existing object fails depends on its values, so it
is a warning whatever the version change.`

const compatibleDoc = `

Compatible: every object valid under the old API stays valid. Reported as
info, for the release notes.`

var kindRules = []kindRule{
	{apidiff.DefinitionRemoved, "XP701", apidiff.Breaking, `A definition of the old package is gone

A CustomResourceDefinition, ManagedResourceDefinition or
CompositeResourceDefinition of the old package has no counterpart (by name,
or by kind for a renamed group or plural) in the new one. Crossplane's
package manager leaves the old CRD in place but no controller reconciles its
objects any more; for an XRD, its composite resources and claims are
orphaned.` + semverDoc},
	{apidiff.DefinitionAdded, "XP702", apidiff.Compatible, `A definition is new

The new package defines a kind the old one did not.` + compatibleDoc},
	{apidiff.NamesChanged, "XP703", apidiff.Breaking, `A definition's group, kind or plural changed

spec.group, spec.names.kind or spec.names.plural differ: every object,
Composition and client naming the old ones stops working. The API server
refuses to change them on an existing CRD
(k8s.io/apiextensions-apiserver pkg/apis/apiextensions/validation,
validateCustomResourceDefinitionSpecUpdate: group and plural make the
resource's name and are always immutable, the kind once the CRD is
established), so the package manager cannot update it in place: a kind
changed on the same CRD (or XRD: Crossplane's CompositeResourceDefinition
CRD makes spec.names immutable with a CEL rule, self == oldSelf) is an
error whatever the version change, as the new package cannot install. A
changed group or plural names another CRD: the old one stays, orphaned.` + semverDoc},
	{apidiff.ScopeChanged, "XP704", apidiff.Breaking, `A definition's scope changed

spec.scope differs (Namespaced, Cluster; for an XRD, LegacyCluster is the
default of apiextensions.crossplane.io/v1 and Namespaced of v2). The API
server refuses to change the scope of an established CRD
(k8s.io/apiextensions-apiserver pkg/apis/apiextensions/validation,
validateCustomResourceDefinitionSpecUpdate: "field is immutable"), and
existing objects cannot move: an error whatever the version change, as the
new package cannot install. The same holds for an XRD whose old and new
versions both write spec.scope (Crossplane's CompositeResourceDefinition
CRD: self == oldSelf); a scope that changes with the XRD's apiVersion
default (v1 LegacyCluster, v2 Namespaced) is a breaking change.` + semverDoc},
	{apidiff.ClaimRemoved, "XP705", apidiff.Breaking, `An XRD's claim kind was removed or changed

spec.claimNames.kind of a v1 CompositeResourceDefinition was removed or
renamed (or the XRD moved to v2, which has no claims): every claim users
wrote is orphaned, and Crossplane stops offering the claim CRD. A claim
kind changed to another is an error whatever the version change: the API
server refuses the update (Crossplane's CompositeResourceDefinition CRD
makes spec.claimNames immutable, self == oldSelf).` + semverDoc},
	{apidiff.VersionRemoved, "XP706", apidiff.Breaking, `A served version was removed

A version the old definition served is missing from spec.versions. Clients
and manifests of that version fail, and the API server refuses the update
while objects are stored at it (status.storedVersions).` + semverDoc},
	{apidiff.VersionUnserved, "XP707", apidiff.Breaking, `A version is no longer served

A version served by the old definition has served: false: clients and
manifests of that version fail.` + semverDoc},
	{apidiff.VersionAdded, "XP708", apidiff.Compatible, `A version is new

The new definition has a version the old one did not.` + compatibleDoc},
	{apidiff.StorageChanged, "XP709", apidiff.Breaking, `The storage version changed without a conversion path

The storage version (storage: true of a CRD, referenceable: true of an XRD)
changed. With a conversion webhook (spec.conversion.strategy: Webhook), or
schemas that are equal, that is compatible (info). Otherwise the API server
serves objects stored at the old version as the new one, with the None
strategy's conversion: only apiVersion changes, so fields that moved or
changed meaning are read wrong.` + semverDoc},
	{apidiff.FieldRemoved, "XP710", apidiff.Breaking, `A field was removed or renamed

A property of a version's schema is gone (a rename is a removal and an
addition: the message names the likely new name). The API server prunes the
field from every object on its next write, and manifests that set it are
refused with kubectl's strict field validation.` + semverDoc},
	{apidiff.FieldAdded, "XP711", apidiff.Compatible, `A field is new and optional

A property was added that objects may leave out (optional, or required with
a default).` + compatibleDoc},
	{apidiff.FieldRequired, "XP712", apidiff.Breaking, `A field was made required, or a required field without a default added

Objects that leave the field out, which were valid, are refused at their
next update.` + semverDoc},
	{apidiff.TypeChanged, "XP713", apidiff.Breaking, `A field's type changed

The type of a field differs: existing values of the old type are refused.
A widening (integer to number, to int-or-string, or to any type) is
compatible and reported as info.` + semverDoc},
	{apidiff.EnumNarrowed, "XP714", apidiff.Breaking, `An enum lost values, or an enum was added

Values valid before are refused.` + semverDoc},
	{apidiff.EnumWidened, "XP715", apidiff.Compatible, `An enum gained values, or was removed

Every old value stays valid (clients that switch over the values may meet
new ones).` + compatibleDoc},
	{apidiff.LimitTightened, "XP716", apidiff.Breaking, `A limit was tightened

minimum, maximum, minLength, maxLength, minItems, maxItems, minProperties or
maxProperties was added or moved inward (or exclusiveMinimum/Maximum set):
values valid before are refused.` + semverDoc},
	{apidiff.LimitRelaxed, "XP717", apidiff.Compatible, `A limit was relaxed

A bound, pattern or format was removed or moved outward.` + compatibleDoc},
	{apidiff.PatternChanged, "XP718", apidiff.MayBreak, `A field's pattern was added or changed

Existing values that do not match the new pattern are refused.` + mayBreakDoc},
	{apidiff.FormatChanged, "XP719", apidiff.MayBreak, `A field's format was added or changed

Existing values that are not of the new format are refused.` + mayBreakDoc},
	{apidiff.ListTypeChanged, "XP720", apidiff.Breaking, `x-kubernetes-list-type, list-map-keys or map-type changed

Server-side apply merges the list or map differently, field managers lose
ownership, and lists that the new type constrains (duplicates in a set, in
a map's keys) are refused. The API server refuses some of these changes
outright (ratcheting aside).` + semverDoc},
	{apidiff.UnknownFieldsPruned, "XP721", apidiff.Breaking, `x-kubernetes-preserve-unknown-fields was removed

Fields the API server kept without a schema are now pruned from every
object on its next write: their data is lost.` + semverDoc},
	{apidiff.DefaultChanged, "XP722", apidiff.MayBreak, `A field's default changed or was removed

Objects that leave the field out get a different value at their next write,
and Compositions reading it behave differently.` + mayBreakDoc},
	{apidiff.ValidationAdded, "XP723", apidiff.MayBreak, `A CEL rule was added to an existing field

An x-kubernetes-validations rule on a field the old schema had may refuse
existing objects at their next update (the API server's ratcheting spares
only unchanged fields).` + mayBreakDoc},
	{apidiff.ConstraintChanged, "XP724", apidiff.MayBreak, `oneOf, anyOf, allOf or not was added or changed

A structural constraint of a field changed; existing objects may fail it.` + mayBreakDoc},
}

// ruleFor returns the catalog entry of kind k; nil for a kind Diff does
// not report.
func ruleFor(k apidiff.Kind) *kindRule {
	for i := range kindRules {
		if kindRules[i].kind == k {
			return &kindRules[i]
		}
	}
	return nil
}

// RuleOf returns the ID of the rule of a kind of change ("" for a kind
// apidiff.Diff does not report).
func RuleOf(k apidiff.Kind) string {
	if r := ruleFor(k); r != nil {
		return r.id
	}
	return ""
}

// severity is the severity of a change of class c, an error or not
// (apidiff.Change.Error).
func severity(c apidiff.Class, isErr bool) linter.Severity {
	switch {
	case isErr:
		return linter.SeverityError
	case c == apidiff.Compatible:
		return linter.SeverityInfo
	}
	return linter.SeverityWarning
}

// changeRun returns the Run of the rule of kind k: it reports, on the
// *apidiff.Result that Lint gives as the subject, each change of that
// kind, positioned in the new package (the message says where the old
// package had the field), then one diagnostic saying how many Diff's cap
// (apidiff.WithMaxChanges) left out.
func changeRun(k apidiff.Kind) func(*linter.Pass) error {
	return linter.RunOn(func(p *linter.Pass, r *apidiff.Result) error {
		for i := range r.Changes {
			if i%256 == 0 && p.Context().Err() != nil {
				return nil // the runner returns the context's error
			}
			ch := &r.Changes[i]
			if ch.Kind != k {
				continue
			}
			d := linter.Diagnostic{Severity: severity(ch.Class, ch.Error), Pos: ch.New.Pos, Object: ch.New.Object.Ref()}
			if ch.New.Object != nil && len(ch.New.Field) > 0 {
				d.Field = parser.FieldPath(ch.New.Field...)
			}
			if !p.AtCap() { // a diagnostic left out costs no message
				d.Message = ch.Message
				if ch.Old.Object != nil && ch.Old.Pos.Line > 0 {
					pos := ch.Old.Pos
					pos.File = r.OldFile(pos.File)
					d.Message += fmt.Sprintf(" [old: %s]", pos)
				}
			}
			p.Report(d)
		}
		n := r.Dropped[k]
		sev := severity(r.DroppedClass[k], r.DroppedErrors[k] > 0)
		if n > 0 && !p.AtCap() {
			p.Report(linter.Diagnostic{Severity: sev, Pos: r.PackagePos(),
				Message: fmt.Sprintf("%d more changes of this kind were left out (WithMaxChanges)", n)})
			return nil
		}
		// At the pass's cap (WithMaxDiagnostics), the changes Diff left out
		// are counted in the pass's summary, one by one.
		for j := range n {
			if j%256 == 0 && p.Context().Err() != nil {
				return nil
			}
			p.Report(linter.Diagnostic{Severity: sev, Pos: r.PackagePos()})
		}
		return nil
	})
}

// Rules returns the rules of the changes apidiff.Diff reports
// (XP701-XP724), fresh copies in ID order: rules of scope
// linter.ScopeChange, whose Run reports the changes of its kind of the
// *apidiff.Result that Lint gives them. Give them with linter.WithRules to
// linter.Lint and graphrules.Lint (which know them and run none), and the
// other runners' rules to Lint, to configure every runner with one set of
// options. The severity shown is the usual one; each change's own follows
// its Class and Error.
func Rules() []*linter.Rule {
	out := make([]*linter.Rule, len(kindRules))
	for i, k := range kindRules {
		sev := linter.SeverityWarning
		if k.class == apidiff.Compatible {
			sev = linter.SeverityInfo
		}
		out[i] = &linter.Rule{ID: k.id, Name: string(k.kind), Doc: k.doc, Severity: sev,
			Scope: linter.ScopeChange, Run: changeRun(k.kind)}
	}
	return out
}

// Lint runs the change rules (Rules, or the rule set opts give: rules of
// other scopes in it are known, not run) over the changes of r, with the
// configuration of opts, which is the linter's: linter.WithDisabled,
// WithSeverity (unknown rules and invalid severities are errors), the
// suppression annotations of the new package (meta.AnnotationSuppress:
// on an object, for the diagnostics in its document; on the meta object,
// for every diagnostic of the rules it names; the silenced ones are in the
// result's Suppressed), WithMaxDiagnostics (each rule reports at most
// linter.DefaultMaxDiagnostics diagnostics by default, and one more
// saying how many it left out). The result's diagnostics are sorted by
// position, each in the new package (the message says where the old
// package had the field, its file named as apidiff.WithOldFiles says),
// plus one per kind that Diff's cap (apidiff.WithMaxChanges) cut.
func Lint(ctx context.Context, r *apidiff.Result, opts ...linter.Option) (*linter.Result, error) {
	if r == nil {
		return nil, errors.New("changerules: nil result")
	}
	rules := Rules()
	res, err := linter.LintSubject(ctx, linter.ScopeChange, r, append([]linter.Option{linter.WithRuleSet(rules...)}, opts...)...)
	if err != nil {
		return nil, err
	}
	if pkg := r.NewPackage(); pkg != nil {
		res.Diagnostics, res.Suppressed = linter.Suppress(ctx, pkg, rules, res.Diagnostics)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	return res, nil
}
