package hostile

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

const (
	scalarSize      = 200 << 20 // bytes of the big scalar
	deepNesting     = 10_000
	deepBlockMap    = 2_000 // block mappings grow quadratically: keep it smaller
	emptyDocsN      = 4_000_000
	tinyDocsN       = 1_000_000
	bombDocsN       = 500_000 // in xpkg-docs-bomb, to stay a small seed
	keyFloodN       = 12_000
	distinctKeysN   = 100_000
	aliasScalarSize = 256 << 10
	aliasCount      = 4_096
	dependencyN     = 5_000
)

// yamlCase returns the Write function of a package.yaml case whose content
// gen streams.
func yamlCase(name string, gen func(io.Writer) error) func(context.Context, string) (string, error) {
	return func(ctx context.Context, dir string) (string, error) {
		out, err := caseOutput(dir, name, KindPackageYAML)
		if err != nil {
			return "", err
		}
		return out, writeFile(ctx, out, gen)
	}
}

// text returns a generator writing s.
func text(s string) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := io.WriteString(w, s)
		return err
	}
}

// repeated returns a generator writing prefix, unit count times, suffix.
func repeated(prefix, unit string, count int64, suffix string) func(io.Writer) error {
	return func(w io.Writer) error {
		return repeatContent(w, []byte(prefix), []byte(unit), count, []byte(suffix))
	}
}

// withMeta prefixes a valid meta document to a generated second document,
// so a parser that gives up on the whole stream is told apart from one that
// reports the bad document and goes on.
func withMeta(rest string) string { return validPackage + "---\n" + rest }

// billionLaughs is the classic alias bomb: nine levels of nine aliases,
// 10^9 leaves once expanded, 1 KiB as written.
func billionLaughs() string {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: lol\ndata:\n  a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n")
	for c := 'b'; c <= 'i'; c++ {
		p := string(c - 1)
		fmt.Fprintf(&b, "  %c: &%c [*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s]\n", c, c, p, p, p, p, p, p, p, p, p)
	}
	return b.String()
}

// yamlCases attack the YAML splitter and parser.
func yamlCases() []Case {
	keyFlood := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: flood\ndata:\n"
	topFlood := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: flood\n"
	return []Case{
		{
			Name: "yaml-non-utf8",
			Description: "A valid meta document, then a document whose value holds the bytes 0xff 0xfe (not UTF-8). The bad document is a positioned parse error; the meta document is still read. " +
				"A reader that recognises a YAML file by its content may instead refuse the file as not text (malformed): the parse error is what a package.yaml read out of an image gives.",
			Kind:         KindPackageYAML,
			Expect:       rule(ClassParseError, "XP001"),
			Alternatives: []Outcome{class(ClassMalformed)},
			Size:         700,
			Seed:         true,
			Write:        yamlCase("yaml-non-utf8", text(withMeta("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bad\ndata:\n  k: \"\xff\xfe\"\n"))),
		},
		{
			Name:        "yaml-nul-bytes",
			Description: "A valid meta document, then a document with NUL bytes in a scalar. YAML forbids control characters: a parse error for that document.",
			Kind:        KindPackageYAML,
			Expect:      rule(ClassParseError, "XP001"),
			Size:        700,
			Seed:        true,
			Write:       yamlCase("yaml-nul-bytes", text(withMeta("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: n\x00ul\ndata:\n  k: \x00\x00\x00\n"))),
		},
		{
			Name:         "yaml-billion-laughs",
			Description:  "Nine levels of nine aliases (10^9 strings once expanded) in 1 KiB. The alias limit (or the YAML library's own alias-ratio check, reported as a parse error) must stop it before any expansion.",
			Kind:         KindPackageYAML,
			Expect:       limit(LimitAliases),
			Alternatives: []Outcome{rule(ClassParseError, "XP001")},
			Size:         1_200,
			Seed:         true,
			Write:        yamlCase("yaml-billion-laughs", text(withMeta(billionLaughs()))),
		},
		{
			Name: "yaml-alias-large-scalar",
			Description: "A 256 KiB scalar anchored once and aliased 4,096 times, plus 128 plain values so the " +
				"alias ratio stays under go-yaml's 99% threshold: the library decodes it happily, but turning " +
				"it into JSON writes 1 GiB. The alias or document-size limit must count expanded bytes.",
			Kind:         KindPackageYAML,
			Expect:       limit(LimitAny),
			Alternatives: []Outcome{rule(ClassParseError, "XP001")},
			Size:         300_000,
			Write: yamlCase("yaml-alias-large-scalar", func(w io.Writer) error {
				var b strings.Builder
				b.WriteString(validPackage + "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: aliases\ndata:\n  big: &big " +
					strings.Repeat("a", aliasScalarSize) + "\n  filler:\n")
				for i := range 128 {
					fmt.Fprintf(&b, "  - f%d\n", i)
				}
				b.WriteString("  copies:\n" + strings.Repeat("  - *big\n", aliasCount))
				_, err := io.WriteString(w, b.String())
				return err
			}),
		},
		{
			Name:        "yaml-anchor-self-reference",
			Description: "An anchor whose value contains an alias to itself ('a: &a [*a]'). A parse error, never a loop.",
			Kind:        KindPackageYAML,
			Expect:      rule(ClassParseError, "XP001"),
			Size:        700,
			Seed:        true,
			Write:       yamlCase("yaml-anchor-self-reference", text(withMeta("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: self\ndata:\n  a: &a [*a]\n"))),
		},
		{
			Name:         "yaml-deep-flow-seq",
			Description:  "A value nested in 10,000 flow sequences ('[[[…]]]', 20 KiB). The depth limit stops it; go-yaml's own cap (10,000) surfaces as a parse error.",
			Kind:         KindPackageYAML,
			Expect:       limit(LimitDepth),
			Alternatives: []Outcome{rule(ClassParseError, "XP001")},
			Size:         21_000,
			Seed:         true,
			Write: yamlCase("yaml-deep-flow-seq", text(withMeta("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: deep\ndata:\n  x: "+
				strings.Repeat("[", deepNesting)+strings.Repeat("]", deepNesting)+"\n"))),
		},
		{
			Name:         "yaml-deep-flow-map",
			Description:  "A value nested in 10,000 flow mappings ('{a: {a: …}}', 50 KiB).",
			Kind:         KindPackageYAML,
			Expect:       limit(LimitDepth),
			Alternatives: []Outcome{rule(ClassParseError, "XP001")},
			Size:         51_000,
			Seed:         true,
			Write: yamlCase("yaml-deep-flow-map", text(withMeta("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: deep\ndata:\n  x: "+
				strings.Repeat("{a: ", deepNesting)+"1"+strings.Repeat("}", deepNesting)+"\n"))),
		},
		{
			Name:         "yaml-deep-block-seq",
			Description:  "A document that is 10,000 nested block sequences on one line ('- - - … x', 20 KiB).",
			Kind:         KindPackageYAML,
			Expect:       limit(LimitDepth),
			Alternatives: []Outcome{rule(ClassParseError, "XP001")},
			Size:         21_000,
			Seed:         true,
			Write:        yamlCase("yaml-deep-block-seq", text(withMeta(strings.Repeat("- ", deepNesting)+"x\n"))),
		},
		{
			Name: "yaml-deep-block-map",
			Description: "A document of 2,000 nested block mappings, one space of indentation each (2 MiB). " +
				"Under go-yaml's own cap: the parser's depth limit stops it, or, with a generous limit, " +
				"the document has no apiVersion or kind.",
			Kind:         KindPackageYAML,
			Expect:       limit(LimitDepth),
			Alternatives: []Outcome{rule(ClassParseError, "XP002"), rule(ClassParseError, "XP001")},
			Size:         2_100_000,
			Write: yamlCase("yaml-deep-block-map", func(w io.Writer) error {
				if _, err := io.WriteString(w, validPackage+"---\n"); err != nil {
					return err
				}
				line := make([]byte, 0, deepBlockMap+4)
				for i := range deepBlockMap {
					line = append(line[:0], strings.Repeat(" ", i)...)
					line = append(line, "a:\n"...)
					if _, err := w.Write(line); err != nil {
						return err
					}
				}
				_, err := io.WriteString(w, strings.Repeat(" ", deepBlockMap)+"x\n")
				return err
			}),
		},
		{
			Name: "yaml-scalar-200mb",
			Description: "The meta document's description annotation is one plain scalar of 200 MiB on one " +
				"line. The document-size limit (or the stream-size limit, if lower) stops it while reading, " +
				"without buffering the line. The document-size limit is per document: a reader may report it as " +
				"a positioned parse error of that document (XP001) and go on with the rest of the stream.",
			Kind:         KindPackageYAML,
			Expect:       limit(LimitDocumentSize),
			Alternatives: []Outcome{limit(LimitStreamSize), rule(ClassParseError, "XP001")},
			Size:         scalarSize + 600,
			Heavy:        true,
			Write: yamlCase("yaml-scalar-200mb", repeated(
				validPackage[:strings.Index(validPackage, "    meta.crossplane.io/")]+"    meta.crossplane.io/description: ",
				"A", scalarSize, "\n"+validPackage[strings.Index(validPackage, "spec:"):])),
		},
		{
			Name: "yaml-duplicate-keys",
			Description: "The meta document says 'kind' twice (Configuration, then NotAKind) and 'name' twice. " +
				"Crossplane's decoding keeps the last value of a duplicate key, and so does the parser: the " +
				"meta kind is NotAKind, which no meta scheme knows, a parse error (XP002); a linter that " +
				"decodes it may report it as a lint error instead.",
			Kind:         KindPackageYAML,
			Expect:       rule(ClassParseError, "XP002"),
			Alternatives: []Outcome{class(ClassLintError)},
			Size:         600,
			Seed:         true,
			Write: yamlCase("yaml-duplicate-keys", text(strings.Replace(
				strings.Replace(validPackage, "kind: Configuration\n", "kind: Configuration\nkind: NotAKind\n", 1),
				"  name: hostile-fixture\n", "  name: hostile-fixture\n  name: hostile-fixture-again\n", 1))),
		},
		{
			Name: "yaml-repeated-key-flood",
			Description: "A document's top-level mapping repeats the key 'a' 12,000 times (60 KiB). go-yaml v3's Unmarshal checks " +
				"keys pairwise and records every duplicate pair: 72 million error strings (3,000 keys already " +
				"take 4 s and 1 GiB). The parser must check duplicates in linear time and report one error; " +
				"a parser that keeps the last value meets a ConfigMap, not allowed in a Configuration.",
			Kind:         KindPackageYAML,
			Expect:       rule(ClassParseError, "XP001"),
			Alternatives: []Outcome{class(ClassLintError), limit(LimitAny)},
			Size:         61_000,
			Seed:         true,
			Write:        yamlCase("yaml-repeated-key-flood", repeated(validPackage+"---\n"+topFlood, "a: b\n", keyFloodN, "")),
		},
		{
			Name: "yaml-distinct-keys",
			Description: "One mapping with 100,000 distinct keys (1.3 MiB): a pairwise duplicate check costs 5·10^9 " +
				"comparisons. It must parse in linear time; the ConfigMap is then not allowed in a " +
				"Configuration, a lint error. Its 400,000 counted nodes may also trip the parser's node " +
				"limit, a positioned parse error of that document.",
			Kind:         KindPackageYAML,
			Expect:       class(ClassLintError),
			Alternatives: []Outcome{limit(LimitAny), rule(ClassParseError, "XP001")},
			Size:         1_400_000,
			Write: yamlCase("yaml-distinct-keys", func(w io.Writer) error {
				if _, err := io.WriteString(w, validPackage+"---\n"+keyFlood); err != nil {
					return err
				}
				var b strings.Builder
				for i := range distinctKeysN {
					fmt.Fprintf(&b, "  k%06d: v\n", i)
				}
				_, err := io.WriteString(w, b.String())
				return err
			}),
		},
		{
			Name: "yaml-empty-docs-millions",
			Description: "4,000,000 empty documents ('---' lines, 16 MiB) and nothing else. Counted, they trip " +
				"the document-count limit; skipped, the package is empty, a lint error (XP003). Either way " +
				"in bounded time and memory.",
			Kind:         KindPackageYAML,
			Expect:       limit(LimitDocumentCount),
			Alternatives: []Outcome{rule(ClassLintError, "XP003")},
			Size:         16_000_000,
			Write:        yamlCase("yaml-empty-docs-millions", repeated("", "---\n", emptyDocsN, "")),
		},
		{
			Name:        "yaml-tiny-docs-millions",
			Description: "A meta document then 1,000,000 tiny objects ('apiVersion: v1, kind: A', 27 MiB). The document-count limit must stop it before a million objects are decoded and linted.",
			Kind:        KindPackageYAML,
			Expect:      limit(LimitDocumentCount),
			Size:        27_000_000,
			Write:       yamlCase("yaml-tiny-docs-millions", repeated(validPackage, "---\napiVersion: v1\nkind: A\n", tinyDocsN, "")),
		},
		{
			Name:        "xpkg-docs-bomb",
			Description: "A .xpkg of 37 KiB whose gzip base layer holds a package.yaml of 500,000 tiny objects (13 MiB). The document-count limit must stop it.",
			Kind:        KindXpkg,
			Expect:      limit(LimitDocumentCount),
			Size:        37_000,
			Seed:        true,
			Write: xpkgCase("xpkg-docs-bomb", func() []layerSpec {
				unit := []byte("---\napiVersion: v1\nkind: A\n")
				size := int64(len(validPackage)) + bombDocsN*int64(len(unit))
				h, err := header("package.yaml", typeReg, "", size, 0, 0)
				if err != nil {
					return []layerSpec{{raw: func(io.Writer) error { return err }}}
				}
				suffix := make([]byte, (blockSize-size%blockSize)%blockSize+2*blockSize)
				return []layerSpec{{
					mediaType:  dockerLayerGzip,
					annotation: baseValue,
					raw:        gzipBomb(append(h[:], validPackage...), unit, bombDocsN, suffix),
				}}
			}, xpkgHooks{}),
		},
		{
			Name:        "yaml-unterminated",
			Description: "A valid meta document, then a document with an unterminated quoted scalar. A parse error positioned in the second document.",
			Kind:        KindPackageYAML,
			Expect:      rule(ClassParseError, "XP001"),
			Size:        700,
			Seed:        true,
			Write:       yamlCase("yaml-unterminated", text(withMeta("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: \"unterminated\n"))),
		},
		{
			Name:         "dir-crossplane-yaml-fifo",
			Description:  "An on-disk package whose crossplane.yaml is a FIFO with no writer. Opening it would block forever: non-regular files are refused (or not found). Unix only.",
			Kind:         KindPackageDir,
			Expect:       class(ClassNotFound),
			Alternatives: notRegular(),
			Size:         0,
			Write: func(ctx context.Context, dir string) (string, error) {
				out, err := caseOutput(dir, "dir-crossplane-yaml-fifo", KindPackageDir)
				if err != nil {
					return "", err
				}
				if err := os.MkdirAll(out, 0o755); err != nil {
					return "", err
				}
				return out, mkfifo(filepath.Join(out, "crossplane.yaml"))
			},
		},
		{
			Name: "dir-symlink-escape",
			Description: "An on-disk package with a valid crossplane.yaml and 'crds/evil.yaml', a symlink " +
				"to a file outside the package directory (holding broken YAML). Files outside the package " +
				"root are never read: the escaping link is refused, or skipped as a file that is not regular " +
				"(the package then reads clean: had the link been followed, its broken YAML would be a parse error).",
			Kind:         KindPackageDir,
			Expect:       class(ClassBadPath),
			Alternatives: []Outcome{class(ClassOK)},
			Size:         1_000,
			Write: func(ctx context.Context, dir string) (string, error) {
				const name = "dir-symlink-escape"
				out, err := caseOutput(dir, name, KindPackageDir)
				if err != nil {
					return "", err
				}
				outside := filepath.Join(dir, name+"-outside")
				for _, d := range []string{filepath.Join(out, "crds"), outside} {
					if err := os.MkdirAll(d, 0o755); err != nil {
						return "", err
					}
				}
				if err := os.WriteFile(filepath.Join(outside, "secret.yaml"), []byte("secret: [not yaml\n"), 0o644); err != nil {
					return "", err
				}
				if err := os.WriteFile(filepath.Join(out, "crossplane.yaml"), []byte(validPackage), 0o644); err != nil {
					return "", err
				}
				evil := filepath.Join(out, "crds", "evil.yaml")
				if err := os.Remove(evil); err != nil && !os.IsNotExist(err) {
					return "", err
				}
				return out, os.Symlink(filepath.Join("..", "..", name+"-outside", "secret.yaml"), evil)
			},
		},
	}
}

// lintCases are packages that parse but must draw lint errors, with values
// chosen to hurt the linter or the CLI's output.
func lintCases() []Case {
	return []Case{
		{
			Name: "lint-terminal-escapes",
			Description: "The meta object's name and description hold terminal escape sequences (clear screen, " +
				"set title, bell) and a right-to-left override, and so does a label value, which the API server " +
				"would refuse: a lint error (XP211); the CLI " +
				"must print such values escaped, never raw.",
			Kind:   KindPackageYAML,
			Expect: class(ClassLintError),
			Size:   600,
			Seed:   true,
			Write: yamlCase("lint-terminal-escapes", text(strings.NewReplacer(
				"  name: hostile-fixture\n", "  name: \"\\e]0;pwned\\a\\e[2J\\e[31mhostile\\u202efixture\"\n  labels:\n    team: \"\\e]0;pwned\\a\\u202e\"\n",
				"description: A fixture that the hostile corpus wraps.", "description: \"\\e[2J\\e[Hcleared\\a\"",
			).Replace(validPackage))),
		},
		{
			Name:        "lint-dependency-flood",
			Description: "A Configuration with 5,000 dependencies, each with an invalid version constraint: 5,000 lint errors, produced and printed in bounded time.",
			Kind:        KindPackageYAML,
			Expect:      class(ClassLintError),
			Size:        500_000,
			Write: yamlCase("lint-dependency-flood", func(w io.Writer) error {
				var b strings.Builder
				b.WriteString(validPackage + "  dependsOn:\n")
				for i := range dependencyN {
					fmt.Fprintf(&b, "  - apiVersion: pkg.crossplane.io/v1\n    kind: Provider\n    package: xpkg.example.com/hostile/p%d\n    version: \">=v1.0.0 <<< %d\"\n", i, i)
				}
				_, err := io.WriteString(w, b.String())
				return err
			}),
		},
		{
			Name:        "lint-semver-huge",
			Description: "crossplane.version is '>=v' followed by 50,000 nines: the number overflows, an invalid constraint. Parsing it must be linear and fail cleanly.",
			Kind:        KindPackageYAML,
			Expect:      class(ClassLintError),
			Size:        51_000,
			Seed:        true,
			Write: yamlCase("lint-semver-huge", text(strings.Replace(validPackage,
				`version: ">=v1.14.0"`, `version: ">=v`+strings.Repeat("9", 50_000)+`"`, 1))),
		},
		{
			Name:        "lint-two-meta",
			Description: "Two meta objects (a Configuration and a Provider) in one stream. Exactly one is allowed: a lint error.",
			Kind:        KindPackageYAML,
			Expect:      class(ClassLintError),
			Size:        700,
			Seed:        true,
			Write:       yamlCase("lint-two-meta", text(validPackage+"---\n"+otherPackage)),
		},
	}
}

// Controls returns one valid package per source kind, written by the same
// writers as the hostile cases: they must read and lint cleanly
// (ClassOK), proving a hostile case fails for its hostility and not for a
// flaw of the writer.
func Controls() []Case {
	pkg := []byte(validPackage)
	return []Case{
		{
			Name:        "control-xpkg",
			Description: "A valid .xpkg laid out as Crossplane's build lays it out.",
			Kind:        KindXpkg,
			Expect:      class(ClassOK),
			Size:        4_000,
			Seed:        true,
			Write:       xpkgCase("control-xpkg", packageYAMLLayer(pkg), xpkgHooks{}),
		},
		{
			Name:        "control-oci-dir",
			Description: "A valid OCI layout directory with an annotated gzip base layer.",
			Kind:        KindOCILayoutDir,
			Expect:      class(ClassOK),
			Size:        2_000,
			Seed:        true,
			Write:       ociImageCase("control-oci-dir", KindOCILayoutDir, packageYAMLLayer(pkg), ociHooks{}),
		},
		{
			Name:        "control-oci-tar",
			Description: "A valid OCI layout tar whose single layer is zstd-compressed and not annotated (package.yaml found by flattening).",
			Kind:        KindOCILayoutTar,
			Expect:      class(ClassOK),
			Size:        8_000,
			Seed:        true,
			Write: ociImageCase("control-oci-tar", KindOCILayoutTar, func() []layerSpec {
				return []layerSpec{{mediaType: ocispec.MediaTypeImageLayerZstd, tar: tarOf(file("package.yaml", pkg))}}
			}, ociHooks{}),
		},
		{
			Name:        "control-yaml",
			Description: "A valid package.yaml stream.",
			Kind:        KindPackageYAML,
			Expect:      class(ClassOK),
			Size:        600,
			Seed:        true,
			Write:       yamlCase("control-yaml", text(validPackage)),
		},
		{
			Name:        "control-dir",
			Description: "A valid on-disk package: crossplane.yaml alone.",
			Kind:        KindPackageDir,
			Expect:      class(ClassOK),
			Size:        600,
			Seed:        true,
			Write: func(ctx context.Context, dir string) (string, error) {
				out, err := caseOutput(dir, "control-dir", KindPackageDir)
				if err != nil {
					return "", err
				}
				if err := os.MkdirAll(out, 0o755); err != nil {
					return "", err
				}
				return out, os.WriteFile(filepath.Join(out, "crossplane.yaml"), pkg, 0o644)
			},
		},
	}
}
