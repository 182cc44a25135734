package rules

import (
	"github.com/xpkgkit/xpkgkit/linter"

	"fmt"
	"strconv"
	"strings"

	"github.com/xpkgkit/xpkgkit/meta"
	"github.com/xpkgkit/xpkgkit/parser"
)

// namesMatch reports a definition whose name is not <plural>.<group>.
func namesMatch(p *linter.Pass, o *parser.Object, what string) {
	m := outline(o)
	plural, _ := str(m, "spec", "names", "plural")
	group, _ := str(m, "spec", "group")
	if plural == "" || group == "" {
		p.Reportf(o, []string{"spec"}, "%s %s has no spec.names.plural or no spec.group", what, quote(o.ObjectMeta.Name))
		return
	}
	if want := plural + "." + group; o.ObjectMeta.Name != want {
		p.Reportf(o, []string{"metadata", "name"}, "%s name %s must be <plural>.<group>: %s", what, quote(o.ObjectMeta.Name), quote(want))
	}
}

const crdHead = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n"

// crdExample returns a complete CRD of group example.org for the rules'
// examples, with one served storage version that has a schema.
func crdExample(plural, kind string) string {
	return crdHead + "metadata:\n  name: " + plural + ".example.org\n" + crdSpec(plural, kind)
}

func crdSpec(plural, kind string) string {
	return "spec:\n  group: example.org\n  names:\n    kind: " + kind + "\n    plural: " + plural + "\n  scope: Cluster\n" +
		"  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        type: object\n"
}

// exampleCRD is a complete CRD, and crdBody its spec.
var (
	exampleCRD = crdExample("buckets", "Bucket")
	crdBody    = crdSpec("buckets", "Bucket")
)

func ruleCRDName() *linter.Rule {
	return &linter.Rule{
		ID: "XP401", Name: "crd-name", Severity: linter.SeverityError, Regrade: installRegrade,
		Doc: `CRD metadata.name is not <plural>.<group>

Kubernetes accepts a CustomResourceDefinition only under the name made of
its plural resource name and its group, spec.names.plural + "." +
spec.group (k8s.io/apiextensions-apiserver, pkg/apis/apiextensions/validation,
ValidateCustomResourceDefinition). Crossplane creates the package's CRDs
through the API server, first as a dry run (crossplane v2.1.0,
internal/controller/pkg/revision, APIEstablisher), so the package never
installs.

In a Function package the verdict follows the target: up to v2.1 the
package manager installs a Function's objects like any other package's,
so this is an error; from v2.2 it installs none of them (crossplane commit
36f59bef1, internal/controller/pkg/revision/establisher.go
FilteringEstablisher, given no kinds for a Function), so it cannot break
the install and is reported as a warning.`,
		Bad:  crdHead + "metadata:\n  name: bucket.example.org\n" + crdBody,
		Good: exampleCRD,
		Run: func(p *linter.Pass) error {
			for o := range each(p, p.Package.Objects) {
				if isCRD(o) {
					namesMatch(p, o, "CustomResourceDefinition")
				}
			}
			return nil
		},
	}
}

// crdVersion is one entry of a definition's spec.versions.
type defVersion struct {
	index         int
	name          string
	served        bool
	storage       bool
	referenceable bool
	entry         map[string]any
}

func versionsOf(m map[string]any) []defVersion {
	var vs []defVersion
	for i, e := range list(m, "spec", "versions") {
		em, _ := e.(map[string]any)
		name, _ := str(em, "name")
		vs = append(vs, defVersion{
			index: i, name: name, entry: em,
			served: boolean(em, "served"), storage: boolean(em, "storage"), referenceable: boolean(em, "referenceable"),
		})
	}
	return vs
}

func versionPath(i int, elems ...string) []string {
	return append([]string{"spec", "versions", strconv.Itoa(i)}, elems...)
}

// repeatedVersions reports version names given twice.
func repeatedVersions(p *linter.Pass, o *parser.Object, vs []defVersion) {
	seen := map[string]int{}
	for _, v := range vs {
		if canceled(p) {
			return
		}
		if v.name == "" {
			p.Reportf(o, versionPath(v.index), "version %d has no name", v.index)
			continue
		}
		if i, ok := seen[v.name]; ok {
			p.Reportf(o, versionPath(v.index, "name"), "version %s is repeated (first as version %d)", quote(v.name), i)
			continue
		}
		seen[v.name] = v.index
	}
}

// quotedFlags explains the versions whose boolean field key holds a string
// instead ("true" written with quotes): "" when none does.
func quotedFlags(vs []defVersion, key string) string {
	var which []string
	example := ""
	for _, v := range vs {
		s, ok := v.entry[key].(string)
		if !ok {
			continue
		}
		which = append(which, quote(v.name))
		if example == "" {
			example = s
		}
	}
	if len(which) == 0 {
		return ""
	}
	if len(which) > 3 {
		which = append(which[:3], "...")
	}
	want := "true"
	if strings.EqualFold(strings.TrimSpace(example), "false") {
		want = "false"
	}
	return fmt.Sprintf(": %s is the string %s in version %s, and a string is not a boolean: write %s: %s, without quotes",
		key, quote(example), strings.Join(which, ", "), key, want)
}

func names(vs []defVersion, keep func(defVersion) bool) []string {
	var out []string
	for _, v := range vs {
		if keep(v) {
			out = append(out, v.name)
		}
	}
	return out
}

func ruleCRDVersions() *linter.Rule {
	return &linter.Rule{
		ID: "XP402", Name: "crd-versions", Severity: linter.SeverityError, Regrade: installRegrade,
		Doc: `CRD without exactly one storage version, with no served version, or with a repeated version name

Kubernetes stores a custom resource at exactly one version and names each
version once: the API server rejects a CRD with no storage version, several,
or a repeated version name (k8s.io/apiextensions-apiserver,
pkg/apis/apiextensions/validation, ValidateCustomResourceDefinitionSpec:
"must have exactly one version marked as storage version", "must contain
unique version names"), so Crossplane's APIEstablisher cannot create it and
the package never installs. A CRD that serves no version can never be used:
the package cannot work as written. The API server itself accepts one
(ValidateCustomResourceDefinitionSpec asks nothing of served), so in a
Function package, whose CRDs only type the input of a pipeline step and
are never served as objects, it is a warning at every target (crossplane
v2.1.0 installs such a package: internal/xpkg/lint.go NewFunctionLinter
checks no object, and APIEstablisher creates the CRD). An apiextensions.k8s.io/v1beta1 CRD may
instead give a single spec.version, which is then both served and stored.

served and storage are booleans: the strings "true" and "false" are not,
and the rule says so rather than counting them as false.

In a Function package the verdict follows the target: up to v2.1 the
package manager installs a Function's objects like any other package's,
so this is an error; from v2.2 it installs none of them (crossplane commit
36f59bef1, internal/controller/pkg/revision/establisher.go
FilteringEstablisher, given no kinds for a Function), so it cannot break
the install and is reported as a warning.`,
		Bad:  exampleCRD + "  - name: v2\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        type: object\n",
		Good: exampleCRD + "  - name: v2\n    served: true\n    storage: false\n    schema:\n      openAPIV3Schema:\n        type: object\n",
		Run: func(p *linter.Pass) error {
			for o := range each(p, p.Package.Objects) {
				if !isCRD(o) {
					continue
				}
				m := outline(o)
				vs := versionsOf(m)
				if len(vs) == 0 {
					if v, _ := str(m, "spec", "version"); v != "" && o.GroupVersionKind().Version == "v1beta1" {
						continue
					}
					p.Reportf(o, []string{"spec", "versions"}, "CustomResourceDefinition %s has no versions", quote(o.ObjectMeta.Name))
					continue
				}
				repeatedVersions(p, o, vs)
				stored := names(vs, func(v defVersion) bool { return v.storage })
				switch {
				case len(stored) == 0:
					if q := quotedFlags(vs, "storage"); q != "" {
						p.Reportf(o, []string{"spec", "versions"}, "CustomResourceDefinition %s has no storage version%s", quote(o.ObjectMeta.Name), q)
					} else {
						p.Reportf(o, []string{"spec", "versions"}, "CustomResourceDefinition %s has no storage version: mark exactly one storage: true", quote(o.ObjectMeta.Name))
					}
				case len(stored) > 1:
					p.Reportf(o, []string{"spec", "versions"}, "CustomResourceDefinition %s has %d storage versions (%s): mark exactly one", quote(o.ObjectMeta.Name), len(stored), joinValues(stored, quote))
				}
				if len(names(vs, func(v defVersion) bool { return v.served })) == 0 {
					if p.Kind == meta.KindFunction {
						// The API server accepts a CRD that serves no version,
						// and nothing in the cluster creates a Function's
						// input: it only types the input of a pipeline step.
						p.ReportSeverityf(linter.SeverityWarning, o, []string{"spec", "versions"}, "CustomResourceDefinition %s serves no version%s: Crossplane accepts it (a Function's input is never created as an object), but tools that read the schema may not", quote(o.ObjectMeta.Name), quotedFlags(vs, "served"))
					} else {
						p.Reportf(o, []string{"spec", "versions"}, "CustomResourceDefinition %s serves no version%s", quote(o.ObjectMeta.Name), quotedFlags(vs, "served"))
					}
				}
			}
			return nil
		},
	}
}

func ruleCRDSchema() *linter.Rule {
	return &linter.Rule{
		ID: "XP403", Name: "crd-schema", Severity: linter.SeverityError, Regrade: installRegrade,
		Doc: `A v1 CRD version with no openAPIV3Schema

An apiextensions.k8s.io/v1 CRD needs a structural schema for every
version, at spec.versions[].schema.openAPIV3Schema: the API server rejects
a v1 CRD version without one ("schemas are required";
k8s.io/apiextensions-apiserver, pkg/apis/apiextensions/validation,
ValidateCustomResourceDefinition), so Crossplane's APIEstablisher cannot
create it and the package never installs.

In a Function package the verdict follows the target: up to v2.1 the
package manager installs a Function's objects like any other package's,
so this is an error; from v2.2 it installs none of them (crossplane commit
36f59bef1, internal/controller/pkg/revision/establisher.go
FilteringEstablisher, given no kinds for a Function), so it cannot break
the install and is reported as a warning.`,
		Bad:  strings.TrimSuffix(exampleCRD, "    schema:\n      openAPIV3Schema:\n        type: object\n"),
		Good: exampleCRD,
		Run: func(p *linter.Pass) error {
			for o := range each(p, p.Package.Objects) {
				if !isCRD(o) || o.GroupVersionKind().Version != "v1" {
					continue
				}
				for _, v := range versionsOf(outline(o)) {
					if canceled(p) {
						break
					}
					if v.entry == nil {
						continue
					}
					if object(v.entry, "schema", "openAPIV3Schema") == nil {
						p.Reportf(o, versionPath(v.index, "schema", "openAPIV3Schema"), "version %s of CustomResourceDefinition %s has no schema.openAPIV3Schema", quote(v.name), quote(o.ObjectMeta.Name))
					}
				}
			}
			return nil
		},
	}
}

const xrdHead = "apiVersion: apiextensions.crossplane.io/v1\nkind: CompositeResourceDefinition\n"

// xrdBody is the spec of a complete XRD for the rules' examples, defining
// example.org XNetwork at v1alpha1, and exampleXRD the XRD.
const (
	xrdBody = "spec:\n  group: example.org\n  names:\n    kind: XNetwork\n    plural: xnetworks\n" +
		"  versions:\n  - name: v1alpha1\n    served: true\n    referenceable: true\n    schema:\n      openAPIV3Schema:\n        type: object\n"
	exampleXRD = xrdHead + "metadata:\n  name: xnetworks.example.org\n" + xrdBody
)

func ruleXRDName() *linter.Rule {
	return &linter.Rule{
		ID: "XP404", Name: "xrd-name", Severity: linter.SeverityError,
		Doc: `XRD metadata.name is not <plural>.<group>

Crossplane gives the CRD it generates for a CompositeResourceDefinition the
XRD's own name (crossplane v2.1.0, internal/xcrd, ForCompositeResource), and
the API server accepts a CRD only under the name spec.names.plural + "." +
spec.group (k8s.io/apiextensions-apiserver, pkg/apis/apiextensions/validation,
ValidateCustomResourceDefinition): the XRD's API is never served, and the
package cannot work as written.`,
		Bad:  xrdHead + "metadata:\n  name: xnetwork.example.org\n" + xrdBody,
		Good: exampleXRD,
		Run: func(p *linter.Pass) error {
			for o := range each(p, p.Package.Objects) {
				if isXRD(o) {
					namesMatch(p, o, "CompositeResourceDefinition")
				}
			}
			return nil
		},
	}
}

func ruleXRDVersions() *linter.Rule {
	return &linter.Rule{
		ID: "XP405", Name: "xrd-versions", Severity: linter.SeverityError,
		Doc: `XRD without exactly one referenceable version, or with no served version

Compositions refer to a CompositeResourceDefinition at its one
referenceable version. The CRD Crossplane generates for an XRD stores the
resource at its referenceable versions (crossplane v2.1.0, internal/xcrd,
genCrdVersion: storage is referenceable), so an XRD with none or several
yields a CRD the API server rejects ("must have exactly one version marked
as storage version"), as it rejects repeated version names; an XRD that
serves no version offers no API. Either way the package cannot work as
written.

served and referenceable are booleans: the strings "true" and "false" are
not, and the rule says so rather than counting them as false.`,
		Bad:  strings.Replace(exampleXRD, "referenceable: true", "referenceable: false", 1),
		Good: exampleXRD,
		Run: func(p *linter.Pass) error {
			for o := range each(p, p.Package.Objects) {
				if !isXRD(o) {
					continue
				}
				vs := versionsOf(outline(o))
				if len(vs) == 0 {
					p.Reportf(o, []string{"spec", "versions"}, "CompositeResourceDefinition %s has no versions", quote(o.ObjectMeta.Name))
					continue
				}
				repeatedVersions(p, o, vs)
				ref := names(vs, func(v defVersion) bool { return v.referenceable })
				switch {
				case len(ref) == 0:
					if q := quotedFlags(vs, "referenceable"); q != "" {
						p.Reportf(o, []string{"spec", "versions"}, "CompositeResourceDefinition %s has no referenceable version%s", quote(o.ObjectMeta.Name), q)
					} else {
						p.Reportf(o, []string{"spec", "versions"}, "CompositeResourceDefinition %s has no referenceable version: mark exactly one referenceable: true", quote(o.ObjectMeta.Name))
					}
				case len(ref) > 1:
					p.Reportf(o, []string{"spec", "versions"}, "CompositeResourceDefinition %s has %d referenceable versions (%s): mark exactly one", quote(o.ObjectMeta.Name), len(ref), joinValues(ref, quote))
				}
				if len(names(vs, func(v defVersion) bool { return v.served })) == 0 {
					p.Reportf(o, []string{"spec", "versions"}, "CompositeResourceDefinition %s serves no version%s", quote(o.ObjectMeta.Name), quotedFlags(vs, "served"))
				}
			}
			return nil
		},
	}
}

func ruleXRDClaimNames() *linter.Rule {
	return &linter.Rule{
		ID: "XP406", Name: "xrd-claim-names", Severity: linter.SeverityError,
		Doc: `XRD claimNames equal to its names, or claims where the scope allows none

A CompositeResourceDefinition with spec.claimNames defines two resources
in the same group: the composite (spec.names) and the claim. They need
distinct kinds and plurals; by convention the composite's kind is the
claim's prefixed with X (XPostgreSQLInstance and PostgreSQLInstance).
Crossplane cannot create both CRDs when they collide (crossplane v2.1.0,
internal/xcrd, ForCompositeResourceClaim; the API server refuses a second
CRD for the same resource), so the package cannot work as written.

Only apiextensions.crossplane.io/v1 XRDs of scope LegacyCluster (the
default of v1) have claims and connection secrets. The API server rejects
an XRD that gives spec.claimNames or spec.connectionSecretKeys otherwise,
by the validation rules of Crossplane's XRD CRD (crossplane v2.1.0, v2.2.4
and v2.3.4 alike,
cluster/crds/apiextensions.crossplane.io_compositeresourcedefinitions.yaml),
so Crossplane cannot create the XRD:

  - apiextensions.crossplane.io/v2, any scope: "Claims aren't supported in
    apiextensions.crossplane.io/v2" ('!has(self.claimNames)'; v2's scope is
    Namespaced, the default, or Cluster: LegacyCluster is not among them);
  - apiextensions.crossplane.io/v1 of scope Namespaced or Cluster, from
    Crossplane v2.0 (1.x has no scope field): "Only LegacyCluster composite
    resources can offer claims" ('self.scope == 'LegacyCluster' ||
    !has(self.claimNames)').

The same holds for connectionSecretKeys. Where linter/apiserver's
XP422 runs (xpkg-lint), it leaves these to this rule: one finding each.`,
		Bad:  xrdHead + "metadata:\n  name: networks.example.org\n" + strings.ReplaceAll(xrdBody, "xnetworks", "networks") + "  claimNames:\n    kind: Network\n    plural: networks\n",
		Good: exampleXRD + "  claimNames:\n    kind: Network\n    plural: networks\n",
		Run: func(p *linter.Pass) error {
			for o := range each(p, p.Package.Objects) {
				if !isXRD(o) {
					continue
				}
				m := outline(o)
				for _, f := range []string{"claimNames", "connectionSecretKeys"} {
					if v, ok := lookup(m, "spec", f); !ok || v == nil {
						continue
					}
					what := map[string]string{"claimNames": "claims", "connectionSecretKeys": "connection secrets"}[f]
					switch scope, _ := str(m, "spec", "scope"); {
					case o.GroupVersionKind().Version == "v2":
						p.Reportf(o, []string{"spec", f}, "an apiextensions.crossplane.io/v2 CompositeResourceDefinition cannot have %s: v2 composite resources have no %s (only v1 XRDs of scope LegacyCluster do), and the API server rejects the XRD", f, what)
					case o.GroupVersionKind().Version == "v1" && release(p).V2Kinds && scope != "" && scope != "LegacyCluster":
						p.Reportf(o, []string{"spec", f}, "a CompositeResourceDefinition of scope %s cannot have %s: only LegacyCluster composite resources offer %s, and the API server rejects the XRD", token(scope), f, what)
					}
				}
				if object(m, "spec", "claimNames") == nil {
					continue
				}
				for _, f := range []string{"kind", "plural"} {
					n, _ := str(m, "spec", "names", f)
					c, _ := str(m, "spec", "claimNames", f)
					if c != "" && strings.EqualFold(c, n) {
						p.Reportf(o, []string{"spec", "claimNames", f}, "claimNames.%s %s equals names.%s: the claim and the composite resource need different %ss", f, quote(c), f, f)
					}
				}
			}
			return nil
		},
	}
}

// xrdKey is the group and kind of a composite type.
type xrdKey struct{ group, kind string }

// xrdType is what a Composition may refer to: the versions the package's
// XRDs of one group and kind define, in order, and as a set.
type xrdType struct {
	versions []string
	has      map[string]bool
}

func ruleCompositionTypeRef() *linter.Rule {
	return &linter.Rule{
		ID: "XP407", Name: "composition-type-ref", Severity: linter.SeverityWarning, Kinds: []meta.Kind{meta.KindConfiguration},
		Doc: `A Composition's compositeTypeRef matches no XRD version in this package

A Composition composes resources for the composite type named by
spec.compositeTypeRef (apiVersion and kind). When an XRD of this package
defines that group and kind but no version of that name, the Composition
is never selected: the rule reports it, naming the XRD's versions. When no
XRD of this package defines the group and kind, the type may come from a
dependency: the rule reports it only when the package declares no
Configuration dependency (a Configuration is the only kind of package that
defines XRDs).`,
		Bad:  metaHead + "---\n" + exampleXRD + "---\n" + "apiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata:\n  name: xnetworks-aws\nspec:\n  compositeTypeRef:\n    apiVersion: example.org/v1\n    kind: XNetwork  # the XRD defines only v1alpha1\n",
		Good: metaHead + "---\n" + exampleXRD + "---\n" + "apiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata:\n  name: xnetworks-aws\nspec:\n  compositeTypeRef:\n    apiVersion: example.org/v1alpha1\n    kind: XNetwork\n",
		Run: func(p *linter.Pass) error {
			// The XRDs by group and kind, their versions merged: one map
			// lookup per Composition, however many XRDs and versions
			// there are (a pair loop is quadratic).
			xrds := map[xrdKey]*xrdType{}
			for o := range each(p, p.Package.Objects) {
				if !isXRD(o) {
					continue
				}
				m := outline(o)
				var k xrdKey
				k.group, _ = str(m, "spec", "group")
				k.kind, _ = str(m, "spec", "names", "kind")
				t := xrds[k]
				if t == nil {
					t = &xrdType{has: map[string]bool{}}
					xrds[k] = t
				}
				for _, v := range versionsOf(m) {
					if !t.has[v.name] {
						t.has[v.name] = true
						t.versions = append(t.versions, v.name)
					}
				}
			}
			configDeps := configurationDependencies(p)
			for o := range each(p, p.Package.Objects) {
				g := o.GroupVersionKind()
				if g.Group != groupXPExtensions || g.Kind != kindComposition {
					continue
				}
				m := outline(o)
				apiVersion, _ := str(m, "spec", "compositeTypeRef", "apiVersion")
				kind, _ := str(m, "spec", "compositeTypeRef", "kind")
				if apiVersion == "" || kind == "" {
					p.Reportf(o, []string{"spec", "compositeTypeRef"}, "Composition %s has no compositeTypeRef apiVersion and kind", quote(o.ObjectMeta.Name))
					continue
				}
				group, version, _ := strings.Cut(apiVersion, "/")
				t := xrds[xrdKey{group, kind}]
				if t != nil && !t.has[version] {
					p.Reportf(o, []string{"spec", "compositeTypeRef", "apiVersion"}, "Composition %s refers to %s %s, but the XRD of this package defines versions %s",
						quote(o.ObjectMeta.Name), token(apiVersion), token(kind), joinValues(t.versions, token))
				}
				if t == nil && !configDeps {
					p.Reportf(o, []string{"spec", "compositeTypeRef"}, "Composition %s refers to %s %s, which no XRD of this package defines (and no Configuration dependency could)", quote(o.ObjectMeta.Name), token(apiVersion), token(kind))
				}
			}
			return nil
		},
	}
}

// configurationDependencies reports whether the package depends on a
// Configuration, or on a package of unstated kind.
func configurationDependencies(p *linter.Pass) bool {
	_, deps, err := dependencies(p)
	if err != nil {
		return true
	}
	for _, d := range deps {
		if canceled(p) {
			return true
		}
		if d.entry == nil {
			continue
		}
		if _, ok := d.entry["configuration"]; ok {
			return true
		}
		if k, ok := d.entry["kind"]; ok && fmt.Sprint(k) == "Configuration" {
			return true
		}
	}
	return false
}

func ruleCompositionMode() *linter.Rule {
	return &linter.Rule{
		ID: "XP410", Name: "composition-mode", Severity: linter.SeverityError, Kinds: []meta.Kind{meta.KindConfiguration},
		Doc: `A Composition in Resources mode under Crossplane v2

Crossplane v2 composes only through function pipelines: its Composition
type allows mode Pipeline alone (crossplane v2.1.0, apis/apiextensions/v1,
CompositionSpec.Mode, an enum of Pipeline), so the API server rejects a
Composition with mode: Resources when Crossplane creates it, and the
package never installs. A Composition that gives spec.resources without a
mode defaults to Pipeline in v2 and its resources are dropped (v2 has no
such field): it composes nothing, so the package cannot work as written.
Both are errors under a v2 target (the default). Crossplane 1.x still runs
Resources mode, so under a 1.x target (WithCrossplaneVersion v1.x) the rule
reports nothing. Move the resources into a function-patch-and-transform
step of a pipeline.`,
		Bad:  metaHead + "---\napiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata:\n  name: xnetworks-aws\nspec:\n  compositeTypeRef:\n    apiVersion: example.org/v1alpha1\n    kind: XNetwork\n  mode: Resources\n  resources:\n  - name: vpc\n    base:\n      apiVersion: ec2.aws.upbound.io/v1beta1\n      kind: VPC\n",
		Good: metaHead + "---\napiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata:\n  name: xnetworks-aws\nspec:\n  compositeTypeRef:\n    apiVersion: example.org/v1alpha1\n    kind: XNetwork\n  mode: Pipeline\n  pipeline:\n  - step: patch-and-transform\n    functionRef:\n      name: function-patch-and-transform\n",
		Run: func(p *linter.Pass) error {
			if release(p).ResourcesMode {
				return nil
			}
			// The fix's pipeline calls function-patch-and-transform: a
			// package that does not depend on it cannot work once fixed.
			// So the fix comes with a second one, of the meta file, that
			// adds the dependency, reported once at the meta object; when
			// the meta file cannot be edited so, no fix is offered at all
			// and the finding stays.
			var (
				depChecked, depNeeded bool
				depFix                *linter.SuggestedFix
				meta                  *parser.Object
				fixed                 []string
			)
			fixFor := func(o *parser.Object) (*linter.SuggestedFix, string) {
				fix := pipelineFix(p, o)
				if fix == nil {
					return nil, ""
				}
				if !depChecked {
					depChecked = true
					meta, depNeeded, depFix = pntDependency(p)
				}
				if depNeeded && depFix == nil {
					return nil, "; no fix offered: the pipeline would call function-patch-and-transform, which spec.dependsOn does not name and cannot be edited to add"
				}
				fixed = append(fixed, o.ObjectMeta.Name)
				return fix, ""
			}
			for o := range each(p, p.Package.Objects) {
				g := o.GroupVersionKind()
				if g.Group != groupXPExtensions || g.Kind != kindComposition {
					continue
				}
				m := outline(o)
				mode, hasMode := str(m, "spec", "mode")
				_, hasResources := lookup(m, "spec", "resources")
				switch {
				case hasMode && mode != "Pipeline":
					fix, why := fixFor(o)
					p.ReportFixf(fix, o, []string{"spec", "mode"}, "Composition %s has mode %s: Crossplane v2 allows only mode Pipeline, and the API server rejects the Composition; compose through a function pipeline (or lint with a Crossplane 1.x target)%s", quote(o.ObjectMeta.Name), quote(mode), why)
				case !hasMode && hasResources:
					fix, why := fixFor(o)
					p.ReportFixf(fix, o, []string{"spec", "resources"}, "Composition %s gives spec.resources without a mode: Crossplane v2 defaults to mode Pipeline and drops spec.resources, so the Composition composes nothing; compose through a function pipeline (or lint with a Crossplane 1.x target)%s", quote(o.ObjectMeta.Name), why)
				}
			}
			if len(fixed) > 0 && depNeeded && depFix != nil && meta != nil {
				p.ReportFixf(depFix, meta, []string{"spec"}, "the function pipeline the fix writes for Composition %s calls function-patch-and-transform, which spec.dependsOn does not name: without it the package cannot work once fixed; the fix adds it (%s %s)",
					joinValues(fixed, quote), token(pntPackage), token(pntVersion))
			}
			return nil
		},
	}
}

// definitionKind is a kind a definition asks the API server for.
type definitionKind struct {
	obj  *parser.Object
	path []string
}

func ruleDefinitionKind() *linter.Rule {
	return &linter.Rule{
		ID: "XP411", Name: "definition-kind-conflict", Severity: linter.SeverityError, Regrade: installRegrade,
		Doc: `Two definitions of the same kind in the same group

Each CustomResourceDefinition, CompositeResourceDefinition (through the
CRDs Crossplane generates from it: the composite's, and the claim's from
spec.claimNames) and ManagedResourceDefinition (through its CRD) asks the
API server for a kind in its group. Two definitions with different names
asking for the same kind in the same group conflict: the API server's
naming controller accepts the kind for the first CRD only and refuses the
second's names ("\"Kind\" is already in use", condition NamesAccepted
false; k8s.io/apiextensions-apiserver,
pkg/controller/status/naming_controller.go,
NamingConditionController.calculateNamesAndConditions), so the second never
becomes established and serves nothing, and Crossplane waits for it
forever (crossplane v2.1.0, internal/controller/pkg/revision,
APIEstablisher; the XRD controller waits for its CRD). Which of the two
wins depends on timing: the package cannot work as written, an error. The
later definition in package order is reported, naming the first. The same
name twice is XP105's business (a CRD and an MRD of the same name stand
for one CRD).`,
		Bad:  "apiVersion: meta.pkg.crossplane.io/v1\nkind: Provider\nmetadata:\n  name: provider-example\n---\n" + exampleCRD + "---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: buckets2.example.org\nspec:\n  group: example.org\n  names:\n    kind: Bucket\n    plural: buckets2\n",
		Good: "apiVersion: meta.pkg.crossplane.io/v1\nkind: Provider\nmetadata:\n  name: provider-example\n---\n" + exampleCRD,
		Run: func(p *linter.Pass) error {
			type gk struct{ group, kind string }
			first := map[gk]definitionKind{}
			claim := func(o *parser.Object, group, kind string, path []string) {
				if group == "" || kind == "" {
					return
				}
				k := gk{group, kind}
				prev, ok := first[k]
				if !ok {
					first[k] = definitionKind{o, path}
					return
				}
				if prev.obj.ObjectMeta.Name == o.ObjectMeta.Name {
					// The same definition twice (XP105), or a CRD and the
					// MRD of the same name, which stand for one CRD.
					return
				}
				p.Reportf(o, path, "%s %s asks for kind %s in group %s, which %s %s at %s already defines: the API server refuses the second's names, so one of them is never established",
					token(o.Kind), quote(o.ObjectMeta.Name), token(kind), token(group), token(prev.obj.Kind), quote(prev.obj.ObjectMeta.Name), prev.obj.Pos)
			}
			for o := range each(p, p.Package.Objects) {
				g := o.GroupVersionKind()
				isDef := g.Group == groupK8sExtensions && g.Kind == kindCRD ||
					g.Group == groupXPExtensions && (g.Kind == kindXRD || g.Kind == "ManagedResourceDefinition")
				if !isDef {
					continue
				}
				m := outline(o)
				group, _ := str(m, "spec", "group")
				kind, _ := str(m, "spec", "names", "kind")
				claim(o, group, kind, []string{"spec", "names", "kind"})
				if g.Kind == kindXRD {
					ck, _ := str(m, "spec", "claimNames", "kind")
					claim(o, group, ck, []string{"spec", "claimNames", "kind"})
				}
			}
			return nil
		},
	}
}
