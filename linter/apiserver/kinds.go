package apiserver

import (
	"fmt"
	"slices"
	"strings"

	lschema "github.com/xpkgkit/xpkgkit/linter/schema"

	"github.com/xpkgkit/xpkgkit/internal/target"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/xpkgkit/xpkgkit/internal/safetext"
	"github.com/xpkgkit/xpkgkit/linter"
)

// crossplaneKinds are the kinds of Crossplane's own CRDs a package may
// hold.
var crossplaneKinds = map[schema.GroupKind]bool{
	{Group: "apiextensions.crossplane.io", Kind: "CompositeResourceDefinition"}:     true,
	{Group: "apiextensions.crossplane.io", Kind: "Composition"}:                     true,
	{Group: "apiextensions.crossplane.io", Kind: "ManagedResourceDefinition"}:       true,
	{Group: "apiextensions.crossplane.io", Kind: "ManagedResourceActivationPolicy"}: true,
	{Group: "ops.crossplane.io", Kind: "Operation"}:                                 true,
	{Group: "ops.crossplane.io", Kind: "CronOperation"}:                             true,
	{Group: "ops.crossplane.io", Kind: "WatchOperation"}:                            true,
}

// maxKindViolations is how many violations an object of Crossplane's kinds
// may have for XP422 to run the API server's validator on it (whose cost
// is quadratic in them).
const maxKindViolations = 500

func ruleKinds() *linter.Rule {
	return &linter.Rule{
		ID: "XP422", Name: "kind-apiserver", Severity: linter.SeverityError,
		Doc: `The API server refuses an object of one of Crossplane's kinds

Each CompositeResourceDefinition, Composition, ManagedResourceDefinition,
ManagedResourceActivationPolicy, Operation, CronOperation and
WatchOperation of the package is validated as the API server validates a
custom resource on create (k8s.io/apiextensions-apiserver v0.37.2
pkg/registry/customresource/strategy.go, customResourceStrategy.Validate)
against Crossplane's own CRD of the kind (of the target release): unknown
fields pruned, defaults applied, then required fields, enums, patterns,
formats, limits, list types and the CEL rules (an XRD plural in upper case,
a Composition pipeline that is empty or repeats a step name). Crossplane's
package manager creates these objects, so the package cannot install. The
XRD rules on claims and connection secrets are XP406's to report. Fields of the wrong type are XP005's (and they
keep the CEL rules from running, as in the API server); unknown fields
are the API server's to prune, and XP005/XP106-style rules' to warn about.

The object validated is the one Crossplane sends, not the YAML as
written: the package manager decodes each of its own kinds into the Go
type of its release (crossplane-runtime pkg/xpkg/parser, the object
scheme) and the establisher creates that struct (crossplane
internal/controller/pkg/revision/establisher.go, APIEstablisher.create).
A field the YAML leaves out whose Go type has no omitempty arrives as its
zero value: an Operation without mode sends mode "", which the enum
refuses; a CronOperation without schedule sends schedule "", which
"required" accepts (the CRDs set no minLength). Fields the Go type does
not have are dropped. The shapes of the Go types, per release line, are
generated from Crossplane's own types (internal/sent). Where the object
is accepted but cannot do its job, a warning says so: a CronOperation
whose schedule is empty never runs (crossplane
internal/controller/ops/cronoperation: the schedule does not parse), nor
does a WatchOperation whose watch kind or apiVersion is empty (crossplane
internal/controller/ops/watchoperation: no API serves the kind it would
watch).`,
		Bad:  "apiVersion: ops.crossplane.io/v1alpha1\nkind: Operation\nmetadata:\n  name: once\nspec:\n  pipeline: []  # at least one step\n",
		Good: "apiVersion: ops.crossplane.io/v1alpha1\nkind: Operation\nmetadata:\n  name: once\nspec:\n  mode: Pipeline\n  pipeline:\n  - step: run\n    functionRef: {name: function-run}\n",
		Run: func(p *linter.Pass) error {
			budget := int64(DefaultBudget)
			// The target's schema set (the default line's when none was
			// given; the newest known for a future version).
			t, err := target.Resolve(p.CrossplaneVersion)
			if err != nil {
				return err
			}
			release := t.Schemas
			// The object in the API server's code, held in inFlight
			// until the next one (or the end).
			held := 0
			defer func() {
				if held > 0 {
					inFlight.release(held)
				}
			}()
			for _, o := range p.Package.Objects {
				if held > 0 {
					inFlight.release(held)
					held = 0
				}
				if err := p.Context().Err(); err != nil {
					return err
				}
				gvk := o.GroupVersionKind()
				if !crossplaneKinds[gvk.GroupKind()] {
					continue
				}
				ks, err := kindSchemaFor(release, gvk)
				if err != nil {
					continue // a version Crossplane does not serve: other rules say so
				}
				if err := inFlight.acquire(p.Context(), max(o.RawSize(), 1)); err != nil {
					return err
				}
				held = max(o.RawSize(), 1)
				u, err := o.Unstructured()
				if err != nil {
					continue
				}
				// What the package manager sends: the object after its
				// round trip through the target's Go type (internal/sent).
				obj, sentRep, err := sendObject(p.Context(), t.Line, gvk, u.Object)
				if err != nil {
					if err := notSent(p, o, err); err != nil {
						return err
					}
					continue
				}
				what := o.Kind + " " + safetext.Quote(o.ObjectMeta.Name) + ": the API server refuses it"
				// kube-openapi merges each error into its result by
				// comparing it with every error before it: quadratic in
				// the errors (30 000 failing items cost a minute). An
				// object linter/schema's linear validator finds that many
				// violations in is refused whatever the rest says: report
				// those, and leave the API server's code out.
				if pre, err := lschema.PackageKindsAt(release).Validate(p.Context(), obj); err == nil && len(pre.Violations)+pre.Omitted > maxKindViolations {
					var fs []finding
					for _, v := range pre.Violations {
						if v.Kind != lschema.KindType { // XP005's
							fs = append(fs, finding{path: v.Path, msg: v.Message})
						}
					}
					report(p, o, fs, fmt.Sprintf("%s (%d violations: checked by linter/schema, not by the API server's code, which is quadratic in them)", what, len(pre.Violations)+pre.Omitted))
					continue
				}
				errs, _ := validateKind(p.Context(), ks, obj, &budget)
				if err := p.Context().Err(); err != nil {
					return err
				}
				var fs []finding
				for _, e := range errs {
					if e.Type == field.ErrorTypeTypeInvalid {
						continue // XP005
					}
					if gvk.Kind == "CompositeResourceDefinition" && slices.Contains(xrdClaimMessages, e.Detail) {
						continue // XP406 xrd-claim-names
					}
					if gvk.Kind == "Composition" && compositionModeError(o.Outline(), e) {
						continue // XP410 composition-mode
					}
					path := splitFieldPath(e.Field)
					fs = append(fs, finding{path: path, msg: errorText(e) + sentNote(t.Line, sentRep, path)})
				}
				report(p, o, fs, what)
				if len(fs) == 0 {
					warnCannotWork(p, o, t.Line, obj, sentRep)
				}
			}
			return nil
		},
	}
}

// compositionModeError reports whether e is the API server's refusal of a
// Composition that XP410 composition-mode reports, at its field, as one
// problem: a mode other than Pipeline (the enum, at spec.mode), or
// spec.resources without a mode, which defaults to Pipeline and then lacks
// its pipeline (the CRD's rule "an array of pipeline steps is required in
// Pipeline mode", at spec; crossplane v2.x
// cluster/crds/apiextensions.crossplane.io_compositions.yaml). obj is the
// object as written (its outline), not as defaulted for validation.
func compositionModeError(obj map[string]any, e *field.Error) bool {
	spec, _ := obj["spec"].(map[string]any)
	mode, hasMode := spec["mode"].(string)
	_, hasResources := spec["resources"]
	_, hasPipeline := spec["pipeline"]
	switch {
	case hasMode && mode != "Pipeline":
		return e.Field == "spec.mode"
	case !hasMode && hasResources && !hasPipeline:
		return e.Field == "spec" && strings.Contains(e.Detail, "pipeline steps is required")
	}
	return false
}

// xrdClaimMessages are the messages of the XRD CRD's rules on claims and
// connection secrets (crossplane v2.1.0, v2.2.4, v2.3.4
// cluster/crds/apiextensions.crossplane.io_compositeresourcedefinitions.yaml):
// XP406 xrd-claim-names reports what they refuse, at the field, so XP422
// leaves them out (one finding each).
var xrdClaimMessages = []string{
	"Claims aren't supported in apiextensions.crossplane.io/v2",
	"XR connection secrets aren't supported in apiextensions.crossplane.io/v2",
	"Only LegacyCluster composite resources can offer claims",
	"Only LegacyCluster composite resources support connection secrets",
}
