package rules

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/parser"
)

// TestDesignWalkShared checks that the design rules, sharing each XRD's
// decoded content (decodedXRD), report what each rule alone reports: every design
// rule linted together, then each alone, on the rules' fixtures and on a
// generated XRD that draws more diagnostics than the cap, at one and at
// several rules at a time, diagnostics and positions compared.
func TestDesignWalkShared(t *testing.T) {
	t.Parallel()
	var design []*linter.Rule
	for _, r := range Builtin() {
		if strings.HasPrefix(r.ID, "XP75") && r.ID != "XP755" {
			design = append(design, r)
		}
	}
	if len(design) < 8 {
		t.Fatalf("%d design rules, want XP750-XP758 but XP755 (which reads the outline)", len(design))
	}
	inputs := map[string][]byte{}
	for _, r := range design {
		files, _ := filepath.Glob(filepath.Join("testdata", "rules", r.ID, "*.yaml"))
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			inputs[f] = data
		}
	}
	if len(inputs) < 8 {
		t.Fatalf("%d fixtures, want the design rules'", len(inputs))
	}
	var b strings.Builder
	b.WriteString(xrdDesignHead + "          spec:\n            type: object\n            required: [r0, r1, r2]\n            properties:\n")
	for i := range 40 {
		fmt.Fprintf(&b, "              b%d: {type: boolean}\n              e%d:\n                type: string\n                enum: [A, B]\n", i, i)
		fmt.Fprintf(&b, "              r%d:\n                type: string\n              l%d:\n                type: array\n                items: {type: object, properties: {x: {type: string}}}\n", i, i)
	}
	b.WriteString("          status:\n            type: object\n            required: [s0]\n            properties:\n              s0: {type: integer, maximum: 10}\n")
	b.WriteString("  - name: v2beta1\n    served: true\n    referenceable: false\n    schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {on: {type: boolean}}}}}}\n")
	inputs["generated"] = []byte(b.String())

	ctx := context.Background()
	for name, data := range inputs {
		pkg, err := parser.Parse(ctx, strings.NewReader(string(data)), parser.WithFile(name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, max := range []int{0, 5} {
			for _, conc := range []int{1, 4} {
				together, err := linter.Lint(ctx, pkg, linter.WithRuleSet(Builtin()...), linter.WithRuleSet(design...), linter.WithMaxDiagnostics(max), linter.WithConcurrency(conc))
				if err != nil {
					t.Fatal(err)
				}
				var alone []linter.Diagnostic
				for _, r := range design {
					res, err := linter.Lint(ctx, pkg, linter.WithRuleSet(Builtin()...), linter.WithRuleSet(r), linter.WithMaxDiagnostics(max))
					if err != nil {
						t.Fatal(err)
					}
					alone = append(alone, res.Diagnostics...)
				}
				linter.SortDiagnostics(alone)
				if diff := cmp.Diff(alone, together.Diagnostics); diff != "" {
					t.Errorf("%s (cap %d, %d at a time): the shared walk differs from each rule's own (-alone +together):\n%s", name, max, conc, diff)
				}
				if name == "generated" && len(together.Diagnostics) < 20 {
					t.Errorf("generated: %d diagnostics, want many", len(together.Diagnostics))
				}
			}
		}
	}
}
