package hostile

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// lintCostCases returns the cases that try to buy memory or CPU from
// the lint rules beyond what the limits allow.
func lintCostCases() []Case {
	ws := lintWorstCases()
	cs := make([]Case, len(ws))
	for i, w := range ws {
		cs[i] = w.Case
	}
	return cs
}

// lintWorstCases are the worst cases of the built-in lint rules: for each
// rule, a package of about lintCostBytes (as package.yaml) that gives it
// the most work, the most objects of the kinds it reads and the most
// diagnostics. The linter must stay linear on each: every rule keeps at
// most a capped number of diagnostics (linter.WithMaxDiagnostics) and none
// compares objects pairwise.
func lintWorstCases() []lintWorst {
	sizeYAML := int64(lintCostBytes)
	return append([]lintWorst{
		{
			rules: []string{"XP001"},
			Case: Case{
				Name:        "lint-cost-syntax-errors",
				Description: "About 75,000 documents, each an unclosed flow sequence: one XP001 diagnostic per document, capped per rule.",
				Kind:        KindPackageYAML,
				Expect:      rule(ClassParseError, "XP001"),
				Size:        sizeYAML,
				Write: streamYAML("lint-cost-syntax-errors", func() []byte {
					return stream(validPackage, func(i int) string { return "---\nkey: [bad\n" }, "")
				}),
			},
		},
		{
			rules: []string{"XP002"},
			Case: Case{
				Name:        "lint-cost-missing-type",
				Description: "About 65,000 documents with neither apiVersion nor kind: one XP002 diagnostic per document, capped per rule.",
				Kind:        KindPackageYAML,
				Expect:      rule(ClassParseError, "XP002"),
				Size:        sizeYAML,
				Write: streamYAML("lint-cost-missing-type", func() []byte {
					return stream(validPackage, func(i int) string { return fmt.Sprintf("---\nname: x%d\n", i) }, "")
				}),
			},
		},
		{
			rules: []string{"XP005"},
			Case: Case{
				Name:        "lint-cost-field-type",
				Description: "About 10,000 meta documents whose spec.dependsOn is a number: each fails to decode, one XP005 diagnostic per document, capped per rule.",
				Kind:        KindPackageYAML,
				Expect:      rule(ClassParseError, "XP005"),
				Size:        sizeYAML,
				Write: streamYAML("lint-cost-field-type", func() []byte {
					return stream("", func(i int) string {
						return fmt.Sprintf("---\napiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata:\n  name: c%d\nspec:\n  dependsOn: 5\n", i)
					}, "")
				}),
			},
		},
		{
			rules: []string{"XP003"},
			Case: Case{
				Name:        "lint-cost-empty-package",
				Description: "1 MiB of comments and no document: the package is empty (XP003), found after reading it all.",
				Kind:        KindPackageYAML,
				Expect:      rule(ClassLintError, "XP003"),
				Size:        sizeYAML,
				Write: streamYAML("lint-cost-empty-package", func() []byte {
					return stream("", func(i int) string { return "# nothing but a comment line\n" }, "")
				}),
			},
		},
		{
			rules: []string{"XP004"},
			Case: Case{
				Name: "lint-cost-unused-suppressions",
				Description: "A Provider with about 4,000 CRDs, each suppressing a dozen rules that report nothing on it and a rule that does not exist: " +
					"about 50,000 unused suppressions (XP004), capped per rule; a ConfigMap is the error.",
				Kind:   KindPackageYAML,
				Expect: rule(ClassLintError, "XP102"),
				Size:   sizeYAML,
				Write: streamYAML("lint-cost-unused-suppressions", func() []byte {
					return stream(badProvider+"  annotations:\n    lint.xpkgkit.dev/ignore: XP208 XP209 XP210 no-such-rule\n", func(i int) string {
						return fmt.Sprintf("---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: x%d\n"+
							"  annotations:\n    lint.xpkgkit.dev/ignore: XP101 XP102 XP103 XP104 XP105 XP106 XP201 XP301 XP404 XP405 XP406 XP407 nope%d\n", i, i)
					}, errorTail)
				}),
			},
		},
		{
			rules: []string{"XP006"},
			Case: Case{
				Name:        "lint-cost-skipped-files",
				Description: "A package directory with 10,000 symbolic links named *.yaml: none is followed, each is reported (XP006), capped per rule; a ConfigMap is the error.",
				Kind:        KindPackageDir,
				Expect:      rule(ClassLintError, "XP102"),
				Size:        200,
				Write:       symlinkDir("lint-cost-skipped-files", []byte(badConfiguration+errorTail), 10_000),
			},
		},
		{
			rules: []string{"XP101", "XP103", "XP106", "XP201"},
			Case: Case{
				Name: "lint-cost-meta-flood",
				Description: "About 12,000 meta objects (v1alpha1 Providers, each with an invalid name and an unknown field) in a .xpkg of a few dozen KiB. " +
					"XP101 once named every other meta object in each diagnostic (quadratic: 9 million diagnostics and 15 GB for 6,000); " +
					"each message now names a few, and each rule keeps a capped number of diagnostics.",
				Kind:   KindXpkg,
				Expect: rule(ClassLintError, "XP101"),
				Size:   60_000,
				Write: streamXpkg("lint-cost-meta-flood", func() []byte {
					return stream("", func(i int) string {
						return fmt.Sprintf("---\napiVersion: meta.pkg.crossplane.io/v1alpha1\nkind: Provider\nmetadata:\n  name: M_%d\nspek: {}\n", i)
					}, "")
				}),
			},
		},
		{
			rules: []string{"XP102"},
			Case: Case{
				Name:        "lint-cost-disallowed-kinds",
				Description: "A Provider with about 18,000 ConfigMaps, a kind no package may hold: one XP102 error each, capped per rule.",
				Kind:        KindXpkg,
				Expect:      rule(ClassLintError, "XP102"),
				Size:        40_000,
				Write: streamXpkg("lint-cost-disallowed-kinds", func() []byte {
					return stream(goodProvider, func(i int) string {
						return fmt.Sprintf("---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c%d\n", i)
					}, "")
				}),
			},
		},
		{
			rules: []string{"XP105"},
			Case: Case{
				Name: "lint-cost-duplicate-objects",
				Description: "A Provider with a CRD of 512 KiB (50,000 keys) and about 5,000 small copies of its name: each copy is a duplicate (XP105) compared with the first, " +
					"which is decoded once, and each comparison costs the copy's size, not the first's; capped per rule.",
				Kind:   KindXpkg,
				Expect: rule(ClassLintError, "XP105"),
				Size:   120_000,
				Write: streamXpkg("lint-cost-duplicate-objects", func() []byte {
					var b strings.Builder
					b.WriteString(goodProvider + "---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: things.example.org\nspec:\n")
					for i := 0; b.Len() < lintCostBytes/2; i++ {
						fmt.Fprintf(&b, "  k%d: 0\n", i)
					}
					for i := 0; b.Len() < lintCostBytes; i++ {
						fmt.Fprintf(&b, "---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: things.example.org\nspec: {k%d: 1}\n", i)
					}
					return []byte(b.String())
				}),
			},
		},
		{
			rules: []string{"XP211"},
			Case: Case{
				Name: "lint-cost-meta-labels",
				Description: "A Configuration with about 30,000 labels whose keys and values the API server refuses, and annotations over its 256 KiB total: " +
					"one XP211 error each, each key validated once, capped per rule.",
				Kind:   KindPackageYAML,
				Expect: rule(ClassLintError, "XP211"),
				Size:   sizeYAML,
				Write: streamYAML("lint-cost-meta-labels", func() []byte {
					var b strings.Builder
					b.WriteString(badConfiguration + "  labels:\n")
					for i := 0; b.Len() < lintCostBytes/2; i++ {
						fmt.Fprintf(&b, "    'bad key %d': 'bad value'\n", i)
					}
					b.WriteString("  annotations:\n")
					for i := 0; b.Len() < lintCostBytes-64; i++ {
						fmt.Fprintf(&b, "    'bad/key/%d': x\n", i)
					}
					return []byte(b.String())
				}),
			},
		},
		{
			rules: []string{"XP106"},
			Case: Case{
				Name: "lint-cost-unknown-fields",
				Description: "A Configuration whose spec holds about 100,000 unknown keys: one XP106 warning each, capped per rule, " +
					"each positioned at its key without searching the mapping once per diagnostic; a ConfigMap is the error.",
				Kind:   KindPackageYAML,
				Expect: rule(ClassLintError, "XP102"),
				Size:   sizeYAML,
				Write: streamYAML("lint-cost-unknown-fields", func() []byte {
					return stream(badConfiguration+"spec:\n", func(i int) string { return fmt.Sprintf("  k%d: 0\n", i) }, errorTail)
				}),
			},
		},
		{
			rules: []string{"XP202"},
			Case: Case{
				Name:        "lint-cost-invalid-constraint",
				Description: "spec.crossplane.version is a constraint of about 100,000 comma-separated parts, the last invalid: XP202 refuses it in linear time (semver refuses constraints over 512 bytes before parsing them).",
				Kind:        KindPackageYAML,
				Expect:      rule(ClassLintError, "XP202"),
				Size:        sizeYAML,
				Write: streamYAML("lint-cost-invalid-constraint", func() []byte {
					return stream("apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata:\n  name: hostile\nspec:\n  crossplane:\n    version: \"", func(i int) string {
						return ">=v1.0.0, "
					}, "bad\"\n")
				}),
			},
		},
		{
			rules:        []string{"XP203"},
			needsVersion: true,
			Case: Case{
				Name: "lint-cost-excluding-constraint",
				Description: "spec.crossplane.version is a valid constraint of 32 alternatives, as many as semver allows (and under its 512 bytes), none of which admits a current Crossplane: " +
					"XP203 (run with a target version) checks each once; a ConfigMap is the error.",
				Kind:   KindPackageYAML,
				Expect: rule(ClassLintError, "XP102"),
				Size:   800,
				Write: streamYAML("lint-cost-excluding-constraint", func() []byte {
					var b strings.Builder
					b.WriteString("<v0.0.1")
					for i := 2; i <= 32; i++ {
						fmt.Fprintf(&b, " || <v0.0.%d", i)
					}
					return []byte(badConfiguration + "spec:\n  crossplane:\n    version: \"" + b.String() + "\"\n" + errorTail)
				}),
			},
		},
		{
			rules: []string{"XP204", "XP205", "XP206", "XP207"},
			Case: Case{
				Name: "lint-cost-meta-annotations",
				Description: "A Configuration whose license is an SPDX expression of about 30,000 deprecated identifiers, whose source is a 256 KiB URL " +
					"and whose description holds about 80,000 sentences: each checked in linear time, the deprecated identifiers capped per rule; a ConfigMap is the error.",
				Kind:   KindPackageYAML,
				Expect: rule(ClassLintError, "XP102"),
				Size:   sizeYAML,
				Write: streamYAML("lint-cost-meta-annotations", func() []byte {
					var b strings.Builder
					b.WriteString(badConfiguration + "  annotations:\n    meta.crossplane.io/license: \"GPL-2.0")
					for b.Len() < lintCostBytes/4 {
						b.WriteString(" OR GPL-2.0")
					}
					b.WriteString("\"\n    meta.crossplane.io/source: \"https://")
					b.WriteString(strings.Repeat("a", lintCostBytes/4))
					b.WriteString(" b\"\n    meta.crossplane.io/description: \"")
					for b.Len() < lintCostBytes-128 {
						b.WriteString("A. ")
					}
					b.WriteString("\"\n" + errorTail)
					return []byte(b.String())
				}),
			},
		},
		{
			rules: []string{"XP208", "XP209", "XP210"},
			Case: Case{
				Name: "lint-cost-provider-meta",
				Description: "A Provider meta object with an invalid controller image, about 60,000 empty permission requests (three XP209 errors each) " +
					"and about 40,000 unknown capabilities: linear, capped per rule; a ConfigMap is the error.",
				Kind:   KindPackageYAML,
				Expect: rule(ClassLintError, "XP102"),
				Size:   sizeYAML,
				Write: streamYAML("lint-cost-provider-meta", func() []byte {
					var b strings.Builder
					b.WriteString(goodProvider + "spec:\n  controller:\n    image: \"Not A/Valid:Image:Reference\"\n    permissionRequests:\n")
					for i := 0; b.Len() < lintCostBytes/2; i++ {
						b.WriteString("    - {apiGroups: [], resources: [x]}\n")
					}
					b.WriteString("  capabilities:\n")
					for i := 0; b.Len() < lintCostBytes-128; i++ {
						fmt.Fprintf(&b, "  - SafeStrat%d\n", i)
					}
					b.WriteString(errorTail)
					return []byte(b.String())
				}),
			},
		},
		{
			rules: []string{"XP301", "XP302", "XP303", "XP304", "XP305"},
			Case: Case{
				Name: "lint-cost-dependency-flood",
				Description: "A Configuration with about 5,000 dependencies, each naming one package three ways (deprecated keys), with an invalid version " +
					"and an invalid, tagged reference: every dependency rule reports each, capped per rule; duplicates are found through a map.",
				Kind:   KindPackageYAML,
				Expect: rule(ClassLintError, "XP301"),
				Size:   sizeYAML,
				Write: streamYAML("lint-cost-dependency-flood", func() []byte {
					return stream(badConfiguration+"spec:\n  dependsOn:\n", func(i int) string {
						return fmt.Sprintf("  - provider: Example/Provider:v1\n    function: Example/Provider:v1\n    configuration: Example/Provider:v1\n    package: Example/Provider:v1\n    version: \"latest%d\"\n", i)
					}, "")
				}),
			},
		},
		{
			rules: []string{"XP104", "XP401", "XP402", "XP403"},
			Case: Case{
				Name: "lint-cost-crd-flood",
				Description: "A Provider with about 3,500 CRDs, half v1beta1 (XP104), each misnamed (XP401) with a repeated version, several storage versions and none served (XP402), " +
					"the v1 ones without schemas (XP403): linear in CRDs and versions, capped per rule.",
				Kind:   KindXpkg,
				Expect: rule(ClassLintError, "XP401"),
				Size:   17_000,
				Write: streamXpkg("lint-cost-crd-flood", func() []byte {
					return stream(goodProvider, func(i int) string {
						v := []string{"v1", "v1beta1"}[i%2]
						return fmt.Sprintf("---\napiVersion: apiextensions.k8s.io/%s\nkind: CustomResourceDefinition\nmetadata:\n  name: x%d\nspec:\n  group: example.org\n  names: {plural: things, kind: Thing}\n"+
							"  versions:\n  - {name: v1, storage: true}\n  - {name: v1, storage: true}\n  - {name: v2, storage: true}\n", v, i)
					}, "")
				}),
			},
		},
		{
			rules: []string{"XP404", "XP405", "XP406", "XP411"},
			Case: Case{
				Name: "lint-cost-xrd-flood",
				Description: "A Configuration with about 3,500 XRDs, each misnamed (XP404), with repeated, unreferenceable, unserved versions (XP405), " +
					"claim names equal to its names (XP406), and all of one kind in one group (XP411, one map lookup each): linear, capped per rule.",
				Kind:   KindXpkg,
				Expect: rule(ClassLintError, "XP404"),
				Size:   17_000,
				Write: streamXpkg("lint-cost-xrd-flood", func() []byte {
					return stream(badConfiguration, func(i int) string {
						return fmt.Sprintf("---\napiVersion: apiextensions.crossplane.io/v1\nkind: CompositeResourceDefinition\nmetadata:\n  name: x%d\nspec:\n  group: example.org\n"+
							"  names: {plural: xthings, kind: XThing}\n  claimNames: {plural: xthings, kind: XThing}\n  versions:\n  - {name: v1}\n  - {name: v1}\n", i)
					}, "")
				}),
			},
		},
		{
			rules: []string{"XP407"},
			Case: Case{
				Name: "lint-cost-composition-xrd-pairs",
				Description: "A Configuration with about 3,000 XRDs of one group and kind and about 3,000 Compositions referring to a version none defines. " +
					"XP407 once reported every Composition-XRD pair (9 million diagnostics, 23 GB); it now looks the type up once per Composition, capped per rule; a ConfigMap is the error.",
				Kind:   KindXpkg,
				Expect: rule(ClassLintError, "XP102"),
				Size:   30_000,
				Write: streamXpkg("lint-cost-composition-xrd-pairs", func() []byte {
					return stream(badConfiguration, func(i int) string {
						if i%2 == 0 {
							return fmt.Sprintf("---\napiVersion: apiextensions.crossplane.io/v1\nkind: CompositeResourceDefinition\nmetadata:\n  name: x%d\nspec:\n  group: example.org\n  names: {kind: XThing}\n  versions: [{name: v1}]\n", i)
						}
						return fmt.Sprintf("---\napiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata:\n  name: c%d\nspec:\n  compositeTypeRef: {apiVersion: example.org/v2, kind: XThing}\n", i)
					}, errorTail)
				}),
			},
		},
		{
			rules: []string{"XP410"},
			Case: Case{
				Name: "lint-cost-composition-modes",
				Description: "A Configuration with about 7,000 Compositions in Resources mode, each with one composed resource: " +
					"one XP410 error per Composition, each read once, capped per rule.",
				Kind:   KindPackageYAML,
				Expect: rule(ClassLintError, "XP410"),
				Size:   sizeYAML,
				Write: streamYAML("lint-cost-composition-modes", func() []byte {
					return stream(validPackage, func(i int) string {
						return fmt.Sprintf("---\napiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata:\n  name: c%d\nspec:\n"+
							"  compositeTypeRef: {apiVersion: example.org/v1, kind: XThing}\n  mode: Resources\n  resources:\n  - base: {apiVersion: example.org/v1, kind: Thing}\n", i)
					}, "")
				}),
			},
		},
		{
			rules: []string{"XP501"},
			Case: Case{
				Name: "lint-cost-base-layers",
				Description: "An OCI layout whose 1,000 layers (MaxLayers) are all annotated as the base layer: a reader refuses the image, " +
					"or reads the first and reports each other one (XP501), capped per rule; from Crossplane v2.2, which reads the first and ignores the others, as warnings.",
				Kind:         KindOCILayoutDir,
				Expect:       class(ClassMalformed),
				Alternatives: []Outcome{rule(ClassLintError, "XP501")},
				Later:        secondBaseIgnored,
				Size:         600_000,
				Write:        ociImageCase("lint-cost-base-layers", KindOCILayoutDir, manyBaseLayers(1_000), ociHooks{}),
			},
		},
		{
			rules: []string{"XP502"},
			Case: Case{
				Name: "lint-cost-flattened",
				Description: "An OCI layout of 1,000 unannotated layers (MaxLayers), package.yaml in the last: the filesystem is flattened to find it, " +
					"each layer read once, and XP502 reports the missing annotation; a ConfigMap is the error.",
				Kind:   KindOCILayoutDir,
				Expect: rule(ClassLintError, "XP102"),
				Size:   600_000,
				Write:  ociImageCase("lint-cost-flattened", KindOCILayoutDir, flatLayers(1_000, []byte(badConfiguration+errorTail)), ociHooks{}),
			},
		},
		{
			rules: []string{"XP503", "XP504"},
			Case: Case{
				Name: "lint-cost-image-scan",
				Description: "An OCI layout of 100 unannotated layers with no package.yaml at the root but 500 below it in each (XP503), " +
					"and the defunct stack's .registry/app.yaml (XP504): the layers are scanned once and the misplaced files named are bounded.",
				Kind:   KindOCILayoutDir,
				Expect: rule(ClassLintError, "XP503"),
				Size:   390_000,
				Write:  ociImageCase("lint-cost-image-scan", KindOCILayoutDir, misplacedLayers(100, 500), ociHooks{}),
			},
		},
		{
			rules: []string{"XP409"},
			Case: Case{
				Name: "lint-cost-composed-schemas",
				Description: "A Configuration with an XRD whose schema wants an integer, and Compositions composing about 12,000 resources of its kind with a string there: " +
					"each base is validated once against a schema compiled once, one XP409 warning each, capped per rule; a ConfigMap is the error.",
				Kind:   KindPackageYAML,
				Expect: rule(ClassLintError, "XP102"),
				Size:   sizeYAML,
				Write: streamYAML("lint-cost-composed-schemas", func() []byte {
					return stream(badConfiguration+"---\n"+schemaXRD, func(i int) string {
						if i%100 == 0 {
							return fmt.Sprintf("---\napiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata:\n  name: c%d\nspec:\n  compositeTypeRef: {apiVersion: example.org/v1, kind: XOther}\n  mode: Pipeline\n  pipeline:\n  - step: pt\n    functionRef: {name: function-patch-and-transform}\n    input:\n      apiVersion: pt.fn.crossplane.io/v1beta1\n      kind: Resources\n      resources:\n", i)
						}
						return fmt.Sprintf("      - {name: r%d, base: {apiVersion: example.org/v1, kind: XThing, spec: {size: x, extra: 1}}}\n", i)
					}, errorTail)
				}),
			},
		},
		{
			rules: []string{"XP408"},
			Case: Case{
				Name: "lint-cost-example-schemas",
				Description: "A package directory whose Configuration has an XRD whose schema wants an integer, and whose examples/ holds about 12,000 examples of its kind with a string there " +
					"and about 1,000 of kinds nothing serves: each example is validated once, one XP408 warning each, capped per rule; a ConfigMap is the error.",
				Kind:   KindPackageDir,
				Expect: rule(ClassLintError, "XP102"),
				Size:   sizeYAML,
				Write: func(ctx context.Context, dir string) (string, error) {
					out, err := caseOutput(dir, "lint-cost-example-schemas", KindPackageDir)
					if err != nil {
						return "", err
					}
					if err := os.MkdirAll(filepath.Join(out, "examples"), 0o755); err != nil {
						return "", err
					}
					if err := os.WriteFile(filepath.Join(out, "crossplane.yaml"), []byte(badConfiguration+"---\n"+schemaXRD+errorTail), 0o644); err != nil {
						return "", err
					}
					examples := stream("", func(i int) string {
						if i%13 == 0 {
							return fmt.Sprintf("---\napiVersion: example.org/v1\nkind: Unserved%d\nmetadata:\n  name: e%d\n", i, i)
						}
						return fmt.Sprintf("---\napiVersion: example.org/v1\nkind: XThing\nmetadata:\n  name: e%d\nspec: {size: x}\n", i)
					}, "")
					return out, os.WriteFile(filepath.Join(out, "examples", "examples.yaml"), examples, 0o644)
				},
			},
		},
		{
			rules: []string{"XP007"},
			Case: Case{
				Name:        "lint-cost-duplicate-keys",
				Description: "A Provider with about 6,000 CRDs, each giving four keys twice: the parser records them in one pass, and XP007 reports each, capped per rule; a ConfigMap is the error.",
				Kind:        KindPackageYAML,
				Expect:      rule(ClassLintError, "XP102"),
				Size:        sizeYAML,
				Write: streamYAML("lint-cost-duplicate-keys", func() []byte {
					return stream(goodProvider, func(i int) string {
						return fmt.Sprintf("---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: x%d\nspec:\n  a: 1\n  a: 2\n  b: 1\n  b: 2\n  c: 1\n  c: 2\n  d: 1\n  d: 2\n", i)
					}, errorTail)
				}),
			},
		},
		{
			rules: []string{"XP008"},
			Case: Case{
				Name:        "lint-cost-meta-file-name",
				Description: "A package directory of 2,000 YAML files, the meta object in the last one and not in crossplane.yaml (XP008, once): every file is listed and parsed once; a ConfigMap is the error.",
				Kind:        KindPackageDir,
				Expect:      rule(ClassLintError, "XP102"),
				Size:        110_000,
				Write: func(ctx context.Context, dir string) (string, error) {
					out, err := caseOutput(dir, "lint-cost-meta-file-name", KindPackageDir)
					if err != nil {
						return "", err
					}
					if err := os.MkdirAll(filepath.Join(out, "crds"), 0o755); err != nil {
						return "", err
					}
					for i := range 2_000 {
						if err := ctx.Err(); err != nil {
							return "", err
						}
						doc := fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c%d\n", i)
						if err := os.WriteFile(filepath.Join(out, "crds", fmt.Sprintf("c%04d.yaml", i)), []byte(doc), 0o644); err != nil {
							return "", err
						}
					}
					return out, os.WriteFile(filepath.Join(out, "zz-meta.yaml"), []byte(goodProvider), 0o644)
				},
			},
		},
	}, append(append(parserLintWorstCases(), xrdDesignWorstCase()), targetsLintWorstCases()...)...)
}

// xrdDesignWorstCase gives the XRD design rules (XP750-XP758) the most
// fields to report: a Configuration with an XRD of 20,000 spec and status
// fields, each of a shape some rule reports, and an XRD of 2,000 versions
// named against Kubernetes' version naming.
func xrdDesignWorstCase() lintWorst {
	return lintWorst{
		rules: []string{"XP750", "XP751", "XP752", "XP753", "XP754", "XP755", "XP756", "XP757", "XP758"},
		Case: Case{
			Name: "lint-cost-xrd-design",
			Description: "A Configuration whose XRD has 20,000 spec and status fields (booleans, enums without defaults, arrays of objects without keys, " +
				"required fields without descriptions, required and bounded status fields) and an XRD of 2,000 badly named versions: " +
				"each field visited once per version, each rule capped; a ConfigMap is the error.",
			Kind:   KindPackageYAML,
			Expect: rule(ClassLintError, "XP102"),
			Size:   int64(lintCostBytes),
			Write: streamYAML("lint-cost-xrd-design", func() []byte {
				var b strings.Builder
				b.WriteString("apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata:\n  name: hostile-design\n")
				b.WriteString("---\napiVersion: apiextensions.crossplane.io/v2\nkind: CompositeResourceDefinition\nmetadata:\n  name: xdesigns.example.org\nspec:\n" +
					"  group: example.org\n  names: {kind: XDesign, plural: xdesigns}\n  versions:\n  - name: v1\n    served: true\n    referenceable: true\n" +
					"    schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n          spec:\n            type: object\n" +
					"            x-kubernetes-preserve-unknown-fields: true\n            required: [")
				const fields = 4_000
				for i := 0; i < fields; i++ {
					if i > 0 {
						b.WriteString(", ")
					}
					fmt.Fprintf(&b, "r%d", i)
				}
				b.WriteString("]\n            properties:\n")
				for i := 0; i < fields; i++ {
					fmt.Fprintf(&b, "              b%d: {type: boolean}\n              e%d: {type: string, enum: [A, B]}\n              r%d: {type: string}\n", i, i, i)
					fmt.Fprintf(&b, "              l%d: {type: array, items: {type: object, properties: {x: {type: string}}}}\n", i)
				}
				b.WriteString("          status:\n            type: object\n            required: [")
				for i := 0; i < fields; i++ {
					if i > 0 {
						b.WriteString(", ")
					}
					fmt.Fprintf(&b, "s%d", i)
				}
				b.WriteString("]\n            properties:\n")
				for i := 0; i < fields; i++ {
					fmt.Fprintf(&b, "              s%d: {type: integer, maximum: 10}\n", i)
				}
				b.WriteString("---\napiVersion: apiextensions.crossplane.io/v2\nkind: CompositeResourceDefinition\nmetadata:\n  name: xnames.example.org\nspec:\n" +
					"  group: example.org\n  names: {kind: XName, plural: xnames}\n  versions:\n")
				for i := 0; i < 2_000; i++ {
					fmt.Fprintf(&b, "  - {name: version-%d, served: true, referenceable: %t, schema: {openAPIV3Schema: {type: object}}}\n", i, i == 0)
				}
				b.WriteString(errorTail)
				return []byte(b.String())
			}),
		},
	}
}
