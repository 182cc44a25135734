package rules

import (
	"github.com/xpkgkit/xpkgkit/linter"

	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/xpkgkit/xpkgkit/internal/ref"
	"github.com/xpkgkit/xpkgkit/parser"
)

// legacySources are the deprecated keys naming a dependency's package.
var legacySources = []string{"provider", "configuration", "function"}

// packageKinds are the kinds a dependency's kind field may take.
var packageKinds = []string{"Provider", "Configuration", "Function"}

// dependency is one spec.dependsOn entry as written.
type dependency struct {
	index int
	path  []string       // spec.dependsOn.<index>
	entry map[string]any // nil when the entry is not an object
}

// refKey returns the key naming the entry's package reference ("package"
// first, then the deprecated keys), and its value.
func (d dependency) refKey() (string, string, bool) {
	for _, k := range append([]string{"package"}, legacySources...) {
		if v, ok := d.entry[k].(string); ok && v != "" {
			return k, v, true
		}
	}
	return "", "", false
}

func dependencies(p *linter.Pass) (*parser.Object, []dependency, error) {
	o, m, err := metaContent(p)
	if o == nil || err != nil {
		return nil, nil, err
	}
	var deps []dependency
	for i, e := range list(m, "spec", "dependsOn") {
		em, _ := e.(map[string]any)
		deps = append(deps, dependency{index: i, path: []string{"spec", "dependsOn", strconv.Itoa(i)}, entry: em})
	}
	return o, deps, nil
}

const depsHead = metaHead + "spec:\n  dependsOn:\n"

func ruleDependencySource() *linter.Rule {
	return &linter.Rule{
		ID: "XP301", Name: "dependency-source", Severity: linter.SeverityError,
		Doc: `A dependsOn entry names no source, or more than one

Each spec.dependsOn entry names one package: either with apiVersion, kind
and package (kind one of Provider, Configuration, Function), or with one of
the deprecated keys provider, configuration or function. Crossplane's
dependency manager refuses an entry that names none, or that gives package
without apiVersion and kind (crossplane v2.1.0,
internal/controller/pkg/revision, PackageDependencyManager.Resolve: "package
dependencies must specify either a valid type, or an explicit apiVersion,
kind, and package"), and a kind other than Provider, Configuration or
Function makes the resolver create an object of a kind no API serves
(internal/controller/pkg/resolver): the dependency never installs, an
error. An entry naming several packages is accepted, Crossplane taking the
first of apiVersion+kind+package, configuration, provider, function in that
order and ignoring the rest: a warning.

Whenever an entry sets both apiVersion and kind, even beside a deprecated
key, the resolver creates the dependency as exactly that type (crossplane
v2.1.0, internal/controller/pkg/resolver/reconciler.go NewPackage, first
case of its switch). The API server serves pkg.crossplane.io/v1 Provider,
Configuration and Function, and pkg.crossplane.io/v1beta1 Function, at
every release line from v1.20 to v2.3 (the pkg.crossplane.io CRDs of each
release): any other pair, such as pkg.crossplane.io/v1beta1 Provider or a
meta.pkg.crossplane.io apiVersion, is never created, so the dependency
never installs: an error.`,
		Bad:  depsHead + "  - package: xpkg.crossplane.io/crossplane-contrib/provider-nop  # no apiVersion, no kind\n    version: \">=v0.1.0\"\n",
		Good: depsHead + "  - apiVersion: pkg.crossplane.io/v1\n    kind: Provider\n    package: xpkg.crossplane.io/crossplane-contrib/provider-nop\n    version: \">=v0.1.0\"\n",
		Run: func(p *linter.Pass) error {
			o, deps, err := dependencies(p)
			if err != nil {
				return err
			}
			for _, d := range deps {
				if canceled(p) {
					return p.Context().Err()
				}
				if d.entry == nil {
					continue
				}
				var named []string
				for _, k := range append(append([]string(nil), legacySources...), "package") {
					if v, ok := d.entry[k]; ok && v != nil && v != "" {
						named = append(named, k)
					}
				}
				switch {
				case len(named) == 0:
					p.Reportf(o, d.path, "dependency %d names no package: give apiVersion, kind and package", d.index)
					continue
				case len(named) > 1:
					p.ReportSeverityf(linter.SeverityWarning, o, join(d.path, named[1]), "dependency %d names more than one package (%s): Crossplane uses one and ignores the others; give exactly one", d.index, strings.Join(named, ", "))
					continue
				}
				_, hasAPIVersion := d.entry["apiVersion"]
				kind, hasKind := d.entry["kind"]
				if named[0] != "package" {
					if hasAPIVersion || hasKind {
						p.ReportSeverityf(linter.SeverityWarning, o, join(d.path, named[0]), "dependency %d mixes %s with apiVersion/kind: use apiVersion, kind and package", d.index, named[0])
					}
					if hasAPIVersion && hasKind {
						reportUnservedDependency(p, o, d, false)
					}
					continue
				}
				if !hasAPIVersion || !hasKind {
					p.Reportf(o, join(d.path, "package"), "dependency %d gives package without apiVersion and kind (e.g. apiVersion: pkg.crossplane.io/v1, kind: Provider)", d.index)
					continue
				}
				ks, _ := kind.(string)
				valid := false
				for _, k := range packageKinds {
					valid = valid || ks == k
				}
				if !valid {
					p.Reportf(o, join(d.path, "kind"), "dependency %d has kind %s: want Provider, Configuration or Function", d.index, token(kind))
					continue
				}
				reportUnservedDependency(p, o, d, true)
			}
			return nil
		},
	}
}

func ruleDependencyVersion() *linter.Rule {
	return &linter.Rule{
		ID: "XP302", Name: "dependency-version", Severity: linter.SeverityError,
		Doc: `A dependency version is neither a semver constraint nor a digest

A dependency's version is a Masterminds semver constraint (">=v1.2.0",
"v1", "=v0.3.1", ">=v1.2.0, <v2") or a digest, sha256 followed by 64
lower-case hex digits. Crossplane cannot resolve a dependency whose version
is missing or is anything else: the dependency manager and the resolver
parse it as a constraint unless it is a digest (crossplane v2.1.0,
internal/controller/pkg/revision, PackageDependencyManager.Resolve;
internal/controller/pkg/resolver, "version constraint on dependency is
invalid"), so the dependency never resolves. This happens at install:
crossplane xpkg build does not read dependency versions.

Which grammar reads the constraint follows the target (see XP202): before
v2.3 Masterminds/semver v1.5.0 (crossplane go.mod), whose comparisons are
joined with a comma only, so ">=v1.2.0 <v2" (two comparisons joined by a
space) never resolves there; from v2.3 Masterminds/semver/v3 (crossplane
commit 3c17d47ee; crossplane-runtime v2.3.0 pkg/xpkg), which reads it;
from v2.4 semver v3.5.0's caps (512 bytes, 32 '||' groups) apply.`,
		Bad:  depsHead + "  - apiVersion: pkg.crossplane.io/v1\n    kind: Provider\n    package: xpkg.crossplane.io/crossplane-contrib/provider-nop\n    version: latest\n",
		Good: depsHead + "  - apiVersion: pkg.crossplane.io/v1\n    kind: Provider\n    package: xpkg.crossplane.io/crossplane-contrib/provider-nop\n    version: \">=v0.1.0\"\n",
		Run: func(p *linter.Pass) error {
			o, deps, err := dependencies(p)
			if err != nil {
				return err
			}
			for _, d := range deps {
				if canceled(p) {
					return p.Context().Err()
				}
				if d.entry == nil {
					continue
				}
				v, ok := d.entry["version"]
				if !ok || v == nil {
					p.Reportf(o, d.path, "dependency %d has no version: give a semver constraint or a sha256 digest", d.index)
					continue
				}
				s, ok := v.(string)
				if !ok {
					p.Reportf(o, join(d.path, "version"), "dependency %d version %s is not a string", d.index, token(v))
					continue
				}
				r := release(p)
				if err := ref.CheckVersionWith(s, func(c string) error { return checkConstraint(r, c) }); err != nil {
					p.Reportf(o, join(d.path, "version"), "dependency %d version: %s", d.index, reason(err))
				}
			}
			return nil
		},
	}
}

func ruleDependencyReference() *linter.Rule {
	return &linter.Rule{
		ID: "XP303", Name: "dependency-reference", Severity: linter.SeverityError,
		Doc: `A dependency's package reference is invalid, tagged, or has no registry

A dependency's package (or deprecated provider, configuration, function)
is an OCI repository reference: a registry host, then the repository
path, with no tag or digest, since the version field says which version to
install. The resolver parses it (crossplane v2.1.0,
internal/controller/pkg/resolver, Reconciler.Reconcile:
name.ParseReference) and appends the version it picks as a tag: a
reference that does not parse, or one that already has a tag or digest,
makes a package source that never resolves, an error. A registry host is
what go-containerregistry's name.NewRegistry (through which Crossplane
parses references at every target) takes: an RFC 3986 URI authority, so
my_registry.example.com is one; a bad host:port such as r.io:x is not.

A reference without a registry host depends on the target:

- Crossplane 1.x prefixes the registry of its --registry flag (default
  xpkg.upbound.io) to a name without one, so crossplane/provider-gcp
  installs from there: a warning, since the registry is implicit;
- Crossplane v2 (every 2.x line): the resolver writes the name as declared
  into the dependency's spec.package with the version it picks as a tag
  (crossplane v2.1.0, internal/controller/pkg/resolver/reconciler.go,
  Reconciler.Reconcile, fieldpath SetString("spec.package")), and v2's
  Package CRDs refuse a name whose first component is not a registry host
  with a dot (the CEL rule on spec.package, "must be a fully qualified
  image name, including the registry", crossplane v2.1.0
  cluster/crds/pkg.crossplane.io_providers.yaml, configurations and
  functions alike; unchanged in v2.2 and v2.3): the dependency can never
  be installed, an error. That includes a host without a dot, such as
  localhost:5000; a host with a '_' and a dot
  (my_registry.example.com) matches the rule and is accepted.

Write the registry host, e.g. xpkg.crossplane.io/crossplane/provider-gcp.`,
		Bad:  depsHead + "  - apiVersion: pkg.crossplane.io/v1\n    kind: Provider\n    package: crossplane-contrib/provider-nop:v0.4.0\n    version: \">=v0.1.0\"\n",
		Good: depsHead + "  - apiVersion: pkg.crossplane.io/v1\n    kind: Provider\n    package: xpkg.crossplane.io/crossplane-contrib/provider-nop\n    version: \">=v0.1.0\"\n",
		Run: func(p *linter.Pass) error {
			o, deps, err := dependencies(p)
			if err != nil {
				return err
			}
			for _, d := range deps {
				if canceled(p) {
					return p.Context().Err()
				}
				if d.entry == nil {
					continue
				}
				for _, k := range append([]string{"package"}, legacySources...) {
					s, ok := d.entry[k].(string)
					if !ok || s == "" {
						continue
					}
					r, err := ref.CheckDependency(s)
					hostRequired := release(p).RegistryHostRequired
					if hostRequired && !dottedHost(s) {
						p.Reportf(o, join(d.path, k), "dependency %d: %s has no registry host with a dot: Crossplane %s writes it into the dependency's spec.package as declared, and its Package CRD refuses it (\"must be a fully qualified image name, including the registry\"); write the registry, e.g. xpkg.crossplane.io/%s",
							d.index, quote(s), targetName(p), safeRepository(r, s))
					}
					if err == nil {
						continue
					}
					errs := []error{err}
					if j, ok := err.(interface{ Unwrap() []error }); ok {
						errs = j.Unwrap()
					}
					for _, e := range errs {
						if errors.Is(e, ref.ErrNoRegistry) {
							if !hostRequired {
								p.ReportSeverityf(linter.SeverityWarning, o, join(d.path, k), "dependency %d: %s has no registry host: Crossplane %s prefixes its default registry (its --registry flag); write the registry, e.g. xpkg.crossplane.io/%s", d.index, quote(s), targetName(p), r.Repository)
							}
							continue
						}
						p.Reportf(o, join(d.path, k), "dependency %d: %s", d.index, reason(e))
					}
				}
			}
			return nil
		},
	}
}

func ruleDependencyDeprecatedField() *linter.Rule {
	return &linter.Rule{
		ID: "XP304", Name: "dependency-deprecated-field", Severity: linter.SeverityWarning,
		Doc: `provider/configuration/function used instead of apiVersion+kind+package

The keys provider, configuration and function of a dependsOn entry are
deprecated: write apiVersion (pkg.crossplane.io/v1), kind (Provider,
Configuration or Function) and package.`,
		Bad:  depsHead + "  - provider: xpkg.crossplane.io/crossplane-contrib/provider-nop\n    version: \">=v0.1.0\"\n",
		Good: depsHead + "  - apiVersion: pkg.crossplane.io/v1\n    kind: Provider\n    package: xpkg.crossplane.io/crossplane-contrib/provider-nop\n    version: \">=v0.1.0\"\n",
		Run: func(p *linter.Pass) error {
			o, deps, err := dependencies(p)
			if err != nil {
				return err
			}
			var loc *parser.FieldLocator // parsed for the first fix
			for _, d := range deps {
				if canceled(p) {
					return p.Context().Err()
				}
				for i, k := range legacySources {
					v, ok := d.entry[k]
					if !ok {
						continue
					}
					var fix *linter.SuggestedFix
					_, hasAPI := d.entry["apiVersion"]
					_, hasKind := d.entry["kind"]
					_, hasPkg := d.entry["package"]
					if !hasAPI && !hasKind && !hasPkg && !p.AtCap() {
						// One parse of the meta object for every entry's fix.
						if loc == nil {
							loc, _ = o.FieldLocator()
						}
						if pkg := valueText(o, loc, join(d.path, k)...); loc != nil && pkg != "" {
							fix = replaceFieldFix(o, loc, "write apiVersion, kind and package", [][2]string{
								{"apiVersion", "pkg.crossplane.io/v1"}, {"kind", packageKinds[i]}, {"package", pkg},
							}, join(d.path, k)...)
						}
					}
					p.ReportFixf(fix, o, join(d.path, k), "dependency %d: %s is deprecated: write apiVersion: pkg.crossplane.io/v1, kind: %s, package: %s",
						d.index, k, packageKinds[i], token(v))
				}
			}
			return nil
		},
	}
}

func ruleDependencyDuplicate() *linter.Rule {
	return &linter.Rule{
		ID: "XP305", Name: "dependency-duplicate", Severity: linter.SeverityWarning,
		Doc: `The same package listed twice

Two dependsOn entries naming the same package (the same registry and
repository, registry compared without regard to case) give Crossplane two
constraints for one dependency. Crossplane accepts that: the resolver looks
for a version satisfying every constraint on the package (crossplane
v2.1.0, internal/controller/pkg/resolver). The second entry is redundant,
or it contradicts the first: merge them into one entry.`,
		Bad:  depsHead + "  - apiVersion: pkg.crossplane.io/v1\n    kind: Provider\n    package: xpkg.crossplane.io/crossplane-contrib/provider-nop\n    version: \">=v0.1.0\"\n  - provider: xpkg.crossplane.io/crossplane-contrib/provider-nop\n    version: \"v0\"\n",
		Good: depsHead + "  - apiVersion: pkg.crossplane.io/v1\n    kind: Provider\n    package: xpkg.crossplane.io/crossplane-contrib/provider-nop\n    version: \">=v0.1.0\"\n",
		Run: func(p *linter.Pass) error {
			o, deps, err := dependencies(p)
			if err != nil {
				return err
			}
			first := map[string]int{}
			for _, d := range deps {
				if canceled(p) {
					return p.Context().Err()
				}
				k, v, ok := d.refKey()
				if !ok {
					continue
				}
				key := v
				if r, err := ref.Parse(v); err == nil {
					key = strings.ToLower(r.Registry) + "/" + r.Repository
				}
				if i, ok := first[key]; ok {
					p.Reportf(o, join(d.path, k), "dependency %d lists %s again (first as dependency %d)", d.index, token(v), i)
					continue
				}
				first[key] = d.index
			}
			return nil
		},
	}
}

// dottedHost reports whether the first component of a package name is a
// registry host with a dot, as the CEL rule of v2's Package CRDs on
// spec.package wants (^[^./]+(\.[^./]+)+/...).
func dottedHost(s string) bool {
	host, _, ok := strings.Cut(s, "/")
	if !ok || host == "" || strings.HasPrefix(host, ".") || strings.HasSuffix(host, ".") || strings.Contains(host, "..") {
		return false
	}
	return strings.Contains(host, ".")
}

// safeRepository returns the repository of r for a suggestion (the name
// after its registry, if any), else s.
func safeRepository(r ref.Reference, s string) string {
	if r.Repository != "" {
		return r.Repository
	}
	return s
}

// servedPackageTypes are the apiVersion/kind pairs of the package types
// the API server serves, the same at every release line (pkg.crossplane.io
// CRDs of crossplane v1.20.0 to v2.3.4: Provider and Configuration at v1,
// Function at v1 and v1beta1).
var servedPackageTypes = []string{
	"pkg.crossplane.io/v1 Provider", "pkg.crossplane.io/v1 Configuration",
	"pkg.crossplane.io/v1 Function", "pkg.crossplane.io/v1beta1 Function",
}

// reportUnservedDependency reports a dependency whose apiVersion and kind
// (which the resolver uses as given whenever both are set, whatever other
// keys say) name a type the API server does not serve.
// kindReported says the caller already reported a kind that is not a
// package kind.
func reportUnservedDependency(p *linter.Pass, o *parser.Object, d dependency, kindReported bool) {
	av, _ := d.entry["apiVersion"].(string)
	k, _ := d.entry["kind"].(string)
	if slices.Contains(servedPackageTypes, av+" "+k) {
		return
	}
	if kindReported && !slices.Contains(packageKinds, k) {
		return
	}
	p.Reportf(o, join(d.path, "apiVersion"), "dependency %d: the resolver creates a %s %s, which the API server does not serve (it serves %s): the dependency is never installed",
		d.index, token(d.entry["apiVersion"]), token(k), strings.Join(servedPackageTypes, ", "))
}
