package linter

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/xpkgkit/xpkgkit/meta"
	"github.com/xpkgkit/xpkgkit/parser"
)

// namesMatch reports a definition whose name is not <plural>.<group>.
func namesMatch(p *Pass, o *parser.Object, what string) {
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

func ruleCRDName() *Rule {
	return &Rule{
		ID: "XP401", Name: "crd-name", Severity: SeverityError,
		Doc: `CRD metadata.name is not <plural>.<group>

Kubernetes accepts a CustomResourceDefinition only under the name made of
its plural resource name and its group, spec.names.plural + "." +
spec.group.`,
		Bad:  crdHead + "metadata:\n  name: bucket.example.org\nspec:\n  group: example.org\n  names:\n    kind: Bucket\n    plural: buckets\n",
		Good: crdHead + "metadata:\n  name: buckets.example.org\nspec:\n  group: example.org\n  names:\n    kind: Bucket\n    plural: buckets\n",
		Run: func(p *Pass) error {
			for o := range p.each(p.Package.Objects) {
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
func repeatedVersions(p *Pass, o *parser.Object, vs []defVersion) {
	seen := map[string]int{}
	for _, v := range vs {
		if p.canceled() {
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

func names(vs []defVersion, keep func(defVersion) bool) []string {
	var out []string
	for _, v := range vs {
		if keep(v) {
			out = append(out, v.name)
		}
	}
	return out
}

func ruleCRDVersions() *Rule {
	return &Rule{
		ID: "XP402", Name: "crd-versions", Severity: SeverityError,
		Doc: `CRD without exactly one storage version, with no served version, or with a repeated version name

Kubernetes stores a custom resource at exactly one version, serves at
least one, and names each version once. An apiextensions.k8s.io/v1beta1
CRD may instead give a single spec.version, which is then both served and
stored.`,
		Bad:  crdHead + "metadata:\n  name: buckets.example.org\nspec:\n  versions:\n  - name: v1\n    served: true\n    storage: true\n  - name: v2\n    served: true\n    storage: true\n",
		Good: crdHead + "metadata:\n  name: buckets.example.org\nspec:\n  versions:\n  - name: v1\n    served: true\n    storage: false\n  - name: v2\n    served: true\n    storage: true\n",
		Run: func(p *Pass) error {
			for o := range p.each(p.Package.Objects) {
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
					p.Reportf(o, []string{"spec", "versions"}, "CustomResourceDefinition %s has no storage version: mark exactly one storage: true", quote(o.ObjectMeta.Name))
				case len(stored) > 1:
					p.Reportf(o, []string{"spec", "versions"}, "CustomResourceDefinition %s has %d storage versions (%s): mark exactly one", quote(o.ObjectMeta.Name), len(stored), joinValues(stored, quote))
				}
				if len(names(vs, func(v defVersion) bool { return v.served })) == 0 {
					p.Reportf(o, []string{"spec", "versions"}, "CustomResourceDefinition %s serves no version", quote(o.ObjectMeta.Name))
				}
			}
			return nil
		},
	}
}

func ruleCRDSchema() *Rule {
	return &Rule{
		ID: "XP403", Name: "crd-schema", Severity: SeverityWarning,
		Doc: `A v1 CRD version with no openAPIV3Schema

An apiextensions.k8s.io/v1 CRD needs a structural schema for every
version, at spec.versions[].schema.openAPIV3Schema; without one the API
server rejects the CRD and users get no validation or documentation of the
resource's fields.`,
		Bad:  crdHead + "metadata:\n  name: buckets.example.org\nspec:\n  versions:\n  - name: v1\n    served: true\n    storage: true\n",
		Good: crdHead + "metadata:\n  name: buckets.example.org\nspec:\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        type: object\n",
		Run: func(p *Pass) error {
			for o := range p.each(p.Package.Objects) {
				if !isCRD(o) || o.GroupVersionKind().Version != "v1" {
					continue
				}
				for _, v := range versionsOf(outline(o)) {
					if p.canceled() {
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

func ruleXRDName() *Rule {
	return &Rule{
		ID: "XP404", Name: "xrd-name", Severity: SeverityError,
		Doc: `XRD metadata.name is not <plural>.<group>

Crossplane names the CRD it generates for a CompositeResourceDefinition
after the XRD, and rejects an XRD whose name is not spec.names.plural + "."
+ spec.group.`,
		Bad:  xrdHead + "metadata:\n  name: xnetwork.example.org\nspec:\n  group: example.org\n  names:\n    kind: XNetwork\n    plural: xnetworks\n",
		Good: xrdHead + "metadata:\n  name: xnetworks.example.org\nspec:\n  group: example.org\n  names:\n    kind: XNetwork\n    plural: xnetworks\n",
		Run: func(p *Pass) error {
			for o := range p.each(p.Package.Objects) {
				if isXRD(o) {
					namesMatch(p, o, "CompositeResourceDefinition")
				}
			}
			return nil
		},
	}
}

func ruleXRDVersions() *Rule {
	return &Rule{
		ID: "XP405", Name: "xrd-versions", Severity: SeverityError,
		Doc: `XRD without exactly one referenceable version, or with no served version

Compositions refer to a CompositeResourceDefinition at its one
referenceable version, and Crossplane rejects an XRD with none or several;
an XRD that serves no version offers no API. Version names must also be
unique.`,
		Bad:  xrdHead + "metadata:\n  name: xnetworks.example.org\nspec:\n  versions:\n  - name: v1alpha1\n    served: true\n    referenceable: false\n",
		Good: xrdHead + "metadata:\n  name: xnetworks.example.org\nspec:\n  versions:\n  - name: v1alpha1\n    served: true\n    referenceable: true\n",
		Run: func(p *Pass) error {
			for o := range p.each(p.Package.Objects) {
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
					p.Reportf(o, []string{"spec", "versions"}, "CompositeResourceDefinition %s has no referenceable version: mark exactly one referenceable: true", quote(o.ObjectMeta.Name))
				case len(ref) > 1:
					p.Reportf(o, []string{"spec", "versions"}, "CompositeResourceDefinition %s has %d referenceable versions (%s): mark exactly one", quote(o.ObjectMeta.Name), len(ref), joinValues(ref, quote))
				}
				if len(names(vs, func(v defVersion) bool { return v.served })) == 0 {
					p.Reportf(o, []string{"spec", "versions"}, "CompositeResourceDefinition %s serves no version", quote(o.ObjectMeta.Name))
				}
			}
			return nil
		},
	}
}

func ruleXRDClaimNames() *Rule {
	return &Rule{
		ID: "XP406", Name: "xrd-claim-names", Severity: SeverityError,
		Doc: `XRD claimNames equal to its names

A CompositeResourceDefinition with spec.claimNames defines two resources
in the same group: the composite (spec.names) and the claim. They need
distinct kinds and plurals; by convention the composite's kind is the
claim's prefixed with X (XPostgreSQLInstance and PostgreSQLInstance).
Crossplane cannot create both CRDs when they collide. Only
apiextensions.crossplane.io/v1 XRDs, and v2 ones of scope LegacyCluster,
have claims.`,
		Bad:  xrdHead + "metadata:\n  name: networks.example.org\nspec:\n  group: example.org\n  names:\n    kind: Network\n    plural: networks\n  claimNames:\n    kind: Network\n    plural: networks\n",
		Good: xrdHead + "metadata:\n  name: xnetworks.example.org\nspec:\n  group: example.org\n  names:\n    kind: XNetwork\n    plural: xnetworks\n  claimNames:\n    kind: Network\n    plural: networks\n",
		Run: func(p *Pass) error {
			for o := range p.each(p.Package.Objects) {
				if !isXRD(o) {
					continue
				}
				m := outline(o)
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

func ruleCompositionTypeRef() *Rule {
	return &Rule{
		ID: "XP407", Name: "composition-type-ref", Severity: SeverityWarning, Kinds: []meta.Kind{meta.KindConfiguration},
		Doc: `A Composition's compositeTypeRef matches no XRD version in this package

A Composition composes resources for the composite type named by
spec.compositeTypeRef (apiVersion and kind). When an XRD of this package
defines that group and kind but no version of that name, the Composition
is never selected: the rule reports it, naming the XRD's versions. When no
XRD of this package defines the group and kind, the type may come from a
dependency: the rule reports it only when the package declares no
Configuration dependency (a Configuration is the only kind of package that
defines XRDs).`,
		Bad:  "apiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata:\n  name: xnetworks-aws\nspec:\n  compositeTypeRef:\n    apiVersion: example.org/v1\n    kind: XNetwork  # the XRD defines only v1alpha1\n",
		Good: "apiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata:\n  name: xnetworks-aws\nspec:\n  compositeTypeRef:\n    apiVersion: example.org/v1alpha1\n    kind: XNetwork\n",
		Run: func(p *Pass) error {
			// The XRDs by group and kind, their versions merged: one map
			// lookup per Composition, however many XRDs and versions
			// there are (a pair loop is quadratic).
			xrds := map[xrdKey]*xrdType{}
			for o := range p.each(p.Package.Objects) {
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
			for o := range p.each(p.Package.Objects) {
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
func configurationDependencies(p *Pass) bool {
	_, deps, err := dependencies(p)
	if err != nil {
		return true
	}
	for _, d := range deps {
		if p.canceled() {
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
