package rules

import (
	"github.com/xpkgkit/xpkgkit/linter"

	"fmt"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"unicode"

	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/xpkgkit/xpkgkit/internal/ref"
	"github.com/xpkgkit/xpkgkit/linter/rules/internal/spdx"
	"github.com/xpkgkit/xpkgkit/meta"
	"github.com/xpkgkit/xpkgkit/parser"
)

// metaContent returns the package's single meta object and its decoded
// content; nil when there is not exactly one.
func metaContent(p *linter.Pass) (*parser.Object, map[string]any, error) {
	o := p.Meta()
	if o == nil {
		return nil, nil, nil
	}
	m, err := metaMap(p)
	if err != nil {
		return nil, nil, fmt.Errorf("decoding the meta object: %w", err)
	}
	return o, m, nil
}

const metaHead = "apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata:\n  name: example\n"

func ruleMetaName() *linter.Rule {
	return &linter.Rule{
		ID: "XP201", Name: "meta-name", Severity: linter.SeverityWarning,
		Doc: `Meta metadata.name missing or not a DNS-1123 subdomain

Crossplane never uses the meta object's name: the package's revisions and
objects in the cluster are named after the Provider, Configuration or
Function object that installs the package, and crossplane xpkg build
neither reads nor checks the name. A missing name, or one that is not a
valid Kubernetes object name (a DNS-1123 subdomain: lower-case letters,
digits, '-' and '.', at most 253 characters), is still likely a mistake,
and tools that index packages by it may trip on it.`,
		Bad:  "apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata:\n  name: My_Configuration\n",
		Good: "apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata:\n  name: my-configuration\n",
		Run: func(p *linter.Pass) error {
			for o := range each(p, p.Package.Meta) {
				name := o.ObjectMeta.Name
				if name == "" {
					p.Reportf(o, []string{"metadata", "name"}, "the meta object has no metadata.name")
					continue
				}
				if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
					p.Reportf(o, []string{"metadata", "name"}, "metadata.name %s is not a DNS-1123 subdomain: %s", quote(name), strings.Join(errs, "; "))
				}
			}
			return nil
		},
	}
}

// crossplaneConstraint returns spec.crossplane.version and whether it is
// set; shorthand is true when spec.crossplane is a bare string (the form of
// the package format v2 design's examples), which Crossplane refuses.
func crossplaneConstraint(m map[string]any) (v string, ok, shorthand bool) {
	if s, ok := str(m, "spec", "crossplane"); ok {
		return s, true, true
	}
	v, ok = str(m, "spec", "crossplane", "version")
	return v, ok, false
}

var crossplaneVersionPath = []string{"spec", "crossplane", "version"}

func ruleCrossplaneConstraint() *linter.Rule {
	return &linter.Rule{
		ID: "XP202", Name: "crossplane-constraint", Severity: linter.SeverityError,
		Doc: `spec.crossplane.version missing or not a valid semver constraint

When a package gives spec.crossplane, Crossplane checks its own version
against spec.crossplane.version, a constraint such as ">=v1.14.0" or
">=v1.14.0, <v3". Which grammar reads it depends on the target:

- before v2.3 (1.20, 2.0, 2.1, 2.2): Masterminds/semver v1.5.0 (crossplane
  go.mod): comparisons are joined with a comma only, so ">=v1.14.0 <v3"
  (two comparisons joined by a space) does not parse, and a pre-release
  with a leading zero (v1.0.0-rc.01) does;
- from v2.3: Masterminds/semver/v3 v3.4.0 (crossplane commit 3c17d47ee,
  crossplane-runtime commit c2cbdbec; crossplane-runtime v2.3.0,
  pkg/xpkg/lint.go PackageValidSemver): ">=v1.14.0 <v3" is valid, and
  v1.0.0-rc.01 is not;
- from v2.4: semver v3.5.0 (crossplane-runtime v2.4.0 go.mod), which also
  refuses a constraint over 512 bytes or of more than 32 '||' groups.

A constraint that does not parse, and a
spec.crossplane with no version at all (crossplane: {}, or a misspelt key
such as versions:, which Crossplane drops), make both crossplane xpkg
build and the package manager refuse the package with "package version
constraints are poorly formatted" (crossplane v2.1.0, internal/xpkg,
PackageValidSemver, run by NewProviderLinter, NewConfigurationLinter and
NewFunctionLinter from Builder.Build and the revision reconciler; from
v2.3 the same function in crossplane-runtime pkg/xpkg/lint.go).

The rule also reports spec.crossplane written as a bare string
(crossplane: v0.13.0, as in the package format v2 design's examples):
Crossplane's meta types have only the object form, so decoding the meta
object fails (crossplane-runtime v2.1.0, pkg/parser, PackageParser.Parse).`,
		Bad:  metaHead + "spec:\n  crossplane:\n    version: \"from v1.14\"\n",
		Good: metaHead + "spec:\n  crossplane:\n    version: \">=v1.14.0\"\n",
		Run: func(p *linter.Pass) error {
			o, m, err := metaContent(p)
			if o == nil || err != nil {
				return err
			}
			c, present := lookup(m, "spec", "crossplane")
			if !present || c == nil {
				return nil // absent or null: no constraint
			}
			v, ok, shorthand := crossplaneConstraint(m)
			if shorthand {
				p.Reportf(o, []string{"spec", "crossplane"}, "spec.crossplane is the bare string %s: Crossplane wants an object, crossplane: {version: %s}", quote(v), quote(v))
			}
			if !ok {
				if cm, isMap := c.(map[string]any); isMap {
					if _, has := cm["version"]; !has {
						msg := "spec.crossplane has no version: Crossplane refuses the package (\"package version constraints are poorly formatted\"); give version: \">=v1.14.0\" or remove spec.crossplane"
						if sug := suggestField(firstKey(cm), map[string]reflect.Type{"version": nil}); len(cm) > 0 && sug != "" {
							msg = fmt.Sprintf("spec.crossplane has no version (%s is not a field: did you mean version?): Crossplane refuses the package (\"package version constraints are poorly formatted\")", quote(firstKey(cm)))
						}
						p.Reportf(o, []string{"spec", "crossplane"}, "%s", msg)
					}
				}
				return nil
			}
			if strings.TrimSpace(v) == "" {
				p.Reportf(o, crossplaneVersionPath, "spec.crossplane.version is empty: Crossplane refuses the package (\"package version constraints are poorly formatted\"); give a constraint such as \">=v1.14.0\"")
				return nil
			}
			if err := checkConstraint(release(p), v); err != nil {
				p.Reportf(o, crossplaneVersionPath, "spec.crossplane.version %s: Crossplane %s cannot read it: %s", quote(v), targetName(p), reason(err))
			}
			return nil
		},
	}
}

// firstKey returns the least key of m, "" when m is empty.
func firstKey(m map[string]any) string {
	first := ""
	for k := range m {
		if first == "" || k < first {
			first = k
		}
	}
	return first
}

func ruleCrossplaneCompatible() *linter.Rule {
	return &linter.Rule{
		ID: "XP203", Name: "crossplane-compatible", Severity: linter.SeverityError,
		Doc: `The target Crossplane version is outside the constraint

The target is the version given (WithCrossplaneVersion, the CLI's
--crossplane-version), else the release the default line was read from
(v2.4.0 for v2.4, RULES.md "By target"): a default target is a target.
Crossplane of that version would refuse to install
the package, because its spec.crossplane.version constraint excludes it:
the revision reconciler checks the running version against the constraint
before it installs anything (crossplane v2.1.0, internal/xpkg,
PackageCrossplaneCompatible, called from the package revision Reconciler
unless the package sets ignoreCrossplaneConstraints; internal/version,
Versioner.InConstraints). The constraint is read and checked by the
target's engine (see XP202). Before v2.3, Masterminds/semver v1.5.0: each
comparison on its own refuses a pre-release version such as v2.0.0-rc.1
unless its own bound has a pre-release part, so ">=v1.14.0-0, <v3" admits
no pre-release, and "v2.3" means exactly 2.3.0. From v2.3, semver v3
(crossplane commit 3c17d47ee): a pre-release bound anywhere in a group
admits pre-releases, "v2.3" means any 2.3.x, and ">v2" admits no 2.x
(v2.1.0 satisfies ">v2" under v1.5.0, not under v3).`,
		Bad:  metaHead + "spec:\n  crossplane:\n    version: \"<v2.0.0\"  # linted with --crossplane-version v2.0.0\n",
		Good: metaHead + "spec:\n  crossplane:\n    version: \">=v1.14.0\"\n",
		Run: func(p *linter.Pass) error {
			o, m, err := metaContent(p)
			if o == nil || err != nil {
				return err
			}
			v, ok, shorthand := crossplaneConstraint(m)
			if !ok || shorthand {
				return nil // a bare string is no constraint Crossplane reads: XP202's
			}
			c, err := release(p).ParseConstraint(v)
			if err != nil {
				return nil // XP202 reports it
			}
			tv := targetVersion(p)
			target, err := release(p).ParseVersion(tv)
			if err != nil {
				return fmt.Errorf("target version %q: %w", tv, err)
			}
			if !c.Check(target) {
				if p.CrossplaneVersion == "" {
					p.Reportf(o, crossplaneVersionPath, "Crossplane %s (the default target; set --crossplane-version for another) does not satisfy the package's constraint %s", tv, quote(v))
				} else {
					p.Reportf(o, crossplaneVersionPath, "Crossplane %s does not satisfy the package's constraint %s", tv, quote(v))
				}
			}
			return nil
		},
	}
}

// annotationPath returns the field path of a meta annotation.
func annotationPath(key string) []string { return []string{"metadata", "annotations", key} }

func ruleLicense() *linter.Rule {
	return &linter.Rule{
		ID: "XP204", Name: "license", Severity: linter.SeverityWarning,
		Doc: `meta.crossplane.io/license missing or not an SPDX license

Registries and users read the package's license from this annotation; the
xpkg specification asks for an SPDX license identifier. The rule accepts an
identifier ("Apache-2.0") or an SPDX license expression ("MIT OR
Apache-2.0", "GPL-2.0-or-later WITH Classpath-exception-2.0",
"LicenseRef-Proprietary"), checked against the SPDX license list embedded
in this module, and reports a deprecated identifier (such as GPL-2.0) too.`,
		Bad:  "apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata:\n  name: example\n  annotations:\n    meta.crossplane.io/license: Apache License 2.0\n",
		Good: "apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata:\n  name: example\n  annotations:\n    meta.crossplane.io/license: Apache-2.0\n",
		Run: func(p *linter.Pass) error {
			o := p.Meta()
			if o == nil {
				return nil
			}
			v, ok := o.ObjectMeta.Annotations[meta.AnnotationLicense]
			if !ok {
				p.Reportf(o, []string{"metadata", "annotations"}, "the %s annotation is missing: give the package's SPDX license identifier, such as Apache-2.0", meta.AnnotationLicense)
				return nil
			}
			dep, err := spdx.Check(strings.TrimSpace(v))
			if err != nil {
				p.Reportf(o, annotationPath(meta.AnnotationLicense), "%s %s is not an SPDX license expression: %s", meta.AnnotationLicense, quote(v), reason(err))
				return nil
			}
			for _, d := range dep {
				p.Reportf(o, annotationPath(meta.AnnotationLicense), "%s uses the deprecated SPDX identifier %s (see https://spdx.org/licenses/)", meta.AnnotationLicense, d)
			}
			return nil
		},
	}
}

// checkSourceURL accepts an absolute http(s) URL, or the scheme-less
// host/path form Crossplane's own packages use (github.com/org/repo).
func checkSourceURL(s string) error {
	if s == "" || strings.IndexFunc(s, unicode.IsSpace) >= 0 {
		return fmt.Errorf("it is empty or holds white space")
	}
	full := s
	if !strings.Contains(s, "://") {
		full = "https://" + s
	}
	u, err := url.Parse(full)
	if err != nil {
		return err
	}
	if u.Scheme != "https" && u.Scheme != "http" && u.Scheme != "git" && u.Scheme != "ssh" {
		return fmt.Errorf("scheme %q is not http, https, git or ssh", u.Scheme)
	}
	if h := u.Hostname(); h == "" || !strings.Contains(h, ".") && h != "localhost" {
		return fmt.Errorf("it names no host")
	}
	return nil
}

func ruleSourceURL() *linter.Rule {
	return &linter.Rule{
		ID: "XP205", Name: "source-url", Severity: linter.SeverityWarning,
		Doc: `meta.crossplane.io/source missing or not a URL

The annotation says where the package's source lives. The rule accepts an
absolute http, https, git or ssh URL, and the scheme-less host/path form
that Crossplane's own packages use (github.com/crossplane-contrib/provider-helm),
which registries turn into a link; it reports a missing annotation or a
value naming no host.`,
		Bad:  "apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata:\n  name: example\n  annotations:\n    meta.crossplane.io/source: my laptop\n",
		Good: "apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata:\n  name: example\n  annotations:\n    meta.crossplane.io/source: https://github.com/example/configuration-example\n",
		Run: func(p *linter.Pass) error {
			o := p.Meta()
			if o == nil {
				return nil
			}
			v, ok := o.ObjectMeta.Annotations[meta.AnnotationSource]
			if !ok {
				p.Reportf(o, []string{"metadata", "annotations"}, "the %s annotation is missing: give the URL of the package's source", meta.AnnotationSource)
				return nil
			}
			if err := checkSourceURL(strings.TrimSpace(v)); err != nil {
				p.Reportf(o, annotationPath(meta.AnnotationSource), "%s %s is not a URL: %s", meta.AnnotationSource, quote(v), reason(err))
			}
			return nil
		},
	}
}

// abbreviations end in a dot without ending a sentence.
var abbreviations = []string{"e.g.", "i.e.", "etc.", "vs.", "approx.", "incl.", "Inc.", "Ltd.", "Corp.", "Mr.", "Ms.", "Dr.", "St.", "No."}

// sentences counts the sentences of s: a blank line ends a paragraph, and
// inside one a sentence ends at '.', '!' or '?' followed by white space and
// an upper-case letter or a digit.
func sentences(s string) int {
	n := 0
	var para []string
	flush := func() {
		if len(para) > 0 {
			n += sentencesIn(strings.Join(para, " "))
			para = para[:0]
		}
	}
	for _, line := range strings.Split(s, "\n") {
		if strings.TrimSpace(line) == "" {
			flush()
			continue
		}
		para = append(para, strings.TrimSpace(line))
	}
	flush()
	return n
}

func sentencesIn(s string) int {
	n := 1
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '.' && c != '!' && c != '?' {
			continue
		}
		j := i + 1
		for j < len(s) && (s[j] == '"' || s[j] == '\'' || s[j] == ')') {
			j++
		}
		k := j
		for k < len(s) && (s[k] == ' ' || s[k] == '\t') {
			k++
		}
		if k == j || k >= len(s) || !(unicode.IsUpper(rune(s[k])) || '0' <= s[k] && s[k] <= '9') {
			continue
		}
		if c == '.' && endsWithAbbreviation(s[:i+1]) {
			continue
		}
		n++
		i = k - 1
	}
	return n
}

func endsWithAbbreviation(s string) bool {
	for _, a := range abbreviations {
		if strings.HasSuffix(s, a) && (len(s) == len(a) || !unicode.IsLetter(rune(s[len(s)-len(a)-1]))) {
			return true
		}
	}
	return false
}

func ruleDescription() *linter.Rule {
	return &linter.Rule{
		ID: "XP206", Name: "description", Severity: linter.SeverityInfo,
		Doc: `meta.crossplane.io/description missing or longer than one sentence

Registries show this annotation as the package's summary; the xpkg
specification asks for one sentence. Longer text belongs in
meta.crossplane.io/readme. Sentences are counted at '.', '!' or '?'
followed by a capital letter or a digit (common abbreviations such as
"e.g." excepted) and at blank lines.`,
		Bad:  "apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata:\n  name: example\n  annotations:\n    meta.crossplane.io/description: Builds clusters. Also databases. And networks.\n",
		Good: "apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata:\n  name: example\n  annotations:\n    meta.crossplane.io/description: Builds clusters, databases and networks on AWS.\n",
		Run: func(p *linter.Pass) error {
			o := p.Meta()
			if o == nil {
				return nil
			}
			v, ok := o.ObjectMeta.Annotations[meta.AnnotationDescription]
			if !ok || strings.TrimSpace(v) == "" {
				p.Reportf(o, []string{"metadata", "annotations"}, "the %s annotation is missing: describe the package in one sentence", meta.AnnotationDescription)
				return nil
			}
			if n := sentences(v); n > 1 {
				p.Reportf(o, annotationPath(meta.AnnotationDescription), "%s has %d sentences: keep it to one and move the rest to %s", meta.AnnotationDescription, n, meta.AnnotationReadme)
			}
			return nil
		},
	}
}

// annotationMaintainer is meta.crossplane.io/maintainer.
const annotationMaintainer = meta.AnnotationMaintainer

func ruleMaintainer() *linter.Rule {
	return &linter.Rule{
		ID: "XP207", Name: "maintainer", Severity: linter.SeverityInfo,
		Doc: `meta.crossplane.io/maintainer missing

Registries show this annotation to say who to contact about the package,
for example "Example Maintainers <maintainers@example.org>".`,
		Bad:  "apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata:\n  name: example\n",
		Good: "apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata:\n  name: example\n  annotations:\n    meta.crossplane.io/maintainer: Example Maintainers <maintainers@example.org>\n",
		Run: func(p *linter.Pass) error {
			o := p.Meta()
			if o == nil {
				return nil
			}
			if v, ok := o.ObjectMeta.Annotations[annotationMaintainer]; !ok || strings.TrimSpace(v) == "" {
				p.Reportf(o, []string{"metadata", "annotations"}, "the %s annotation is missing: say who maintains the package", annotationMaintainer)
			}
			return nil
		},
	}
}

const providerHead = "apiVersion: meta.pkg.crossplane.io/v1\nkind: Provider\nmetadata:\n  name: provider-example\n"

// targetsV1 reports whether the target release runs a Provider's
// spec.controller.image (Crossplane 1.x; the target table says which).
func targetsV1(p *linter.Pass) bool { return release(p).ProviderController }

// v1Severity is SeverityError when the target is Crossplane 1.x, else
// SeverityWarning.
func v1Severity(p *linter.Pass) linter.Severity {
	if targetsV1(p) {
		return linter.SeverityError
	}
	return linter.SeverityWarning
}

func ruleController() *linter.Rule {
	return &linter.Rule{
		ID: "XP208", Name: "controller", Severity: linter.SeverityWarning, Kinds: []meta.Kind{meta.KindProvider},
		Doc: `Provider spec.controller present, or its image invalid under Crossplane 1.x

spec.controller (image, permissionRequests) comes from Crossplane 1.x,
where a Provider's controller could run from another image than the
package's. Crossplane v2 has no such field: its meta Provider type holds
only the shared package spec (crossplane v2.1.0, apis/pkg/meta/v1,
ProviderSpec), so the field is dropped when the package is decoded, and
the provider runs from the package image, configured through a
DeploymentRuntimeConfig. Real packages still carry the field, so the rule
warns that it is ignored.

Under a Crossplane 1.x target (WithCrossplaneVersion v1.x) the field is
used: spec.controller.image becomes the image of the provider's Deployment
(crossplane v1.20.0, internal/controller/pkg/revision/runtime_provider.go,
the Deployment built for a ProviderRevision), so an image that is not a
valid image reference can never be pulled, and the rule reports it as an
error. Under a v2 target the same image is ignored, and only warned
about.`,
		Bad:  providerHead + "spec:\n  controller:\n    image: Example/Provider:latest\n",
		Good: providerHead + "spec:\n  capabilities:\n  - safe-start\n",
		Run: func(p *linter.Pass) error {
			o, m, err := metaContent(p)
			if o == nil || err != nil {
				return err
			}
			c, ok := lookup(m, "spec", "controller")
			if !ok || c == nil {
				return nil
			}
			v1 := targetsV1(p)
			if !v1 {
				fix := deleteFieldFix(o, "delete spec.controller, which Crossplane v2 ignores", "spec", "controller")
				p.ReportFixf(fix, o, []string{"spec", "controller"}, "spec.controller is deprecated: Crossplane v2 ignores it and runs the provider from the package image, configured by a DeploymentRuntimeConfig")
			}
			img, ok := lookup(c, "image")
			if !ok || img == nil {
				return nil
			}
			s, _ := img.(string)
			if _, err := ref.Parse(s); err != nil {
				if v1 {
					p.ReportSeverityf(linter.SeverityError, o, []string{"spec", "controller", "image"}, "spec.controller.image %s is not a valid image reference: Crossplane %s runs the provider from it and cannot pull it: %s", quote(s), p.CrossplaneVersion, reason(err))
				} else {
					p.Reportf(o, []string{"spec", "controller", "image"}, "spec.controller.image %s is not a valid image reference (%s); Crossplane v2 ignores the field, Crossplane 1.x would fail to pull it", quote(s), reason(err))
				}
			}
			return nil
		},
	}
}

func rulePermissionRequests() *linter.Rule {
	return &linter.Rule{
		ID: "XP209", Name: "permission-requests", Severity: linter.SeverityWarning, Kinds: []meta.Kind{meta.KindProvider},
		Doc: `A permission request with no verbs, no resources, or an empty API group list

Each entry of spec.controller.permissionRequests is an RBAC policy rule.
A rule with no verbs, with neither resources nor nonResourceURLs, or with
resources but an empty apiGroups list grants nothing (the core group is
written [""], not []).

Crossplane v2 has no spec.controller (crossplane v2.1.0, apis/pkg/meta/v1,
ProviderSpec): it drops the requests on decode and grants none, so under
a v2 target (the default) such a rule is only a warning. Under a
Crossplane 1.x target the requests become rules of the provider's
ClusterRole (crossplane v1.20.0, internal/controller/rbac/provider/roles),
and the API server rejects a ClusterRole whose rule has no verbs, or no
apiGroups or resources (Kubernetes, pkg/apis/rbac/validation,
ValidatePolicyRule), so the provider never gets its permissions: an
error.`,
		Bad:  providerHead + "spec:\n  controller:\n    permissionRequests:\n    - apiGroups: []\n      resources: [secrets]\n      verbs: [get]\n",
		Good: providerHead + "spec:\n  controller:\n    permissionRequests:\n    - apiGroups: [\"\"]\n      resources: [secrets]\n      verbs: [get]\n",
		Run: func(p *linter.Pass) error {
			o, m, err := metaContent(p)
			if o == nil || err != nil {
				return err
			}
			sev := v1Severity(p)
			why := ": Crossplane v2 ignores permissionRequests, Crossplane 1.x's ClusterRole would be rejected"
			if sev == linter.SeverityError {
				why = ": the API server rejects the provider's ClusterRole, so the provider gets none of its permissions"
			}
			for i, r := range list(m, "spec", "controller", "permissionRequests") {
				if canceled(p) {
					return p.Context().Err()
				}
				path := []string{"spec", "controller", "permissionRequests", fmt.Sprint(i)}
				rm, ok := r.(map[string]any)
				if !ok {
					continue
				}
				if len(list(rm, "verbs")) == 0 {
					p.ReportSeverityf(sev, o, join(path, "verbs"), "permission request %d has no verbs%s", i, why)
				}
				res, urls := list(rm, "resources"), list(rm, "nonResourceURLs")
				if len(res) == 0 && len(urls) == 0 {
					p.ReportSeverityf(sev, o, join(path, "resources"), "permission request %d has no resources (nor nonResourceURLs)%s", i, why)
				}
				if len(res) > 0 && len(list(rm, "apiGroups")) == 0 {
					p.ReportSeverityf(sev, o, join(path, "apiGroups"), "permission request %d has an empty apiGroups list: it matches no resource (write [\"\"] for the core group)%s", i, why)
				}
			}
			return nil
		},
	}
}

func ruleCapabilities() *linter.Rule {
	return &linter.Rule{
		ID: "XP210", Name: "capabilities", Severity: linter.SeverityInfo,
		Doc: `A capability not known for this kind

spec.capabilities declares what the package supports. Crossplane acts on
safe-start for Providers and on composition and operation for Functions,
matching them without regard to case or punctuation (SafeStart and
safe_start are safe-start). Any other capability means nothing to
Crossplane; it may be a typo, or meant for another consumer.`,
		Bad:  providerHead + "spec:\n  capabilities:\n  - SafeStrat\n",
		Good: providerHead + "spec:\n  capabilities:\n  - SafeStart\n",
		Run: func(p *linter.Pass) error {
			o, m, err := metaContent(p)
			if o == nil || err != nil || p.Kind == "" {
				return err
			}
			known := meta.KnownCapabilities(p.Kind)
			for i, c := range list(m, "spec", "capabilities") {
				if canceled(p) {
					return p.Context().Err()
				}
				s, ok := c.(string)
				if !ok || meta.CapabilitiesContain(known, s) {
					continue
				}
				if len(known) == 0 {
					p.Reportf(o, []string{"spec", "capabilities", fmt.Sprint(i)}, "capability %s means nothing to Crossplane for a %s package", quote(s), p.Kind)
					continue
				}
				p.Reportf(o, []string{"spec", "capabilities", fmt.Sprint(i)}, "capability %s is not known for a %s package (known: %s)", quote(s), p.Kind, strings.Join(known, ", "))
			}
			return nil
		},
	}
}

func ruleMetaLabels() *linter.Rule {
	return &linter.Rule{
		ID: "XP211", Name: "meta-labels", Severity: linter.SeverityError,
		Doc: `A meta label or annotation the API server rejects

When Crossplane installs a package it copies the meta object's labels and
annotations onto the package revision and updates it (crossplane v2.1.0,
internal/controller/pkg/revision, Reconciler.Reconcile: meta.AddLabels,
meta.AddAnnotations, then client.Update). The API server validates them as
it does any object's metadata (k8s.io/apimachinery, ValidateLabels and
ValidateAnnotations): a label key that is not a qualified name (an
optional DNS subdomain prefix and '/', then at most 63 characters of
letters, digits, '-', '_' and '.', starting and ending with a letter or
digit), a label value that is not a valid label value (at most 63 such
characters, or empty), an annotation key that is not a qualified name,
or annotations above 256 KiB in all make it refuse the update, and the
package never installs. crossplane xpkg build does not check them.`,
		Bad:  "apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata:\n  name: example\n  labels:\n    team: platform engineering\n",
		Good: "apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata:\n  name: example\n  labels:\n    team: platform-engineering\n",
		Run: func(p *linter.Pass) error {
			for o := range each(p, p.Package.Meta) {
				labels := o.ObjectMeta.Labels
				for _, k := range sortedKeys(labels) {
					if canceled(p) {
						return p.Context().Err()
					}
					if errs := metav1validation.ValidateLabels(map[string]string{k: labels[k]}, field.NewPath("metadata", "labels")); len(errs) > 0 {
						p.Reportf(o, []string{"metadata", "labels", k}, "label %s: %s: the API server refuses the package revision that carries it", quote(k), fieldErrors(errs))
					}
				}
				ann := o.ObjectMeta.Annotations
				for _, k := range sortedKeys(ann) {
					if canceled(p) {
						return p.Context().Err()
					}
					if errs := apivalidation.ValidateAnnotations(map[string]string{k: ""}, field.NewPath("metadata", "annotations")); len(errs) > 0 {
						p.Reportf(o, annotationPath(k), "annotation key %s: %s: the API server refuses the package revision that carries it", quote(k), fieldErrors(errs))
					}
				}
				if err := apivalidation.ValidateAnnotationsSize(ann); err != nil {
					p.Reportf(o, []string{"metadata", "annotations"}, "the annotations are too long: %s: the API server refuses the package revision that carries them", reason(err))
				}
			}
			return nil
		},
	}
}

// sortedKeys returns the keys of m in order.
func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// fieldErrors joins the details of validation errors, without the field
// path (the diagnostic carries it) or the value (the message quotes it).
func fieldErrors(errs field.ErrorList) string {
	var out []string
	for _, e := range errs {
		d := e.Detail
		if d == "" {
			d = e.Type.String()
		}
		out = append(out, d)
		if len(out) == 3 {
			break
		}
	}
	return reasonText(strings.Join(out, "; "))
}
