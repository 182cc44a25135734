package hostile

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// examplesCostCases returns the cases that attack the examples of a
// package directory (examples/): their share of the parse budget, and
// examples that cannot be read.
func examplesCostCases() []Case {
	return []Case{
		{
			Name: "examples-cost-split-budget",
			Description: "Issue 17 defect 5 (99,000 documents in the package and 99,000 in the examples: 433 MiB, 19.5 s): " +
				"the examples were parsed with a budget of their own. A package directory whose crossplane.yaml holds the " +
				"meta object and 60,000 empty documents (they count against MaxDocuments, 100,000, and cost no memory), " +
				"and 60,000 ConfigMaps under examples/: each half is under the limit, the two are over it. The examples " +
				"now count on from the package's documents and bytes (one budget for the upload): MaxDocuments stops the " +
				"examples' parse after 40,000 of them. (The memory of 100,000 real documents is the parser's own bound, " +
				"a package of MaxDocuments documents, which other cases measure.)",
			Kind:   KindPackageDir,
			Expect: limit(LimitDocumentCount),
			Size:   60_000*4 + 60_000*60,
			Heavy:  true,
			Write: examplesDir("examples-cost-split-budget", func(w io.Writer) error {
				_, err := io.WriteString(w, strings.Repeat("---\n", 60_000))
				return err
			}, func(w io.Writer) error {
				return configMaps(w, 60_000)
			}),
		},
		{
			Name: "examples-cost-unreadable",
			Description: "Issue 17 defect 5 and issue 18: examples that crossplane xpkg build cannot parse, which drew no " +
				"diagnostic (exit 0, so an uploader could hide an example from XP408): a syntax error, a document over " +
				"MaxNodes (a flow list of 300,000 scalars), a file ending in '---' (the build's reader appends a document " +
				"end marker to every file, and its examples parser finds no node), and a '---' line followed by content. " +
				"Each is an XP001 error at its examples/ file and line.",
			Kind:         KindPackageDir,
			Expect:       rule(ClassLintError, "XP001"),
			Alternatives: []Outcome{rule(ClassParseError, "XP001")},
			Size:         700_000,
			Heavy:        true,
			Write: func(ctx context.Context, dir string) (string, error) {
				out, err := caseOutput(dir, "examples-cost-unreadable", KindPackageDir)
				if err != nil {
					return "", err
				}
				cm := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"
				files := map[string]string{
					"crossplane.yaml":              validPackage,
					"examples/syntax.yaml":         cm + "data: [\n",
					"examples/nodes.yaml":          cm + "data:\n  x: [" + strings.Repeat("a,", 300_000) + "a]\n",
					"examples/trailing.yaml":       cm + "---\n",
					"examples/separator.yaml":      "--- {apiVersion: v1, kind: ConfigMap}\n",
					"examples/nested/fine.yaml":    cm,
					"examples/nested/comment.yaml": cm + "---\n# only a comment\n---\n" + cm,
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
	}
}

// configMaps writes n ConfigMap documents.
func configMaps(w io.Writer, n int) error {
	bw := bufio.NewWriter(w)
	for i := range n {
		fmt.Fprintf(bw, "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c%d\n", i)
	}
	return bw.Flush()
}

// examplesDir is the Write function of a package directory whose
// crossplane.yaml is validPackage followed by what more writes, with one
// example file written by ex.
func examplesDir(name string, more, ex func(io.Writer) error) func(context.Context, string) (string, error) {
	return packageDirWithExamples(name, func(w io.Writer) error {
		if _, err := io.WriteString(w, validPackage); err != nil {
			return err
		}
		return more(w)
	}, ex)
}

// packageDirWithExamples is the Write function of a package directory
// whose crossplane.yaml is written by pkg and whose examples/examples.yaml
// by ex.
func packageDirWithExamples(name string, pkg, ex func(io.Writer) error) func(context.Context, string) (string, error) {
	return func(ctx context.Context, dir string) (string, error) {
		out, err := caseOutput(dir, name, KindPackageDir)
		if err != nil {
			return "", err
		}
		if err := writeDepFile(filepath.Join(out, "crossplane.yaml"), pkg); err != nil {
			return "", err
		}
		if err := ctx.Err(); err != nil {
			return "", err
		}
		if err := writeDepFile(filepath.Join(out, "examples", "examples.yaml"), ex); err != nil {
			return "", err
		}
		return out, nil
	}
}
