package hostile

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
)

// targetsCases returns the cases of issue 31's examples under hidden
// directories, which Crossplane's examples parser reads (the object names'
// case is a lint worst case: targetsLintWorstCases).
func targetsCases() []Case {
	return []Case{
		{
			Name: "targets-examples-hidden-unreadable",
			Description: "Issue 31 item 5: examples under hidden directories of examples/ (examples/.drafts/) that " +
				"crossplane xpkg build cannot parse: its examples parser walks every directory (crossplane-runtime " +
				"pkg/xpkg/parser NewFsReadCloser, an afero.Walk whose SkipDirs filter drops directory entries, not " +
				"what is below them), so a syntax error and a document without a kind there fail the build. They " +
				"were skipped (a warning at most); now each is an XP001 error at its examples/.drafts/ file.",
			Kind:   KindPackageDir,
			Expect: rule(ClassLintError, "XP001"),
			Size:   1_000,
			Write: func(ctx context.Context, dir string) (string, error) {
				out, err := caseOutput(dir, "targets-examples-hidden-unreadable", KindPackageDir)
				if err != nil {
					return "", err
				}
				files := map[string]string{
					"crossplane.yaml":                      validPackage,
					"examples/fine.yaml":                   "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n",
					"examples/.drafts/syntax.yaml":         "apiVersion: v1\nkind: ConfigMap\ndata: [\n",
					"examples/.drafts/.deeper/nokind.yaml": "apiVersion: v1\nmetadata:\n  name: b\n",
				}
				for name, body := range files {
					p := filepath.Join(out, filepath.FromSlash(name))
					if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
						return "", err
					}
					if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
						return "", err
					}
				}
				return out, nil
			},
		},
		{
			Name: "targets-examples-hidden-30k-files",
			Description: "Issue 31 item 5: examples/ now walks hidden directories, so a package can hide a large " +
				"tree there: 30,000 one-document files under examples/.hidden/ (hard links to a few files). " +
				"The listing is bounded by MaxFiles (20,000 entries) before anything is parsed, as for the package.",
			Kind:         KindPackageDir,
			Expect:       limit(LimitAny),
			Alternatives: []Outcome{limit(LimitDocumentCount)},
			Size:         30_000 * 60,
			Heavy:        true,
			Write:        hiddenExamplesDir("targets-examples-hidden-30k-files", 30_000),
		},
	}
}

// targetsLintWorstCases are the worst cases of the rules of issue 31
// (lintWorstCases takes them).
func targetsLintWorstCases() []lintWorst {
	return []lintWorst{{
		rules: []string{"XP412"},
		Case: Case{
			Name: "lint-cost-object-names",
			Description: "Issue 31 item 4: about 4,000 Compositions in 1 MiB, each named with upper case and '_', a name " +
				"the API server refuses (NameIsDNSSubdomain): one XP412 diagnostic each, capped per rule, in one pass over the objects.",
			Kind:   KindPackageYAML,
			Expect: rule(ClassLintError, "XP412"),
			Size:   lintCostBytes,
			Write: streamYAML("lint-cost-object-names", func() []byte {
				return stream(validPackage, func(i int) string {
					return fmt.Sprintf("---\napiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata:\n  name: Composition_%d\nspec:\n"+
						"  compositeTypeRef:\n    apiVersion: example.org/v1\n    kind: XThing\n  mode: Pipeline\n  pipeline:\n  - step: run\n"+
						"    functionRef:\n      name: function-run\n", i)
				}, "")
			}),
		},
	}}
}

// hiddenExamplesDir is the Write function of a package directory whose
// crossplane.yaml is validPackage and whose examples/.hidden/ holds n
// one-document files: hard links to a ConfigMap file per 50,000 (the
// reader stops listing at MaxFiles before it reads one), each written
// where the file system has no hard links.
func hiddenExamplesDir(name string, n int) func(context.Context, string) (string, error) {
	return func(ctx context.Context, dir string) (string, error) {
		out, err := caseOutput(dir, name, KindPackageDir)
		if err != nil {
			return "", err
		}
		sub := filepath.Join(out, "examples", ".hidden")
		if err := os.MkdirAll(sub, 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(out, "crossplane.yaml"), []byte(validPackage), 0o644); err != nil {
			return "", err
		}
		src := filepath.Join(out, "source.txt") // not YAML: the package reads it not
		if err := os.WriteFile(src, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n"), 0o644); err != nil {
			return "", err
		}
		for i := range n {
			if i%512 == 0 {
				if err := ctx.Err(); err != nil {
					return "", err
				}
			}
			p := filepath.Join(sub, fmt.Sprintf("c%06d.yaml", i))
			if err := os.Link(src, p); err != nil {
				b, rerr := os.ReadFile(src)
				if rerr != nil {
					return "", rerr
				}
				if err := os.WriteFile(p, b, 0o644); err != nil {
					return "", err
				}
			}
		}
		return out, nil
	}
}
