package rules

import (
	"github.com/xpkgkit/xpkgkit/linter"

	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/xpkgkit/xpkgkit/internal/safetext"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/xpkgkit/xpkgkit/meta"
	"github.com/xpkgkit/xpkgkit/parser"
)

// Groups and kinds the rules know.
const (
	groupK8sExtensions = "apiextensions.k8s.io"
	groupXPExtensions  = "apiextensions.crossplane.io"
	groupAdmission     = "admissionregistration.k8s.io"
	groupOps           = "ops.crossplane.io"

	kindCRD         = "CustomResourceDefinition"
	kindXRD         = "CompositeResourceDefinition"
	kindComposition = "Composition"
)

func metaRef(o *parser.Object) string {
	return fmt.Sprintf("%s %s at %s", token(o.Kind), quote(o.ObjectMeta.Name), o.Pos)
}

func ruleOneMeta() *linter.Rule {
	return &linter.Rule{
		ID: "XP101", Name: "one-meta", Severity: linter.SeverityError,
		Doc: `Not exactly one meta object

A package holds exactly one meta object: a Provider, Configuration or
Function of group meta.pkg.crossplane.io (or the group given with
WithMetaGroup). Each meta object beyond the first is reported, naming the
others; a package with none is reported at its first line, unless some of
its documents failed to parse (one of them may be the meta object: XP001
and XP002 report those). A meta object of another group than the expected
one is reported too. Crossplane refuses a package without exactly one
meta object (crossplane v2.1.0, internal/xpkg, OneMeta, the first check of
every package linter, and Builder.Build's own check), at crossplane xpkg
build and at install.`,
		Bad:  "apiVersion: meta.pkg.crossplane.io/v1\nkind: Provider\nmetadata:\n  name: provider-example\n---\napiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata:\n  name: configuration-example\n",
		Good: "apiVersion: meta.pkg.crossplane.io/v1\nkind: Provider\nmetadata:\n  name: provider-example\n",
		Run: func(p *linter.Pass) error {
			pkg := p.Package
			if len(pkg.Meta) == 0 {
				if len(pkg.Objects) > 0 && len(pkg.Errors) == 0 {
					p.Reportf(nil, nil, "the package holds no meta object: it needs exactly one Provider, Configuration or Function of group %s", metaGroup(p))
				}
				return nil
			}
			want := metaGroup(p)
			for o := range each(p, pkg.Meta) {
				if g := o.GroupVersionKind().Group; g != want {
					p.Reportf(o, []string{"apiVersion"}, "meta object %s %s has group %s, want %s", token(o.Kind), quote(o.ObjectMeta.Name), token(g), want)
				}
			}
			if len(pkg.Meta) == 1 {
				return nil
			}
			// Each message names at most safetext.MaxListItems others: naming them
			// all would make the output quadratic in meta objects.
			refs := make([]string, 0, min(len(pkg.Meta), safetext.MaxListItems+1))
			for _, q := range pkg.Meta[:min(len(pkg.Meta), safetext.MaxListItems+1)] {
				refs = append(refs, metaRef(q))
			}
			for i, o := range pkg.Meta[1:] {
				if canceled(p) {
					return p.Context().Err()
				}
				var others []string
				for j, r := range refs {
					if j != i+1 && len(others) < safetext.MaxListItems {
						others = append(others, r)
					}
				}
				list := strings.Join(others, "; ")
				if more := len(pkg.Meta) - 1 - len(others); more > 0 {
					list += fmt.Sprintf(" and %d more", more)
				}
				p.Reportf(o, nil, "meta object %d of %d, %s %s: a package holds exactly one (others: %s)",
					i+2, len(pkg.Meta), token(o.Kind), quote(o.ObjectMeta.Name), list)
			}
			return nil
		},
	}
}

// allowedKinds returns the group/version/kinds a package of kind k may
// hold, from DESIGN.md.
func allowedKinds(k meta.Kind) []schema.GroupVersionKind {
	gvk := func(g, v, k string) schema.GroupVersionKind {
		return schema.GroupVersionKind{Group: g, Version: v, Kind: k}
	}
	switch k {
	case meta.KindProvider:
		return []schema.GroupVersionKind{
			gvk(groupK8sExtensions, "v1", kindCRD),
			gvk(groupK8sExtensions, "v1beta1", kindCRD),
			gvk(groupXPExtensions, "v1alpha1", "ManagedResourceDefinition"),
			gvk(groupAdmission, "v1", "ValidatingWebhookConfiguration"),
			gvk(groupAdmission, "v1", "MutatingWebhookConfiguration"),
		}
	case meta.KindConfiguration:
		return []schema.GroupVersionKind{
			gvk(groupXPExtensions, "v1", kindXRD),
			gvk(groupXPExtensions, "v2", kindXRD),
			gvk(groupXPExtensions, "v1", kindComposition),
			gvk(groupXPExtensions, "v1alpha1", "ManagedResourceActivationPolicy"),
			gvk(groupOps, "v1alpha1", "Operation"),
			gvk(groupOps, "v1alpha1", "CronOperation"),
			gvk(groupOps, "v1alpha1", "WatchOperation"),
		}
	case meta.KindFunction:
		return []schema.GroupVersionKind{
			gvk(groupK8sExtensions, "v1", kindCRD),
			gvk(groupK8sExtensions, "v1beta1", kindCRD),
		}
	}
	return nil
}

func ruleAllowedKind() *linter.Rule {
	return &linter.Rule{
		ID: "XP102", Name: "allowed-kind", Severity: linter.SeverityError,
		Doc: `An object kind this package type may not hold

Crossplane installs only certain kinds from each type of package and
rejects a package holding any other:

- Provider: CustomResourceDefinition (apiextensions.k8s.io/v1, v1beta1),
  ManagedResourceDefinition (apiextensions.crossplane.io/v1alpha1),
  ValidatingWebhookConfiguration and MutatingWebhookConfiguration
  (admissionregistration.k8s.io/v1).
- Configuration: CompositeResourceDefinition (apiextensions.crossplane.io/v1,
  v2), Composition (apiextensions.crossplane.io/v1),
  ManagedResourceActivationPolicy (apiextensions.crossplane.io/v1alpha1),
  Operation, CronOperation and WatchOperation (ops.crossplane.io/v1alpha1).
- Function: CustomResourceDefinition (the schemas of its inputs).

A kind outside all of these lists cannot even be decoded: Crossplane's
package parser knows only these kinds and fails on any other (crossplane
v2.1.0, internal/xpkg, BuildObjectScheme; crossplane-runtime v2.1.0,
pkg/parser, PackageParser.Parse). A Provider or Configuration package
holding a known kind outside its own list is refused by the per-object
checks of its linter (internal/xpkg, NewProviderLinter,
NewConfigurationLinter), at crossplane xpkg build and at install. Both are
errors.

A Function package holding a kind the parser knows but that is not a CRD
(an XRD, a Composition, a CompositionRevision, a v1alpha1 Usage, a *List
kind) depends on the target:

- before v2.2 (1.20, 2.0, 2.1): Crossplane's Function linter checks no
  object kind (crossplane v2.1.0, internal/xpkg/lint.go,
  NewFunctionLinter), so the package is accepted and the object installed:
  the rule only warns;
- from v2.2: the Function linter refuses anything but a CRD (crossplane
  commit 82d565bf3, internal/xpkg/lint.go NewFunctionLinter gains IsCRD,
  "object is not a CRD"; from v2.3 crossplane-runtime pkg/xpkg/lint.go),
  at crossplane xpkg build and at install: an error.

Under a Crossplane 1.x target (WithCrossplaneVersion v1.x) the kinds that
came with Crossplane v2 (ManagedResourceDefinition,
ManagedResourceActivationPolicy, apiextensions.crossplane.io/v2 XRDs, and
the ops.crossplane.io kinds) are errors too: Crossplane 1.x's object scheme
does not know them, so its parser refuses the package (crossplane v1.20.0,
internal/xpkg, BuildObjectScheme).

The xpkg specification lists an "AdmissionWebhookConfiguration" kind for
Providers: no such Kubernetes kind exists, and this rule does not accept
it; use ValidatingWebhookConfiguration. The rule does not run when the
package's kind is unknown (see XP101).`,
		Bad:  "apiVersion: meta.pkg.crossplane.io/v1\nkind: Provider\nmetadata:\n  name: provider-example\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: controller\n",
		Good: "apiVersion: meta.pkg.crossplane.io/v1\nkind: Provider\nmetadata:\n  name: provider-example\n---\n" + exampleCRD,
		Run: func(p *linter.Pass) error {
			allowed := allowedKinds(p.Kind)
			if allowed == nil {
				return nil
			}
			r := release(p)
			for o := range each(p, p.Package.Objects) {
				gvk := o.GroupVersionKind()
				if !r.V2Kinds && schemeKnows(gvk, true) && !schemeKnows(gvk, false) {
					p.Reportf(o, []string{"apiVersion"}, "%s %s came with Crossplane v2: Crossplane %s cannot decode it and refuses the package", token(o.APIVersion), token(gvk.Kind), targetName(p))
					continue
				}
				if slices.Contains(allowed, gvk) {
					continue
				}
				if p.Kind == meta.KindFunction && schemeKnows(gvk, r.V2Kinds) {
					if r.FunctionCRDOnly {
						p.Reportf(o, []string{"kind"}, "kind %s (%s) in a Function package: from Crossplane v2.2 a Function package holds only CRDs, and Crossplane %s refuses the package (\"object is not a CRD\")", token(gvk.Kind), token(o.APIVersion), targetName(p))
						continue
					}
					p.ReportSeverityf(linter.SeverityWarning, o, []string{"kind"}, "kind %s (%s) does not belong in a Function package, which holds only the CRDs of its inputs: Crossplane %s installs it anyway (from v2.2 it refuses the package)", token(gvk.Kind), token(o.APIVersion), targetName(p))
					continue
				}
				var versions []string
				for _, a := range allowed {
					if a.Group == gvk.Group && a.Kind == gvk.Kind {
						versions = append(versions, a.GroupVersion().String())
					}
				}
				if len(versions) > 0 {
					p.Reportf(o, []string{"apiVersion"}, "apiVersion %s of kind %s is not allowed in a %s package (want %s)",
						token(o.APIVersion), token(gvk.Kind), p.Kind, strings.Join(versions, " or "))
					continue
				}
				p.Reportf(o, []string{"kind"}, "kind %s (%s) is not allowed in a %s package", token(gvk.Kind), token(o.APIVersion), p.Kind)
			}
			return nil
		},
	}
}

// schemeKnows reports whether Crossplane's package parser decodes an
// object of the kind (its object scheme registers it, with its List):
// apiextensions.k8s.io v1 and v1beta1 CRDs, admissionregistration.k8s.io/v1,
// and apiextensions.crossplane.io/v1 (XRD, Composition, CompositionRevision)
// at every release (crossplane v1.20.0, internal/xpkg/scheme.go
// BuildObjectScheme); with v2Kinds (from v2.0, crossplane v2.1.0
// internal/xpkg/scheme.go) also apiextensions.crossplane.io/v1alpha1
// (Usage, ManagedResourceDefinition, ManagedResourceActivationPolicy), v2
// (XRD) and ops.crossplane.io/v1alpha1 (Operation, CronOperation,
// WatchOperation).
func schemeKnows(gvk schema.GroupVersionKind, v2Kinds bool) bool {
	kind := strings.TrimSuffix(gvk.Kind, "List")
	in := func(kinds ...string) bool { return slices.Contains(kinds, kind) }
	switch gvk.GroupVersion().String() {
	case groupK8sExtensions + "/v1", groupK8sExtensions + "/v1beta1":
		return in(kindCRD)
	case groupAdmission + "/v1":
		return in("ValidatingWebhookConfiguration", "MutatingWebhookConfiguration", "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding")
	case groupXPExtensions + "/v1":
		return in(kindXRD, kindComposition, "CompositionRevision")
	case groupXPExtensions + "/v1alpha1":
		return v2Kinds && in("Usage", "ManagedResourceDefinition", "ManagedResourceActivationPolicy")
	case groupXPExtensions + "/v2":
		return v2Kinds && in(kindXRD)
	case groupOps + "/v1alpha1":
		return v2Kinds && in("Operation", "CronOperation", "WatchOperation")
	}
	return false
}

// currentMetaVersion is the meta version every kind has.
const currentMetaVersion = "v1"

func ruleDeprecatedMetaVersion() *linter.Rule {
	return &linter.Rule{
		ID: "XP103", Name: "deprecated-meta-version", Severity: linter.SeverityWarning,
		Doc: `Meta v1alpha1/v1beta1 where v1 exists

Provider and Configuration meta objects were first v1alpha1, Function meta
objects v1beta1. Crossplane still reads them, but v1 has long replaced
them: use meta.pkg.crossplane.io/v1.`,
		Bad:  "apiVersion: meta.pkg.crossplane.io/v1alpha1\nkind: Provider\nmetadata:\n  name: provider-example\n",
		Good: "apiVersion: meta.pkg.crossplane.io/v1\nkind: Provider\nmetadata:\n  name: provider-example\n",
		Run: func(p *linter.Pass) error {
			want := metaGroup(p)
			for o := range each(p, p.Package.Meta) {
				gv := o.GroupVersionKind()
				if gv.Group != want || gv.Version == currentMetaVersion {
					continue
				}
				if !slices.Contains(meta.Kinds(), meta.Kind(gv.Kind)) {
					continue
				}
				to := gv.Group + "/" + currentMetaVersion
				fix := replaceValueFix(o, "set apiVersion to "+to, to, "apiVersion")
				p.ReportFixf(fix, o, []string{"apiVersion"}, "%s is deprecated for %s: use %s/%s", o.APIVersion, gv.Kind, gv.Group, currentMetaVersion)
			}
			return nil
		},
	}
}

func isCRD(o *parser.Object) bool {
	g := o.GroupVersionKind()
	return g.Group == groupK8sExtensions && g.Kind == kindCRD
}

func isXRD(o *parser.Object) bool {
	g := o.GroupVersionKind()
	return g.Group == groupXPExtensions && g.Kind == kindXRD
}

func ruleDeprecatedCRDVersion() *linter.Rule {
	return &linter.Rule{
		ID: "XP104", Name: "deprecated-crd-version", Severity: linter.SeverityError, Regrade: installRegrade,
		Doc: `An apiextensions.k8s.io/v1beta1 CRD

Kubernetes stopped serving apiextensions.k8s.io/v1beta1 in 1.22, older
than any Kubernetes Crossplane supports. Crossplane creates the package's
objects as they are written, converting nothing (crossplane v2.1.0,
internal/controller/pkg/revision, APIEstablisher), so creating a v1beta1
CRD fails ("no matches for kind CustomResourceDefinition in version
apiextensions.k8s.io/v1beta1") and the package never installs. Write it as
apiextensions.k8s.io/v1, which also requires a structural schema for every
version (see XP403).

In a Function package the verdict follows the target: up to v2.1 the
package manager installs a Function's objects like any other package's,
so this is an error; from v2.2 it installs none of them (crossplane commit
36f59bef1, internal/controller/pkg/revision/establisher.go
FilteringEstablisher, given no kinds for a Function), so it cannot break
the install and is reported as a warning.`,
		Bad:  "apiVersion: apiextensions.k8s.io/v1beta1\nkind: CustomResourceDefinition\nmetadata:\n  name: buckets.example.org\n" + crdBody,
		Good: exampleCRD,
		Run: func(p *linter.Pass) error {
			for o := range each(p, p.Package.Objects) {
				if isCRD(o) && o.GroupVersionKind().Version == "v1beta1" {
					p.Reportf(o, []string{"apiVersion"}, "%s CustomResourceDefinition is deprecated (removed in Kubernetes 1.22): use %s/v1", o.APIVersion, groupK8sExtensions)
				}
			}
			return nil
		},
	}
}

func ruleDuplicateObject() *linter.Rule {
	return &linter.Rule{
		ID: "XP105", Name: "duplicate-object", Severity: linter.SeverityError, Regrade: installRegrade,
		Doc: `Two objects with the same group, kind and name, and different content

Crossplane installs each object of a package under its name, every object
at once (crossplane v2.1.0, internal/controller/pkg/revision,
APIEstablisher.validate and APIEstablisher.establish run one goroutine per
object). Two objects of the same group and kind (whatever their versions)
with the same name (and namespace) are written to one cluster object: when
their content differs, which copy the cluster ends with is a matter of
timing, and it may change at every reconcile, so the package cannot work
as written: an error, naming the fields that differ. Identical copies are
harmless once installed (the first install may fail once with "already
exists" and succeed when retried): a warning. The second and later copies
are reported, naming the first. Objects without a name are left alone.

In a Function package the verdict follows the target: up to v2.1 the
package manager installs a Function's objects like any other package's,
so this is an error; from v2.2 it installs none of them (crossplane commit
36f59bef1, internal/controller/pkg/revision/establisher.go
FilteringEstablisher, given no kinds for a Function), so it cannot break
the install and is reported as a warning.`,
		Bad:  exampleCRD + "---\n" + strings.Replace(exampleCRD, "scope: Cluster", "scope: Namespaced", 1),
		Good: exampleCRD + "---\n" + crdExample("tables", "Table"),
		Run: func(p *linter.Pass) error {
			type key struct{ group, kind, ns, name string }
			// The first object of each key, decoded once however many
			// copies follow it (decoding it again for each would cost its
			// size once per copy).
			first := make(map[key]*parser.Object, len(p.Package.Objects))
			decoded := map[key]map[string]any{} // the content of the first objects that have copies
			for o := range each(p, p.Package.Objects) {
				if o.ObjectMeta.Name == "" {
					continue
				}
				k := key{o.GroupVersionKind().Group, o.Kind, o.ObjectMeta.Namespace, o.ObjectMeta.Name}
				f, ok := first[k]
				if !ok {
					first[k] = o
					continue
				}
				content, ok := decoded[k]
				if !ok {
					u, err := f.Unstructured()
					if err != nil {
						return err
					}
					content = u.Object
					decoded[k] = content
				}
				diff, err := objectDiff(content, o)
				if err != nil {
					return err
				}
				if len(diff) == 0 {
					p.ReportSeverityf(linter.SeverityWarning, o, []string{"metadata", "name"}, "duplicate %s %s, identical to the first at %s: remove one copy", token(o.Kind), quote(o.ObjectMeta.Name), f.Pos)
					continue
				}
				p.Reportf(o, []string{"metadata", "name"}, "duplicate %s %s differs from the first at %s in %s: the cluster ends with either copy", token(o.Kind), quote(o.ObjectMeta.Name), f.Pos, strings.Join(diff, ", "))
			}
			return nil
		},
	}
}

// maxDiffFields bounds the fields objectDiff names.
const maxDiffFields = 5

// objectDiff returns the paths (FieldPath form) where the content a of a
// first object and object b differ, at most maxDiffFields of them and then
// "...", in key order; nil when they are equal. Its cost is linear in b's
// size, however large a is (see diffValues).
func objectDiff(a map[string]any, b *parser.Object) ([]string, error) {
	ub, err := b.Unstructured()
	if err != nil {
		return nil, err
	}
	var out []string
	diffValues(a, ub.Object, nil, &out)
	return out, nil
}

func diffValues(a, b any, path []string, out *[]string) {
	if len(*out) > maxDiffFields {
		return
	}
	add := func() {
		if len(*out) == maxDiffFields {
			*out = append(*out, "...")
			return
		}
		p := parser.FieldPath(path...)
		if p == "" {
			p = "the whole object"
		}
		*out = append(*out, p)
	}
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			add()
			return
		}
		if len(x) > 2*len(y)+maxDiffFields {
			// Naming the keys y lacks would cost x's size for each copy
			// compared with it: say the whole mapping differs.
			add()
			return
		}
		keys := make([]string, 0, len(x)+len(y))
		for k := range x {
			keys = append(keys, k)
		}
		for k := range y {
			if _, ok := x[k]; !ok {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			diffValues(x[k], y[k], join(path, k), out)
		}
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			add()
			return
		}
		for i := range x {
			diffValues(x[i], y[i], join(path, strconv.Itoa(i)), out)
		}
	default:
		if !reflect.DeepEqual(a, b) {
			add()
		}
	}
}

// metaGroup is the API group meta objects are expected to have: the one
// the package was parsed with (parser.WithMetaGroup), or meta.DefaultGroup
// for a package built by hand.
func metaGroup(p *linter.Pass) string {
	if g := p.Package.MetaGroup; g != "" {
		return g
	}
	return meta.DefaultGroup
}
