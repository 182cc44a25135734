package rules

import (
	"github.com/xpkgkit/xpkgkit/linter"

	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// objectNameGroups are the API groups of the objects Crossplane's package
// manager creates from a package: CRDs, Crossplane's own kinds, webhook
// configurations. Objects of other groups are XP102's: the package is
// refused before any is created.
var objectNameGroups = []string{groupK8sExtensions, groupXPExtensions, groupOps, groupAdmission}

func ruleObjectName() *linter.Rule {
	return &linter.Rule{
		ID: "XP412", Name: "object-name", Severity: linter.SeverityError, Regrade: installRegrade,
		Doc: `An object of the package has no valid metadata.name

The package manager creates each object of the package under the name it
carries (crossplane v2.4.0, internal/controller/pkg/revision/establisher.go,
APIEstablisher: it reads each object by its name, then creates it), and
the API server accepts an object only under a name its kind allows. For
every kind a package installs, CustomResourceDefinitions, Crossplane's own
kinds (custom resources: k8s.io/apiextensions-apiserver v0.37.2,
pkg/registry/customresource/validator.go, ValidateObjectMetaDeclaratively
with NameIsDNSSubdomain) and webhook configurations (k8s.io/kubernetes
pkg/apis/admissionregistration/validation, ValidateObjectMeta with
NameIsDNSSubdomain), that is a lowercase RFC 1123 subdomain: lower-case
letters, digits, '-' and '.', starting and ending with a letter or digit,
at most 253 characters (k8s.io/apimachinery pkg/api/validation,
NameIsDNSSubdomain). An object with no name is refused too ("name or
generateName is required"; Crossplane cannot even read it by name). The
install fails, at every target. A CustomResourceDefinition's and an XRD's
name must also be <plural>.<group> (XP401, XP404).`,
		Bad:  "apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata:\n  name: example\n---\napiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata:\n  name: XNetwork_AWS  # upper case and '_'\nspec:\n  compositeTypeRef:\n    apiVersion: example.org/v1\n    kind: XNetwork\n  mode: Pipeline\n  pipeline:\n  - step: run\n    functionRef:\n      name: function-run\n",
		Good: "apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata:\n  name: example\n---\napiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata:\n  name: xnetwork-aws\nspec:\n  compositeTypeRef:\n    apiVersion: example.org/v1\n    kind: XNetwork\n  mode: Pipeline\n  pipeline:\n  - step: run\n    functionRef:\n      name: function-run\n",
		Run: func(p *linter.Pass) error {
			for o := range each(p, p.Package.Objects) {
				g := o.GroupVersionKind().Group
				found := false
				for _, want := range objectNameGroups {
					found = found || g == want
				}
				if !found {
					continue
				}
				name := o.ObjectMeta.Name
				if name == "" {
					p.Reportf(o, []string{"metadata"}, "%s has no metadata.name: the package manager creates it under its name, and the API server refuses an object without one", token(o.Kind))
					continue
				}
				if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
					p.Reportf(o, []string{"metadata", "name"}, "%s name %s is not a lowercase RFC 1123 subdomain, so the API server refuses the object when the package manager creates it: %s", token(o.Kind), quote(name), strings.Join(errs, "; "))
				}
			}
			return nil
		},
	}
}
