package hostile

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// celProvider is the meta file of the CEL cost cases: a Provider, the
// kind whose packages hold CRDs.
const celProvider = `apiVersion: meta.pkg.crossplane.io/v1
kind: Provider
metadata:
  name: hostile-cel
  annotations:
    meta.crossplane.io/maintainer: xpkgkit maintainers <maintainers@example.com>
    meta.crossplane.io/source: github.com/xpkgkit/xpkgkit
    meta.crossplane.io/license: Apache-2.0
    meta.crossplane.io/description: A fixture that the hostile corpus wraps.
    meta.crossplane.io/readme: A fixture that the hostile corpus wraps.
`

// celCRD returns a CRD of kind Thing (group cel.example.org) whose spec
// has the given properties (YAML, indented for spec.properties) and rules
// (YAML list items, indented for spec.x-kubernetes-validations).
func celCRD(props, rules string) string {
	return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: thing.cel.example.org # not plural.group: XP401, an error everywhere
spec:
  group: cel.example.org
  names: {kind: Thing, plural: things}
  scope: Cluster
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
` + props + `            x-kubernetes-validations:
` + rules
}

// celDir writes a package directory: crossplane.yaml, crd.yaml and
// examples/examples.yaml.
func celDir(name string, crd func() string, examples func() string) func(context.Context, string) (string, error) {
	return func(ctx context.Context, dir string) (string, error) {
		out, err := caseOutput(dir, name, KindPackageDir)
		if err != nil {
			return "", err
		}
		if err := os.MkdirAll(filepath.Join(out, "examples"), 0o755); err != nil {
			return "", err
		}
		for file, content := range map[string]string{
			"crossplane.yaml":        celProvider,
			"crd.yaml":               crd(),
			"examples/examples.yaml": examples(),
		} {
			if err := ctx.Err(); err != nil {
				return "", err
			}
			if err := os.WriteFile(filepath.Join(out, file), []byte(content), 0o644); err != nil {
				return "", err
			}
		}
		return out, nil
	}
}

// thing returns n example Things whose spec is body (YAML indented for
// spec).
func things(n int, body func(i int) string) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "---\napiVersion: cel.example.org/v1\nkind: Thing\nmetadata:\n  name: t%d\nspec:\n%s", i, body(i))
	}
	return b.String()
}

// nestedSizeCRD returns the CRD of cel-cost-max-estimated and
// cel-cost-long-strings: spec.l, a list of at most 100 strings of at most
// maxLength characters, and 40 rules each calling size() on every pair of
// its items (nested all()).
func nestedSizeCRD(maxLength int) string {
	props := fmt.Sprintf("              l:\n                type: array\n                maxItems: 100\n                items: {type: string, maxLength: %d}\n", maxLength)
	var rules strings.Builder
	for i := range 40 {
		fmt.Fprintf(&rules, "            - rule: self.l.all(x, self.l.all(y, x.size() + y.size() != %d))\n", i)
	}
	return celCRD(props, rules.String())
}

// stringLists returns n example Things whose spec.l holds 100 strings of
// size characters.
func stringLists(n, size int) string {
	item := strings.Repeat("a", size)
	return things(n, func(i int) string {
		var b strings.Builder
		b.WriteString("  l:\n")
		for range 100 {
			b.WriteString("  - " + item + "\n")
		}
		return b.String()
	})
}

// celCostCases are the worst cases of CEL validation (linter/apiserver,
// through the CLI): the CRD is the package's, so every rule and every
// example is the uploader's. Linting stays within the budget because
// every rule compiles once per definition, each object's evaluation is
// bounded by the API server's per-call and per-object cost limits, and
// all evaluation through one lint by the CEL extension's DefaultBudget
// (rules left over are counted as skipped), with the limits and the budget
// divided by the longest string's length (size() prices a string at 1). Outcome: XP401 (the CRD's
// name), so that the case is an error with or without
// linter/apiserver; through the CLI the examples draw XP408
// warnings, and XP420 reports a CRD beyond the API server's estimated
// cost limits.
func celCostCases() []Case {
	// The CRD's name is not plural.group (XP401, an error with or without
	// linter/apiserver), so that every case draws an error.
	lintErr := rule(ClassLintError, "XP401")
	return []Case{
		{
			Name:        "cel-cost-thousands-of-rules",
			Description: "A CRD whose spec carries 4,000 CEL rules, and 300 examples: 1.2 million rule evaluations asked for.",
			Kind:        KindPackageDir,
			Expect:      lintErr,
			Size:        180 << 10,
			Write: celDir("cel-cost-thousands-of-rules", func() string {
				var rules strings.Builder
				for i := range 4000 {
					fmt.Fprintf(&rules, "            - rule: self.n != %d\n", i+1000000)
				}
				return celCRD("              n: {type: integer}\n", rules.String())
			}, func() string { return things(300, func(i int) string { return "  n: 1\n" }) }),
		},
		{
			Name:        "cel-cost-max-estimated",
			Description: "Rules at the largest estimated cost the API server accepts (nested all() over a list of 100 strings of 1,000 characters), and examples that fill the list.",
			Kind:        KindPackageDir,
			Expect:      lintErr,
			Size:        800 << 10,
			Write: celDir("cel-cost-max-estimated", func() string { return nestedSizeCRD(1000) },
				func() string { return stringLists(8, 999) }),
		},
		{
			Name:        "cel-cost-long-strings",
			Description: "The rules of cel-cost-max-estimated on strings of 60,000 characters (maxLength 70,000: the estimated cost is the same, as size() on a string is priced at 1 whatever its length, but Go counts its runes): 10,000 size() calls per rule scan 600 MB.",
			Kind:        KindPackageDir,
			Expect:      lintErr,
			Size:        6 << 20,
			Write: celDir("cel-cost-long-strings", func() string { return nestedSizeCRD(70000) },
				func() string { return stringLists(1, 60000) }),
		},
		{
			Name:        "cel-cost-regex",
			Description: "Regex-heavy rules (matches, find, findAll with alternations and repetitions) on strings of 5,000 characters.",
			Kind:        KindPackageDir,
			Expect:      lintErr,
			Size:        760 << 10,
			Write: celDir("cel-cost-regex", func() string {
				props := "              s: {type: string, maxLength: 5000}\n"
				var rules strings.Builder
				for i := range 50 {
					fmt.Fprintf(&rules, "            - rule: \"!self.s.matches('^(a|aa|aaa|b){1,1000}(c|d)%d$') && self.s.findAll('(a+)+b').size() >= 0\"\n", i)
				}
				return celCRD(props, rules.String())
			}, func() string {
				s := strings.Repeat("a", 4999) + "x"
				return things(150, func(i int) string { return "  s: " + s + "\n" })
			}),
		},
		{
			Name:        "cel-cost-deep-exists",
			Description: "Deep all()/exists() over a list of 5,000 integers (quadratic: beyond the per-call cost limit, so the API server refuses each example; no maxItems, so the CRD is over its estimated cost limit too).",
			Kind:        KindPackageDir,
			Expect:      lintErr,
			Size:        870 << 10,
			Write: celDir("cel-cost-deep-exists", func() string {
				props := "              l:\n                type: array\n                items: {type: integer}\n"
				return celCRD(props, "            - rule: self.l.all(x, self.l.exists(y, y == x))\n            - rule: self.l.all(x, self.l.all(y, self.l.exists(z, z == x + y)))\n")
			}, func() string {
				return things(20, func(i int) string {
					var b strings.Builder
					b.WriteString("  l:\n")
					for j := range 5000 {
						fmt.Fprintf(&b, "  - %d\n", j)
					}
					return b.String()
				})
			}),
		},
		{
			Name:        "cel-cost-every-field",
			Description: "A CRD of 5,000 fields each carrying a rule, and examples that set every field.",
			Kind:        KindPackageDir,
			Expect:      lintErr,
			Size:        1300 << 10,
			Write: celDir("cel-cost-every-field", func() string {
				var props strings.Builder
				for i := range 5000 {
					fmt.Fprintf(&props, "              f%d:\n                type: integer\n                x-kubernetes-validations:\n                - rule: self != %d\n", i, -i-1)
				}
				return celCRD(props.String(), "            - rule: has(self.f0)\n")
			}, func() string {
				return things(10, func(i int) string {
					var b strings.Builder
					for j := range 5000 {
						fmt.Fprintf(&b, "  f%d: %d\n", j, j)
					}
					return b.String()
				})
			}),
		},
	}
}
