package rules_test

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/linter/rules"
	"github.com/xpkgkit/xpkgkit/xpkg"

	"sigs.k8s.io/yaml"

	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/parser"
)

// examplesNotPackages are rules whose Bad and Good examples describe
// something a YAML stream cannot hold, with what they describe.
var examplesNotPackages = map[string]string{
	"XP006": "a package directory holding a symbolic link (see TestSkippedFile)",
	"XP008": "a package directory's files (see TestMetaFileName)",
	"XP408": "a package with examples beside it (see TestExampleSchema)",
}

// imageFactsHeader starts an example that gives image facts (ImageFacts
// in YAML) rather than a package.
const imageFactsHeader = "# image facts\n"

// exampleTarget finds "--crossplane-version vX" in an example's comment,
// the target it is meant to be linted with.
var exampleTarget = regexp.MustCompile(`--crossplane-version (v\S+)`)

// examplePackage is the package an image-facts example is linted with: a
// valid Configuration, so that only the facts can draw a diagnostic.
const examplePackage = `apiVersion: meta.pkg.crossplane.io/v1
kind: Configuration
metadata:
  name: example
`

// lintExample lints a rule's example with every built-in rule and returns
// the diagnostics.
func lintExample(t *testing.T, example string) []linter.Diagnostic {
	t.Helper()
	ctx := context.Background()
	stream := example
	var opts []linter.Option
	if facts, ok := strings.CutPrefix(example, imageFactsHeader); ok {
		var f xpkg.ImageFacts
		// The examples abbreviate digests ("sha256:aaa..."), which is fine
		// for facts: nothing checks them.
		if err := yaml.UnmarshalStrict([]byte(facts), &f); err != nil {
			t.Fatalf("image facts example: %v", err)
		}
		opts = append(opts, rules.WithImageFacts(&f))
		stream = examplePackage
	}
	if m := exampleTarget.FindStringSubmatch(example); m != nil {
		opts = append(opts, linter.WithCrossplaneVersion(m[1]))
	}
	pkg, err := parser.Parse(ctx, bytes.NewReader([]byte(stream)), parser.WithFile("example.yaml"))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	res, err := linter.Lint(ctx, pkg, append([]linter.Option{linter.WithRuleSet(rules.Builtin()...)}, opts...)...)
	if err != nil {
		t.Fatalf("lint: %v", err)
	}
	if len(res.Failures) > 0 {
		t.Fatalf("rule failures: %v", res.Failures)
	}
	return res.Diagnostics
}

// TestRuleExamples checks what RULES.md and --explain show: every built-in
// rule's Bad example draws that rule, and its Good example draws no error
// from any rule (nor that rule at all). An example may be a fragment of a
// package, without a meta object: the "no meta object" error of XP101 is
// then not held against it.
func TestRuleExamples(t *testing.T) {
	t.Parallel()
	for _, r := range rules.Builtin() {
		t.Run(r.ID, func(t *testing.T) {
			t.Parallel()
			if why, ok := examplesNotPackages[r.ID]; ok {
				t.Logf("the examples of %s show %s, which one YAML stream cannot hold", r.ID, why)
				return
			}
			if strings.TrimSpace(r.Bad) == "" || strings.TrimSpace(r.Good) == "" {
				t.Fatalf("rule %s needs a Bad and a Good example", r.ID)
			}
			fragmentNoise := func(d linter.Diagnostic) bool {
				return d.RuleID == "XP101" && strings.Contains(d.Message, "holds no meta object")
			}
			found := false
			for _, d := range lintExample(t, r.Bad) {
				found = found || d.RuleID == r.ID
			}
			if !found {
				t.Errorf("the Bad example of %s does not draw %s; it draws:\n%s", r.ID, r.ID, describe(lintExample(t, r.Bad)))
			}
			for _, d := range lintExample(t, r.Good) {
				if fragmentNoise(d) {
					continue
				}
				if d.RuleID == r.ID || d.Severity == linter.SeverityError {
					t.Errorf("the Good example of %s draws %v", r.ID, d)
				}
			}
		})
	}
}

func describe(diags []linter.Diagnostic) string {
	var b strings.Builder
	for _, d := range diags {
		b.WriteString("  " + d.String() + "\n")
	}
	return b.String()
}
