package hostile

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
)

// schemaWorst is the worst case of one or more schema keywords the
// validator of linter/schema checks (internal/schemakwtest): a package whose
// schemas and objects give the keyword the most work per byte, through the
// rules that validate (XP408 examples, XP409 composed resources, XP005
// the package's own kinds).
type schemaWorst struct {
	// keywords are the schema keywords the case attacks; every keyword of
	// schemakwtest.Keywords must be named by some case
	// (TestSchemaWorstCasesCoverEveryKeyword).
	keywords []string
	// rules are the rules that must report on the case.
	rules []string
	Case
}

// schemaCostCases returns the schema validation worst cases.
func schemaCostCases() []Case {
	ws := schemaWorstCases()
	cs := make([]Case, len(ws))
	for i, w := range ws {
		cs[i] = w.Case
	}
	return cs
}

// schemaCRD returns a CustomResourceDefinition of example.org/v1 kind with
// the given openAPIV3Schema (JSON, which YAML's flow style reads) for spec.
func schemaCRD(kind, spec string) string {
	lower := strings.ToLower(kind)
	return "---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: " + lower + "s.example.org\nspec:\n  group: example.org\n" +
		"  names: {kind: " + kind + ", plural: " + lower + "s}\n  scope: Cluster\n  versions:\n  - name: v1\n    served: true\n    storage: true\n" +
		"    schema:\n      openAPIV3Schema: {type: object, properties: {spec: " + spec + "}}\n"
}

// schemaXRDWith returns an XRD of example.org/v1 XThing whose spec has the
// given schema (JSON).
func schemaXRDWith(spec string) string {
	return "---\napiVersion: apiextensions.crossplane.io/v1\nkind: CompositeResourceDefinition\nmetadata:\n  name: xthings.example.org\nspec:\n  group: example.org\n" +
		"  names: {kind: XThing, plural: xthings}\n  versions:\n  - name: v1\n    served: true\n    referenceable: true\n" +
		"    schema:\n      openAPIV3Schema: {type: object, properties: {spec: " + spec + "}}\n"
}

// example returns an object of example.org/v1 kind named name whose spec is
// the given JSON.
func example(kind, name, spec string) string {
	return "---\napiVersion: example.org/v1\nkind: " + kind + "\nmetadata:\n  name: " + name + "\nspec: " + spec + "\n"
}

// composing returns a Configuration's Composition (of an unrelated
// composite type) whose function-patch-and-transform input composes one
// XThing with the given spec (JSON).
func composing(spec string) string {
	return "---\napiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata:\n  name: composes-xthing\nspec:\n" +
		"  compositeTypeRef: {apiVersion: example.org/v1, kind: XOther}\n  mode: Pipeline\n  pipeline:\n  - step: pt\n" +
		"    functionRef: {name: function-patch-and-transform}\n    input:\n      apiVersion: pt.fn.crossplane.io/v1beta1\n      kind: Resources\n" +
		"      resources:\n      - name: r\n        base: {apiVersion: example.org/v1, kind: XThing, spec: " + spec + "}\n"
}

// list returns a JSON list of n items, item(i) each.
func list(n int, item func(i int) string) string {
	var b strings.Builder
	b.WriteByte('[')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(item(i))
	}
	b.WriteByte(']')
	return b.String()
}

// repeat returns n copies of s as a JSON list.
func repeat(n int, s string) string { return list(n, func(int) string { return s }) }

// props returns a JSON object of n properties p0… each with schema s.
func props(n int, s string) string {
	var b strings.Builder
	b.WriteByte('{')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "p%d: %s", i, s)
	}
	b.WriteByte('}')
	return b.String()
}

// names returns a JSON list of the n names p0….
func names(n int) string { return list(n, func(i int) string { return fmt.Sprintf("p%d", i) }) }

// schemaExamplesDir is the Write function of a package directory whose
// crossplane.yaml holds pkg, and whose examples/examples.yaml holds the
// examples examples returns.
func schemaExamplesDir(name, pkg string, examples func() string) func(context.Context, string) (string, error) {
	return packageDirWithExamples(name,
		func(w io.Writer) error { _, err := io.WriteString(w, pkg); return err },
		func(w io.Writer) error { _, err := io.WriteString(w, examples()); return err })
}

// crdExamples is a Provider package directory with one CRD of kind Thing
// whose spec has the schema spec, and a ConfigMap (the error every hostile
// case needs); its examples are one whose spec is data, and a probe with
// an unknown field, so that XP408 reports whatever the first draws.
func crdExamples(name, spec string, data func() string) func(context.Context, string) (string, error) {
	return schemaExamplesDir(name, goodProvider+schemaCRD("Thing", spec)+errorTail, func() string {
		return example("Thing", "hostile", data()) + example("Thing", "probe", "{unknown: 1}")
	})
}

// composed is a Configuration package.yaml with an XRD of XThing whose spec
// has the schema spec, and a Composition composing an XThing whose spec is
// data, and a ConfigMap.
func composed(name, spec string, data func() string) func(context.Context, string) (string, error) {
	return streamYAML(name, func() []byte {
		var b bytes.Buffer
		b.WriteString(badConfiguration)
		b.WriteString(schemaXRDWith(spec))
		b.WriteString(composing(data()))
		b.WriteString(errorTail)
		return b.Bytes()
	})
}

// The shapes (issue 17, defects 1 and 2), at its sizes.
const (
	defaultInts      = 50_000  // ints in a default
	defaultItems     = 20_000  // list items that each take it
	enumValues       = 10_000  // values of an enum (MaxEnum)
	enumItems        = 20_000  // items outside it
	longPatternBytes = 4_000   // a literal pattern of that many bytes
	patternItems     = 100_000 // items that fail it
	bigCRDs          = 6       // CRDs of bigCRDProps properties
	bigCRDProps      = 50_000  // each with one example
	uniqueStrings    = 100_000 // distinct strings of a uniqueItems list
	manyProps        = 20_000  // properties of an item schema
	emptyItems       = 80_000  // empty items of that schema
	anyOfBranches    = 1_000   // branches of an anyOf
	branchItems      = 100_000 // items each validated by every branch
	objectKeys       = 70_000  // keys of an object, one violation each
	mapKeys          = 10_000  // keys of a list-type map
	regexRepeat      = 1_000   // the {n} of ^([a-z]+.){n}z$
	regexInputBytes  = 512 << 10
	embeddedItems    = 80_000 // embedded resources, each missing apiVersion and kind
)

func schemaWorstCases() []schemaWorst {
	xp408 := []string{"XP408"}
	return []schemaWorst{
		{
			keywords: []string{"default"}, rules: xp408,
			Case: Case{
				Name: "schema-cost-default",
				Description: fmt.Sprintf("A CRD whose list items have a field with a default of %d integers, and an example with %d empty items: "+
					"the default was copied into each item (over 1.5 GiB); it is shared, and its own violations found once per schema node.", defaultInts, defaultItems),
				Kind:   KindPackageDir,
				Expect: rule(ClassLintError, "XP102"),
				Size:   440_000,
				Write: crdExamples("schema-cost-default",
					`{type: object, properties: {items: {type: array, items: {type: object, properties: {d: {type: array, items: {type: integer}, default: `+
						list(defaultInts, func(i int) string { return fmt.Sprint(i) })+`}, x: {type: string}}}}}}`,
					func() string { return "{items: " + repeat(defaultItems, "{x: 1}") + "}" }),
			},
		},
		{
			keywords: []string{"default", "properties"}, rules: []string{"XP409"},
			Case: Case{
				Name: "schema-cost-default-composed",
				Description: fmt.Sprintf("The default of %d integers of schema-cost-default in an XRD, applied to each of %d items of a Composition's composed resource (XP409); "+
					"the Composition's base also holds a mistyped field of the Composition itself (XP005).", defaultInts, defaultItems),
				Kind:   KindPackageYAML,
				Expect: rule(ClassLintError, "XP005"),
				Size:   430_000,
				Write: func(ctx context.Context, dir string) (string, error) {
					return composed("schema-cost-default-composed",
						`{type: object, properties: {items: {type: array, items: {type: object, properties: {d: {type: array, items: {type: integer}, default: `+
							list(defaultInts, func(i int) string { return fmt.Sprint(i) })+`}, x: {type: string}}}}}}`,
						func() string { return "{items: " + repeat(defaultItems, "{x: 1}") + "}}\n      - {name: 5, base: {}" })(ctx, dir)
				},
			},
		},
		{
			keywords: []string{"enum"}, rules: xp408,
			Case: Case{
				Name: "schema-cost-enum",
				Description: fmt.Sprintf("An enum of %d values (MaxEnum) and %d items outside it: kube-openapi compared each item with every value and listed them all in each message "+
					"(808 MiB, 83 s); the walker looks values up in a set and names a few.", enumValues, enumItems),
				Kind:   KindPackageDir,
				Expect: rule(ClassLintError, "XP102"),
				Size:   125_000,
				Write: crdExamples("schema-cost-enum",
					`{type: object, properties: {l: {type: array, items: {type: string, enum: `+list(enumValues, func(i int) string { return fmt.Sprintf("v%d", i) })+`}}}}`,
					func() string { return "{l: " + repeat(enumItems, "zz") + "}" }),
			},
		},
		{
			keywords: []string{"pattern"}, rules: xp408,
			Case: Case{
				Name: "schema-cost-pattern-long",
				Description: fmt.Sprintf("A literal pattern of %d bytes failed by %d items: the pattern was copied into every violation (484 MiB); "+
					"it is shortened in each, and violations are capped per validation.", longPatternBytes, patternItems),
				Kind:   KindPackageDir,
				Expect: rule(ClassLintError, "XP102"),
				Size:   213_000,
				Write: crdExamples("schema-cost-pattern-long",
					`{type: object, properties: {l: {type: array, items: {type: string, pattern: "`+strings.Repeat("a", longPatternBytes)+`"}}}}`,
					func() string { return "{l: " + repeat(patternItems, "b") + "}" }),
			},
		},
		{
			keywords: []string{"pattern"}, rules: xp408,
			Case: Case{
				Name: "schema-cost-pattern-program",
				Description: fmt.Sprintf("The 18-byte pattern ^([a-z]+.){%d}z$, whose compiled program is thousands of instructions, over a string of %d bytes (17.7 s): "+
					"the pattern limit counts the program (MaxPatternProgram), so it is left out; the same string against {%d}, within the limit, "+
					"is counted against MaxCost (its length times the program's).", regexRepeat, regexInputBytes, regexRepeat/4),
				Kind:   KindPackageDir,
				Expect: rule(ClassLintError, "XP102"),
				Size:   533_000,
				Write: crdExamples("schema-cost-pattern-program",
					fmt.Sprintf(`{type: object, properties: {s: {type: string, pattern: "^([a-z]+.){%d}z$"}, t: {type: string, pattern: "^([a-z]+.){%d}z$"}}}`, regexRepeat, regexRepeat/4),
					func() string { return "{s: &s " + strings.Repeat("ab", regexInputBytes/2) + ", t: *s}" }),
			},
		},
		{
			keywords: []string{"properties"}, rules: xp408,
			Case: Case{
				Name: "schema-cost-compiled-schemas",
				Description: fmt.Sprintf("A Provider with %d CRDs of %d properties each and one tiny example of each: every compiled schema stayed alive (336 MiB, 15 s); "+
					"compiled schemas beyond MaxRetainedNodes are released.", bigCRDs, bigCRDProps),
				Kind:   KindPackageDir,
				Expect: rule(ClassLintError, "XP102"),
				Size:   3_250_000,
				Heavy:  true,
				Write: func(ctx context.Context, dir string) (string, error) {
					pkg := goodProvider
					var ex strings.Builder
					for i := range bigCRDs {
						kind := fmt.Sprintf("Big%d", i)
						pkg += schemaCRD(kind, `{type: object, properties: `+props(bigCRDProps, "{}")+`}`)
						ex.WriteString(example(kind, "tiny", "{p1: 1, unknown: 1}"))
					}
					return schemaExamplesDir("schema-cost-compiled-schemas", pkg+errorTail, ex.String)(ctx, dir)
				},
			},
		},
		{
			keywords: []string{"uniqueItems"}, rules: xp408,
			Case: Case{
				Name:        "schema-cost-unique-items",
				Description: fmt.Sprintf("uniqueItems over %d distinct strings (and one repeat at the end): kube-openapi compares pairs; the walker hashes.", uniqueStrings),
				Kind:        KindPackageDir,
				Expect:      rule(ClassLintError, "XP102"),
				Size:        700_000,
				Write: crdExamples("schema-cost-unique-items",
					`{type: object, properties: {l: {type: array, uniqueItems: true, items: {type: string}}}}`,
					func() string {
						return "{l: " + list(uniqueStrings, func(i int) string { return fmt.Sprintf("s%d", i%(uniqueStrings-1)) }) + "}"
					}),
			},
		},
		{
			keywords: []string{"properties", "items"}, rules: xp408,
			Case: Case{
				Name: "schema-cost-properties",
				Description: fmt.Sprintf("An item schema of %d properties and %d empty items: kube-openapi visits every property of the schema for each item; "+
					"the walker visits the item's fields.", manyProps, emptyItems),
				Kind:   KindPackageDir,
				Expect: rule(ClassLintError, "XP102"),
				Size:   700_000,
				Write: crdExamples("schema-cost-properties",
					`{type: object, properties: {l: {type: array, items: {type: object, properties: `+props(manyProps, "{type: string}")+`}}}}`,
					func() string { return "{l: " + repeat(emptyItems, "{}") + "}" }),
			},
		},
		{
			keywords: []string{"required", "items"}, rules: xp408,
			Case: Case{
				Name: "schema-cost-required",
				Description: fmt.Sprintf("An item schema requiring %d fields and %d empty items: %d million missing fields; the work is counted against MaxCost "+
					"and the validation stops there, reported as not validated.", manyProps/4, emptyItems, manyProps/4*emptyItems/1_000_000),
				Kind:   KindPackageDir,
				Expect: rule(ClassLintError, "XP102"),
				Size:   387_000,
				Write: crdExamples("schema-cost-required",
					`{type: object, properties: {l: {type: array, items: {type: object, required: `+names(manyProps/4)+`, properties: `+props(manyProps/4, "{type: string}")+`}}}}`,
					func() string { return "{l: " + repeat(emptyItems, "{}") + "}" }),
			},
		},
		{
			keywords: []string{"anyOf"}, rules: []string{"XP409"},
			Case: Case{
				Name: "schema-cost-any-of",
				Description: fmt.Sprintf("An anyOf of %d branches over each of %d items of a composed resource: each branch validates each item again; "+
					"branches times the value's size are counted against MaxCost.", anyOfBranches, branchItems),
				Kind:   KindPackageYAML,
				Expect: rule(ClassLintError, "XP102"),
				Size:   2_700_000,
				Write: composed("schema-cost-any-of",
					`{type: object, properties: {l: {type: array, items: {type: string, anyOf: `+list(anyOfBranches, func(i int) string { return fmt.Sprintf("{maxLength: %d}", i) })+`}}}}`,
					func() string { return "{l: " + repeat(branchItems, "abcdefghijklmnopqrstuvwxyz") + "}" }),
			},
		},
		{
			keywords: []string{"oneOf", "allOf", "not"}, rules: []string{"XP409"},
			Case: Case{
				Name:        "schema-cost-combinators",
				Description: fmt.Sprintf("oneOf, allOf and a not of an anyOf, 340 branches each, over each of %d items of a composed resource: counted against MaxCost.", branchItems),
				Kind:        KindPackageYAML,
				Expect:      rule(ClassLintError, "XP102"),
				Size:        320_000,
				Write: composed("schema-cost-combinators",
					`{type: object, properties: {l: {type: array, items: {type: string, `+
						`oneOf: `+list(340, func(i int) string { return fmt.Sprintf("{maxLength: %d}", i) })+`, `+
						`allOf: `+list(340, func(i int) string { return fmt.Sprintf("{minLength: %d}", i%3) })+`, `+
						`not: {anyOf: `+list(340, func(i int) string { return fmt.Sprintf("{minLength: %d}", 1000+i) })+`}}}}}`,
					func() string { return "{l: " + repeat(branchItems, "ab") + "}" }),
			},
		},
		{
			keywords: []string{"additionalProperties"}, rules: xp408,
			Case: Case{
				Name: "schema-cost-additional-properties",
				Description: fmt.Sprintf("An object of %d keys whose additionalProperties want an integer, each a string: one violation per key, whose path was found by scanning every key; "+
					"paths are known where found, and violations capped per validation.", objectKeys),
				Kind:   KindPackageDir,
				Expect: rule(ClassLintError, "XP102"),
				Size:   770_000,
				Write: crdExamples("schema-cost-additional-properties",
					`{type: object, properties: {m: {type: object, additionalProperties: {type: integer}}}}`,
					func() string {
						var b strings.Builder
						b.WriteString("{m: {")
						for i := range objectKeys {
							if i > 0 {
								b.WriteByte(',')
							}
							fmt.Fprintf(&b, "k.%d: x", i)
						}
						b.WriteString("}}")
						return b.String()
					}),
			},
		},
		{
			keywords: []string{"x-kubernetes-list-type", "x-kubernetes-list-map-keys"}, rules: xp408,
			Case: Case{
				Name: "schema-cost-list-map",
				Description: fmt.Sprintf("A list-type map of %d keys and %d empty items (18.6 s): each item's key was built from every key; "+
					"it is built from the fewer of the item's fields and the keys.", mapKeys, emptyItems),
				Kind:   KindPackageDir,
				Expect: rule(ClassLintError, "XP102"),
				Size:   525_000,
				Write: crdExamples("schema-cost-list-map",
					`{type: object, properties: {l: {type: array, x-kubernetes-list-type: map, x-kubernetes-list-map-keys: `+names(mapKeys)+
						`, items: {type: object, properties: `+props(mapKeys, "{type: string}")+`}}}}`,
					func() string { return "{l: " + repeat(emptyItems, "{}") + "}" }),
			},
		},
		{
			keywords: []string{"x-kubernetes-list-type"}, rules: xp408,
			Case: Case{
				Name:        "schema-cost-list-set",
				Description: fmt.Sprintf("A list-type set of %d objects, each repeated: one duplicate per pair, hashed, capped per validation.", uniqueStrings),
				Kind:        KindPackageDir,
				Expect:      rule(ClassLintError, "XP102"),
				Size:        690_000,
				Write: crdExamples("schema-cost-list-set",
					`{type: object, properties: {l: {type: array, x-kubernetes-list-type: set, items: {type: string}}}}`,
					func() string {
						return "{l: " + list(uniqueStrings, func(i int) string { return fmt.Sprintf("s%d", i/2) }) + "}"
					}),
			},
		},
		{
			keywords: []string{"x-kubernetes-embedded-resource", "x-kubernetes-preserve-unknown-fields"}, rules: xp408,
			Case: Case{
				Name:        "schema-cost-embedded",
				Description: fmt.Sprintf("%d embedded resources without apiVersion or kind: two violations each, capped per validation.", embeddedItems),
				Kind:        KindPackageDir,
				Expect:      rule(ClassLintError, "XP102"),
				Size:        250_000,
				Write: crdExamples("schema-cost-embedded",
					`{type: object, properties: {l: {type: array, items: {type: object, x-kubernetes-embedded-resource: true, x-kubernetes-preserve-unknown-fields: true}}}}`,
					func() string { return "{l: " + repeat(embeddedItems, "{}") + "}" }),
			},
		},
		{
			keywords: []string{"type", "format", "nullable", "maxLength", "minLength", "maximum", "minimum", "exclusiveMaximum", "exclusiveMinimum",
				"multipleOf", "maxItems", "minItems", "maxProperties", "minProperties", "x-kubernetes-int-or-string", "x-kubernetes-preserve-unknown-fields"},
			rules: xp408,
			Case: Case{
				Name:        "schema-cost-value-checks",
				Description: "5,000 items each failing a type, a format, lengths, ranges, a multiple, item and property counts and an int-or-string: violations capped per validation.",
				Kind:        KindPackageDir,
				Expect:      rule(ClassLintError, "XP102"),
				Size:        455_000,
				Write: crdExamples("schema-cost-value-checks",
					`{type: object, properties: {l: {type: array, items: {type: object, properties: {`+
						`s: {type: string, maxLength: 1, minLength: 0, format: date-time}, t: {type: string, minLength: 5}, `+
						`num: {type: integer, maximum: 1, minimum: 0, exclusiveMaximum: true, multipleOf: 2}, m: {type: number, minimum: 10, exclusiveMinimum: true}, `+
						`l: {type: array, maxItems: 0, minItems: 0}, k: {type: array, minItems: 3}, o: {type: object, maxProperties: 0, x-kubernetes-preserve-unknown-fields: true}, `+
						`q: {type: object, minProperties: 2, x-kubernetes-preserve-unknown-fields: true}, `+
						`i: {x-kubernetes-int-or-string: true}, z: {type: string, nullable: true}, b: {type: boolean}}}}}}`,
					func() string {
						return "{l: " + repeat(5_000, "{s: toolong, t: a, num: 7, m: 1.5, l: [1], k: [], o: {a: 1}, q: {}, i: [], z: null, b: x}") + "}"
					}),
			},
		},
		{
			keywords: []string{"type"}, rules: []string{"XP005"},
			Case: Case{
				Name:        "schema-cost-package-kinds",
				Description: "A Composition of 30,000 pipeline steps, each with a mistyped step name: the type check of the package's own kinds (XP005) is linear, capped per rule.",
				Kind:        KindPackageYAML,
				Expect:      rule(ClassLintError, "XP005"),
				Size:        300_000,
				Write: streamYAML("schema-cost-package-kinds", func() []byte {
					return []byte(badConfiguration + "---\napiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata:\n  name: steps\nspec:\n" +
						"  compositeTypeRef: {apiVersion: example.org/v1, kind: XOther}\n  mode: Pipeline\n  pipeline: " +
						repeat(30_000, "{step: 5}") + "\n")
				}),
			},
		},
	}
}
