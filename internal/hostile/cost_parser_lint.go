package hostile

import (
	"context"
	"fmt"
	"strings"
)

// parserLintWorstCases are the worst cases of the rules that report what
// the parser records: duplicate keys (XP007) and the meta file's name
// (XP008).
func parserLintWorstCases() []lintWorst {
	dups := "  k: v\n" + strings.Repeat("  k: w\n", 150) // more than the parser records per document
	return []lintWorst{
		{
			rules: []string{"XP007"},
			Case: Case{
				Name: "lint-cost-duplicate-keys-per-document",
				Description: "About 900 ConfigMaps, each with one key given 151 times: the parser records at most 100 duplicates " +
					"per document (linearly) and XP007 reports them, capped per rule; the ConfigMaps are the error.",
				Kind:   KindPackageYAML,
				Expect: rule(ClassLintError, "XP102"),
				Size:   lintCostBytes,
				Write: streamYAML("lint-cost-duplicate-keys-per-document", func() []byte {
					return stream(badConfiguration, func(i int) string {
						return fmt.Sprintf("---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: d%d\ndata:\n", i) + dups
					}, "")
				}),
			},
		},
		{
			rules: []string{"XP008"},
			Case: Case{
				Name: "lint-cost-meta-file-name-meta-yaml",
				Description: "A package directory whose meta object is in meta.yaml, beside 2,000 files: XP008 reports the file " +
					"name once, whatever the number of files; a ConfigMap is the error.",
				Kind:   KindPackageDir,
				Expect: rule(ClassLintError, "XP102"),
				Size:   2_000 * 80,
				Write:  metaFileDir("lint-cost-meta-file-name-meta-yaml", "meta.yaml", 2_000),
			},
		},
	}
}

// metaFileDir is the Write function of a package directory whose meta
// object (badConfiguration, then errorTail) is in file, beside n small
// ConfigMap files.
func metaFileDir(name, file string, n int) func(context.Context, string) (string, error) {
	return func(ctx context.Context, dir string) (string, error) {
		out, err := caseOutput(dir, name, KindPackageDir)
		if err != nil {
			return "", err
		}
		if err := configMapDir(ctx, out, file, []byte(badConfiguration+errorTail), n, "o%05d.yaml"); err != nil {
			return "", err
		}
		return out, nil
	}
}
