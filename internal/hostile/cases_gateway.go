package hostile

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// The gateway cases' sizes (issue 30, classes 1, 2, 3 and 10, and the
// pattern too costly to compile).
const (
	gatewayDefaultItems    = 39_000 // items of a default, each of the wrong type (79 KB)
	gatewayRuleCount       = 20_000 // CEL rules in one schema (782 KB)
	gatewayAliasedRules    = 25     // long rules of one version's schema, aliased
	gatewayAliasedBytes    = 4_700  // bytes of each (117 KB a version, 3.5 MB over the versions)
	gatewayAliasVersions   = 30     // versions that alias that schema
	gatewayLongRules       = 200    // long rules of one schema
	gatewayLongCRDs        = 3      // CRDs of such a schema (the parser's node limit caps one document at about 1.5 MB of them)
	gatewayLongRuleBytes   = 5_000  // bytes of each (1 MB a CRD)
	gatewayRegexExamples   = 300    // examples that each bring a pattern
	gatewayRegexInput      = 400    // bytes of the string each matches
	gatewayRegexDefaults   = 1_000  // items of a default that each bring a pattern
	gatewayPatternDefaults = 1_000  // fields with a pattern and a default
	gatewayRegexLiterals   = 500    // rules with a literal pattern
	gatewayXRDProperties   = 19_000 // properties of the 8 MB XRD (under the parser's node limit)
	gatewayXRDDescription  = 400    // bytes of each property's description
	gatewayBigXRDs         = 5      // XRDs of the five-XRD case
	gatewayRegexPattern    = `(?:a?a?a?a?a?a?a?a?){999}x`
	gatewayRegexHead       = `(?:a?a?a?a?a?a?a?a?)`
	gatewayRegexTail       = `{999}x`
)

// gatewayCases are the worst cases of the calls into the API server's code
// (linter/apiserver's gateway): the CRD's structural and default
// checks (XP420, and XP421 on the CRDs derived from an XRD), CEL
// compilation (rules by count and by bytes, aliased across versions), CEL
// evaluation of regular expressions built from an example's data (XP408),
// large XRDs through XP421 and XP422, and a schema pattern too costly to
// compile. Each is an error package (a ConfigMap, or a CRD not named
// plural.group) with or without linter/apiserver.
func gatewayCases() []Case {
	lintErr := rule(ClassLintError, "XP102")
	return []Case{
		{
			Name: "gateway-default-items-crd",
			Description: fmt.Sprintf("A CRD whose list field's default holds %d integers where strings are wanted (79 KB): the API server's default check "+
				"reports each item, and kube-openapi merges each error by comparing it with every one before it (quadratic: 14 s under XP420). "+
				"The gateway counts the default's values first and refuses beyond its limit (info, not validated).", gatewayDefaultItems),
			Kind:   KindPackageYAML,
			Expect: lintErr,
			Size:   80 << 10,
			Write: streamYAML("gateway-default-items-crd", func() []byte {
				return []byte(goodProvider + schemaCRD("Thing", gatewayDefaultSpec()) + errorTail)
			}),
		},
		{
			Name:        "gateway-default-items-xrd",
			Description: "The default of gateway-default-items-crd in an XRD's schema: the same quadratic step under XP421 (13 s), which had no pre-check at all.",
			Kind:        KindPackageYAML,
			Expect:      lintErr,
			Size:        80 << 10,
			Write: streamYAML("gateway-default-items-xrd", func() []byte {
				return []byte(badConfiguration + schemaXRDWith(gatewayDefaultSpec()) + errorTail)
			}),
		},
		{
			Name: "gateway-cel-aliased-versions",
			Description: fmt.Sprintf("A CRD of %d versions whose schemas alias one schema of %d rules of %d bytes, and an example of each version: "+
				"the CEL extension (XP408) compiles each version's rules (3.5 MB in all; the issue's 470 KB across 30 versions took 20 s). "+
				"Compilation is charged by bytes, each version's validator counted.", gatewayAliasVersions, gatewayAliasedRules, gatewayAliasedBytes),
			Kind:   KindPackageDir,
			Expect: rule(ClassLintError, "XP401"),
			Size:   int64(gatewayAliasedRules * (gatewayAliasedBytes + 20)),
			Write: celDir("gateway-cel-aliased-versions", func() string {
				var b strings.Builder
				b.WriteString("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: thing.cel.example.org # not plural.group: XP401\nspec:\n" +
					"  group: cel.example.org\n  names: {kind: Thing, plural: things}\n  scope: Cluster\n  versions:\n")
				for v := range gatewayAliasVersions {
					fmt.Fprintf(&b, "  - name: v%d\n    served: true\n    storage: %t\n    schema:\n", v+1, v == 0)
					if v > 0 {
						b.WriteString("      openAPIV3Schema: *s\n")
						continue
					}
					b.WriteString("      openAPIV3Schema: &s\n        type: object\n        properties:\n          spec:\n            type: object\n" +
						"            properties:\n              num: {type: integer}\n            x-kubernetes-validations:\n")
					for i := range gatewayAliasedRules {
						fmt.Fprintf(&b, "            - rule: %q\n", longRule(i, gatewayAliasedBytes))
					}
				}
				return b.String()
			}, func() string {
				var b strings.Builder
				for v := range gatewayAliasVersions {
					fmt.Fprintf(&b, "---\napiVersion: cel.example.org/v%d\nkind: Thing\nmetadata:\n  name: t%d\nspec:\n  num: 1\n", v+1, v)
				}
				return b.String()
			}),
		},
		{
			Name:        "gateway-cel-rules-crd",
			Description: fmt.Sprintf("A CRD of %d short CEL rules (782 KB): compiling each in its own environment took 409 MiB under XP420.", gatewayRuleCount),
			Kind:        KindPackageYAML,
			Expect:      lintErr,
			Size:        800 << 10,
			Write: streamYAML("gateway-cel-rules-crd", func() []byte {
				return []byte(goodProvider + schemaCRD("Thing", manyRulesSpec()) + errorTail)
			}),
		},
		{
			Name:        "gateway-cel-rules-xrd",
			Description: fmt.Sprintf("The %d rules of gateway-cel-rules-crd in an XRD with a claim: two derived CRDs to compile under XP421 (30 s, 424 MiB).", gatewayRuleCount),
			Kind:        KindPackageYAML,
			Expect:      lintErr,
			Size:        800 << 10,
			Write: streamYAML("gateway-cel-rules-xrd", func() []byte {
				return []byte(badConfiguration + claimXRD(manyRulesSpec(), "") + errorTail)
			}),
		},
		{
			Name:        "gateway-cel-long-rules",
			Description: fmt.Sprintf("%d CRDs of %d CEL rules of %d bytes each (3 MB): the rule count is small, the bytes to compile are not (the issue's 1.5 MB: over 40 s).", gatewayLongCRDs, gatewayLongRules, gatewayLongRuleBytes),
			Kind:        KindPackageYAML,
			Expect:      lintErr,
			Size:        int64(gatewayLongCRDs * gatewayLongRules * (gatewayLongRuleBytes + 20)),
			Write: streamYAML("gateway-cel-long-rules", func() []byte {
				var b strings.Builder
				b.WriteString(goodProvider)
				for c := range gatewayLongCRDs {
					fmt.Fprintf(&b, "---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: things%d.example.org\nspec:\n"+
						"  group: example.org\n  names: {kind: Thing%d, plural: things%d}\n  scope: Cluster\n  versions:\n"+
						"  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        type: object\n"+
						"        properties:\n          num: {type: integer}\n        x-kubernetes-validations:\n", c, c, c)
					for i := range gatewayLongRules {
						fmt.Fprintf(&b, "        - rule: %q\n", longRule(i, gatewayLongRuleBytes))
					}
				}
				b.WriteString(errorTail)
				return []byte(b.String())
			}),
		},
		{
			Name: "gateway-run-rule-bytes-at-cap",
			Description: "9 CRDs of 24 CEL rules of 5,000 bytes each (120 KB a CRD, under the per-CRD limit; 1.1 MB in all): the " +
				"run's budget of rule bytes (1 MiB, which provider-upjet-aws-monolith's 2,065 CRDs stay under: 512 KiB refused 113 of them) " +
				"validates the first 8 and refuses the last, reported as not validated.",
			Kind:   KindPackageYAML,
			Expect: lintErr,
			Size:   1 << 20,
			Write:  yamlCase("gateway-run-rule-bytes-at-cap", func(w io.Writer) error { return runBudgetCRDs(w, 9, 24, gatewayLongRuleBytes) }),
		},
		{
			Name: "gateway-run-rules-at-cap",
			Description: "21 CRDs of 1,990 short CEL rules each (under the per-CRD limit of 2,000; 41,790 in all): the run's budget of " +
				"40,000 rules validates the first 20 and refuses the last, reported as not validated.",
			Kind:   KindPackageYAML,
			Expect: lintErr,
			Size:   1500 << 10,
			Write:  yamlCase("gateway-run-rules-at-cap", func(w io.Writer) error { return runBudgetCRDs(w, 21, 1990, 0) }),
		},
		{
			Name: "gateway-regex-data",
			Description: fmt.Sprintf("A rule self.s.matches(self.p) and %d examples whose p is the %d-byte pattern %s and s %d a's (about 130 KB): "+
				"the cost model prices matches() by the pattern's length, but Go's regexp works in the compiled program's size (thousands of "+
				"instructions): 20 s, and no word. A regular expression not known before evaluation is priced at the largest program a pattern "+
				"of its length compiles to.", gatewayRegexExamples, len(gatewayRegexPattern), gatewayRegexPattern, gatewayRegexInput),
			Kind:   KindPackageDir,
			Expect: rule(ClassLintError, "XP401"),
			Size:   int64(gatewayRegexExamples * (gatewayRegexInput + 100)),
			Write: celDir("gateway-regex-data", func() string {
				return celCRD("              s: {type: string, maxLength: 1000}\n              p: {type: string, maxLength: 64}\n",
					"            - rule: \"!self.s.matches(self.p)\"\n")
			}, func() string {
				s := strings.Repeat("a", gatewayRegexInput)
				return things(gatewayRegexExamples, func(int) string { return "  s: " + s + "\n  p: '" + gatewayRegexPattern + "'\n" })
			}),
		},
		{
			Name:        "gateway-regex-concat",
			Description: "The pattern of gateway-regex-data concatenated from two pieces of the example's data (self.a + self.b) and from two literals: no literal the rule holds is the pattern.",
			Kind:        KindPackageDir,
			Expect:      rule(ClassLintError, "XP401"),
			Size:        int64(gatewayRegexExamples * (gatewayRegexInput + 100)),
			Write: celDir("gateway-regex-concat", func() string {
				return celCRD("              s: {type: string, maxLength: 1000}\n              a: {type: string, maxLength: 64}\n              b: {type: string, maxLength: 64}\n",
					"            - rule: \"!self.s.matches(self.a + self.b)\"\n"+
						"            - rule: \"!self.s.matches('"+gatewayRegexHead+"' + '"+gatewayRegexTail+"')\"\n")
			}, func() string {
				s := strings.Repeat("a", gatewayRegexInput)
				return things(gatewayRegexExamples, func(int) string {
					return "  s: " + s + "\n  a: '" + gatewayRegexHead + "'\n  b: '" + gatewayRegexTail + "'\n"
				})
			}),
		},
		{
			Name: "gateway-regex-default",
			Description: fmt.Sprintf("A CRD whose list items carry the rule !self.s.matches(self.p), and a default of %d such items, each bringing the pattern %s and %d a's: "+
				"the API server's default check runs the rules on the default, within its cost budget, which prices matches() by the pattern's length. "+
				"The gateway refuses a rule it cannot price under a default (XP420, info, not validated).", gatewayRegexDefaults, gatewayRegexPattern, gatewayRegexInput),
			Kind:   KindPackageYAML,
			Expect: lintErr,
			Size:   int64(gatewayRegexDefaults * (gatewayRegexInput + 50)),
			Write: streamYAML("gateway-regex-default", func() []byte {
				item := fmt.Sprintf("{s: %s, p: '%s'}", strings.Repeat("a", gatewayRegexInput), gatewayRegexPattern)
				spec := "{type: object, properties: {l: {type: array, items: {type: object, properties: {s: {type: string}, p: {type: string}}, " +
					"x-kubernetes-validations: [{rule: '!self.s.matches(self.p)'}]}, default: " + repeat(gatewayRegexDefaults, item) + "}}}"
				return []byte(goodProvider + schemaCRD("Thing", spec) + errorTail)
			}),
		},
		{
			Name: "gateway-pattern-defaults",
			Description: fmt.Sprintf("A CRD of %d string fields, each with its own pattern like %s (16,000 instructions) and a default (76 KB): "+
				"the API server's default check has kube-openapi compile each pattern, and keep it for the life of the process (9.5 s, 794 MiB). "+
				"The gateway estimates the patterns' programs under defaults first (XP420, info, not validated).", gatewayPatternDefaults, gatewayRegexPattern),
			Kind:   KindPackageYAML,
			Expect: lintErr,
			Size:   int64(gatewayPatternDefaults * 76),
			Write: streamYAML("gateway-pattern-defaults", func() []byte {
				var b strings.Builder
				b.WriteString("{type: object, properties: {")
				for i := range gatewayPatternDefaults {
					if i > 0 {
						b.WriteString(", ")
					}
					fmt.Fprintf(&b, "p%d: {type: string, pattern: '%s%d', default: b}", i, gatewayRegexPattern, i)
				}
				b.WriteString("}}")
				return []byte(goodProvider + schemaCRD("Thing", b.String()) + errorTail)
			}),
		},
		{
			Name: "gateway-regex-literals",
			Description: fmt.Sprintf("A CRD of %d CEL rules, each matching a literal pattern like %s (16,000 instructions): the API server's compiler "+
				"compiles each literal pattern with its rule (regex optimization), at a cost the estimated rule cost does not see. "+
				"The gateway estimates the literal patterns' programs with the rules (XP420, info, not validated).", gatewayRegexLiterals, gatewayRegexPattern),
			Kind:   KindPackageYAML,
			Expect: lintErr,
			Size:   int64(gatewayRegexLiterals * 70),
			Write: streamYAML("gateway-regex-literals", func() []byte {
				spec := "{type: object, properties: {s: {type: string, maxLength: 10}}, x-kubernetes-validations: " +
					list(gatewayRegexLiterals, func(i int) string { return fmt.Sprintf(`{rule: "!self.s.matches('%s%d')"}`, gatewayRegexPattern, i) }) + "}"
				return []byte(goodProvider + schemaCRD("Thing", spec) + errorTail)
			}),
		},
		{
			Name: "gateway-xrd-8mb",
			Description: fmt.Sprintf("An XRD of %d properties with %d-byte descriptions and a claim (8 MB, under the document limit), validated by XP421 "+
				"(two derived CRDs) and XP422 (Crossplane's XRD CRD): 2.7 s and 210 MiB.", gatewayXRDProperties, gatewayXRDDescription),
			Kind:   KindPackageYAML,
			Expect: lintErr,
			Heavy:  true,
			Size:   8 << 20,
			Write: streamYAML("gateway-xrd-8mb", func() []byte {
				return []byte(badConfiguration + bigXRD(0) + errorTail)
			}),
		},
		{
			Name:        "gateway-xrd-8mb-five",
			Description: fmt.Sprintf("%d XRDs of gateway-xrd-8mb's shape in one package (40 MB): 17 s.", gatewayBigXRDs),
			Kind:        KindPackageYAML,
			Expect:      lintErr,
			Heavy:       true,
			Size:        gatewayBigXRDs * 8 << 20,
			// Written an XRD at a time: 40 MB never held at once
			// (TestHeavyCases bounds a generator's heap).
			Write: yamlCase("gateway-xrd-8mb-five", func(w io.Writer) error {
				if _, err := io.WriteString(w, badConfiguration); err != nil {
					return err
				}
				for i := range gatewayBigXRDs {
					if _, err := io.WriteString(w, bigXRD(i)); err != nil {
						return err
					}
				}
				_, err := io.WriteString(w, errorTail)
				return err
			}),
		},
		{
			Name: "gateway-pattern-program",
			Description: "A CRD whose string field has the pattern " + gatewayRegexPattern + " (16,000 instructions, beyond MaxPatternProgram) and an example " +
				"that sets it: the pattern is left out, and the example is reported as not validated (info) instead of passing without a word.",
			Kind:   KindPackageDir,
			Expect: rule(ClassLintError, "XP401"),
			Size:   4 << 10,
			Write: celDir("gateway-pattern-program", func() string {
				return celCRD("              s: {type: string, pattern: '"+gatewayRegexPattern+"'}\n", "            - rule: \"true\"\n")
			}, func() string {
				return things(1, func(int) string { return "  s: " + strings.Repeat("a", gatewayRegexInput) + "\n" })
			}),
		},
	}
}

// gatewayDefaultSpec is the schema of the default cases: a list of strings
// whose default holds gatewayDefaultItems integers.
func gatewayDefaultSpec() string {
	return "{type: object, properties: {l: {type: array, items: {type: string}, default: " + repeat(gatewayDefaultItems, "1") + "}}}"
}

// manyRulesSpec is a schema of gatewayRuleCount short rules.
func manyRulesSpec() string {
	return "{type: object, properties: {num: {type: integer}}, x-kubernetes-validations: " +
		list(gatewayRuleCount, func(i int) string { return fmt.Sprintf("{rule: 'self.num != %d'}", 1_000_000+i) }) + "}"
}

// longRule returns a rule of about n bytes on self.num (one comparison per
// 20 bytes), the i-th of its kind.
func longRule(i, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "self.num != %d", i)
	for j := 0; b.Len() < n; j++ {
		fmt.Fprintf(&b, " && self.num != %d", 1_000_000+j)
	}
	return b.String()
}

// claimXRD returns an apiextensions.crossplane.io/v1 XRD of XThing with a
// claim (Thing), whose spec has the schema spec (JSON), named with suffix.
func claimXRD(spec, suffix string) string {
	return "---\napiVersion: apiextensions.crossplane.io/v1\nkind: CompositeResourceDefinition\nmetadata:\n  name: xthings" + suffix + ".example.org\nspec:\n" +
		"  group: example.org\n  names: {kind: XThing" + suffix + ", plural: xthings" + suffix + "}\n  claimNames: {kind: Thing" + suffix + ", plural: things" + suffix + "}\n" +
		"  versions:\n  - name: v1\n    served: true\n    referenceable: true\n" +
		"    schema:\n      openAPIV3Schema: {type: object, properties: {spec: " + spec + "}}\n"
}

// bigXRD returns the i-th XRD of the 8 MB cases: gatewayXRDProperties
// string properties, each with a description, in an XRD with a claim.
func bigXRD(i int) string {
	var b strings.Builder
	b.WriteString("{type: object, properties: {")
	desc := strings.Repeat("d", gatewayXRDDescription)
	for j := range gatewayXRDProperties {
		if j > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "p%d: {type: string, description: %s}", j, desc)
	}
	b.WriteString("}}")
	return claimXRD(b.String(), fmt.Sprint(i))
}

// runBudgetCRDs writes a Provider with crds CRDs of rules CEL rules each,
// each rule longRule's of ruleBytes (0: a short one), then errorTail: the
// run budget's worst cases, each CRD under the per-call limits.
func runBudgetCRDs(w io.Writer, crds, rules, ruleBytes int) error {
	bw := bufio.NewWriter(w)
	bw.WriteString(goodProvider)
	for c := range crds {
		fmt.Fprintf(bw, "---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: things%d.example.org\nspec:\n"+
			"  group: example.org\n  names: {kind: Thing%d, plural: things%d}\n  scope: Cluster\n  versions:\n"+
			"  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        type: object\n"+
			"        properties:\n          num: {type: integer}\n        x-kubernetes-validations:\n", c, c, c)
		for i := range rules {
			r := fmt.Sprintf("self.num != %d", i)
			if ruleBytes > 0 {
				r = longRule(i, ruleBytes)
			}
			fmt.Fprintf(bw, "        - rule: %q\n", r)
		}
	}
	bw.WriteString(errorTail)
	return bw.Flush()
}
