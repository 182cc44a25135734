package hostile

import (
	"io"
)

// parserCostCases returns the cases that try to buy memory or CPU from
// the YAML parser and splitter beyond what the limits allow.
func parserCostCases() []Case {
	prefix, unit, suffix, count := flowDoc(flowDocBytes)
	meta := validPackage + "---\n"
	return []Case{
		{
			Name: "parser-cost-flow-list-8mib",
			Description: "One 8 MiB document 'data: [a,a,a,…]' (4 million one-letter scalars) after a valid meta document. " +
				"Parsed into a node tree it took 1.3 GB (160 times its size). The parser's node count (MaxNodes) " +
				"refuses it before it is parsed: a positioned parse error of that document.",
			Kind:         KindPackageYAML,
			Expect:       rule(ClassParseError, "XP001"),
			Alternatives: []Outcome{limit(LimitAny)},
			Size:         int64(len(meta)) + flowDocBytes,
			Heavy:        true,
			Write: yamlCase("parser-cost-flow-list-8mib", func(w io.Writer) error {
				if _, err := w.Write([]byte(meta)); err != nil {
					return err
				}
				return repeatContent(w, prefix, unit, count, suffix)
			}),
		},
		{
			Name: "parser-cost-flow-lists-16x8mib-xpkg",
			Description: "Sixteen 8 MiB 'data: [a,a,…]' documents in a .xpkg of about 135 KB (128 MiB of YAML): they took " +
				"5.6 GB, and parallel decoding multiplied that by the CPUs. Each is refused by MaxNodes before it is " +
				"parsed, and the decode budget bounds what is decoded at once.",
			Kind:         KindXpkg,
			Expect:       rule(ClassParseError, "XP001"),
			Alternatives: []Outcome{limit(LimitAny)},
			Size:         140_000,
			Heavy:        true,
			Write:        flowDocsXpkg("parser-cost-flow-lists-16x8mib-xpkg", flowDocs, count),
		},
		{
			Name: "parser-cost-flow-lists-near-node-limit-xpkg",
			Description: "Four documents 'data: [a,a,…]' that each count just under the default MaxNodes (about 199,000 " +
				"scalars, 400 KB each) in a .xpkg: each parses, so the memory of decoding them at once must be held by " +
				"the decode budget, not by a limit. The ConfigMaps are not allowed in a Configuration: a lint error. " +
				"(Four, not sixteen: the rules that locate fields parse each document again, so sixteen take about 14 s " +
				"of CPU, linear but past the test's deadline on a loaded machine.)",
			Kind:   KindXpkg,
			Expect: rule(ClassLintError, "XP102"),
			Size:   6_000,
			Heavy:  true,
			Write:  flowDocsXpkg("parser-cost-flow-lists-near-node-limit-xpkg", nearLimitDocs, nearLimitUnits),
		},
		{
			Name: "parser-cost-endless-line-xpkg",
			Description: "A package.yaml whose second document is one line of 600 MiB that never ends ('yes | tr -d \\n'), " +
				"gzip'd in a .xpkg. The splitter's line reader checked neither the context nor the byte limits and read on " +
				"forever; now the line is read without being buffered past the document size, and the image reader's " +
				"MaxFileBytes (or the parser's MaxTotalBytes) stops it.",
			Kind:         KindXpkg,
			Expect:       limit(LimitStreamSize),
			Alternatives: []Outcome{limit(LimitAny)},
			Size:         700_000,
			Heavy:        true,
			Write:        endlessLineXpkg("parser-cost-endless-line-xpkg", endlessLineBytes),
		},
		{
			Name: "parser-cost-u2028-document-marker",
			Description: "A valid meta document, then a ConfigMap whose last line ends with U+2028 (LINE SEPARATOR) before " +
				"'---' and a broken document. YAML takes U+2028 for a line break, Kubernetes' document splitter does not: " +
				"the broken document went unseen ('no problems'). The parser refuses the line break, a positioned parse error.",
			Kind:   KindPackageYAML,
			Expect: rule(ClassParseError, "XP001"),
			Size:   700,
			Seed:   true,
			Write: yamlCase("parser-cost-u2028-document-marker", text(meta+
				"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\u2028---\nbroken: [\n")),
		},
		{
			Name: "parser-cost-u2028-in-comment",
			Description: "A U+2028 inside a comment, followed by what YAML then reads as content: positions shifted " +
				"(5:3 reported at 1:1). The parser refuses the line break at its exact position, a parse error.",
			Kind:   KindPackageYAML,
			Expect: rule(ClassParseError, "XP001"),
			Size:   700,
			Seed:   true,
			Write: yamlCase("parser-cost-u2028-in-comment", text(meta+
				"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n# note\u2028data: {k: v}\n")),
		},
		{
			Name: "parser-cost-utf16-package-yaml-xpkg",
			Description: "A .xpkg whose package.yaml is UTF-16 with a byte order mark: a valid meta document, then a broken " +
				"one. The YAML decoder reads UTF-16, the line splitter does not, and the second document got 'no problems'. " +
				"The parser refuses a UTF-16 stream as one parse error at 1:1.",
			Kind:   KindXpkg,
			Expect: rule(ClassParseError, "XP001"),
			Size:   4_000,
			Seed:   true,
			Write:  streamXpkg("parser-cost-utf16-package-yaml-xpkg", func() []byte { return utf16LE(meta + "broken: [\n") }),
		},
		{
			Name: "parser-cost-dir-200k-files",
			Description: "A package directory of 200,000 one-document files in one directory (hard links to four ConfigMap files): ParseFS peaked at 341 MB. " +
				"The listing is bounded (MaxFiles, directories read in chunks) before anything is parsed.",
			Kind:         KindPackageDir,
			Expect:       limit(LimitAny),
			Alternatives: []Outcome{limit(LimitDocumentCount)},
			Size:         int64(manyFiles) * 60,
			Heavy:        true,
			Write:        manyFilesDir("parser-cost-dir-200k-files", manyFiles),
		},
	}
}
