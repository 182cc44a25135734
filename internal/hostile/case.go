package hostile

import (
	"context"
	"fmt"
	"slices"
)

// SourceKind says what a case writes: which of the sources xpkg.Open
// detects it exercises.
type SourceKind int

// The source kinds a case can be written as.
const (
	// KindXpkg is a docker-archive tarball as the Crossplane CLI writes it
	// (file name ends in ".xpkg").
	KindXpkg SourceKind = iota + 1
	// KindOCILayoutDir is an OCI image layout directory (name ends in ".oci").
	KindOCILayoutDir
	// KindOCILayoutTar is an OCI image layout packed in a tar file (name
	// ends in ".oci.tar").
	KindOCILayoutTar
	// KindPackageYAML is a plain package.yaml stream (name ends in ".yaml").
	KindPackageYAML
	// KindPackageDir is an on-disk package directory with crossplane.yaml at
	// its root.
	KindPackageDir
)

// String returns the kind's short name, e.g. "oci-layout-dir".
func (k SourceKind) String() string {
	switch k {
	case KindXpkg:
		return "xpkg"
	case KindOCILayoutDir:
		return "oci-layout-dir"
	case KindOCILayoutTar:
		return "oci-layout-tar"
	case KindPackageYAML:
		return "package-yaml"
	case KindPackageDir:
		return "package-dir"
	}
	return fmt.Sprintf("SourceKind(%d)", int(k))
}

// ext is the suffix a case of this kind appends to its name on disk.
func (k SourceKind) ext() string {
	switch k {
	case KindXpkg:
		return ".xpkg"
	case KindOCILayoutDir:
		return ".oci"
	case KindOCILayoutTar:
		return ".oci.tar"
	case KindPackageYAML:
		return ".yaml"
	}
	return ""
}

// Class is the class of outcome a correct reader produces for a case. The
// classes are xpkgkit's error classes, named here without importing the
// readers so that the corpus stays independent of the code it attacks.
type Class int

// The outcome classes. Every class but ClassOK, ClassParseError and
// ClassLintError means "the source cannot be read": Open returns an error
// and xpkg-lint exits 2.
const (
	// ClassOK: the package reads and lints without errors (controls only).
	ClassOK Class = iota
	// ClassLimitExceeded: a Limit stopped the read before the memory or
	// time was spent.
	ClassLimitExceeded
	// ClassDigestMismatch: a blob's content does not hash to its descriptor's
	// digest.
	ClassDigestMismatch
	// ClassSizeMismatch: a blob is shorter or longer than its descriptor
	// says.
	ClassSizeMismatch
	// ClassBadPath: a name escapes its root (.., absolute paths, links
	// pointing out) and is refused.
	ClassBadPath
	// ClassNotFound: something required (blob, manifest, config, a regular
	// package.yaml) is absent.
	ClassNotFound
	// ClassMalformed: metadata or an archive is invalid: bad JSON, bad
	// digest algorithm or length, negative size, a broken tar, two base
	// layers, a duplicate package.yaml.
	ClassMalformed
	// ClassParseError: the source reads but a document does not parse (bad
	// YAML, control bytes, duplicate keys, no apiVersion or kind); it
	// surfaces as a positioned diagnostic (XP001/XP002) and xpkg-lint exits 1.
	ClassParseError
	// ClassLintError: the package parses but draws error diagnostics;
	// xpkg-lint exits 1.
	ClassLintError
)

var classNames = [...]string{
	ClassOK:             "ok",
	ClassLimitExceeded:  "limit-exceeded",
	ClassDigestMismatch: "digest-mismatch",
	ClassSizeMismatch:   "size-mismatch",
	ClassBadPath:        "bad-path",
	ClassNotFound:       "not-found",
	ClassMalformed:      "malformed",
	ClassParseError:     "parse-error",
	ClassLintError:      "lint-error",
}

// String returns the class's short name, e.g. "digest-mismatch".
func (c Class) String() string {
	if c >= 0 && int(c) < len(classNames) {
		return classNames[c]
	}
	return fmt.Sprintf("Class(%d)", int(c))
}

// ExitCode is the exit status xpkg-lint gives for this class (with the
// default --fail-on error): 0 for ClassOK, 1 for parse and lint errors, 2
// for every class that makes the source unreadable.
func (c Class) ExitCode() int {
	switch c {
	case ClassOK:
		return 0
	case ClassParseError, ClassLintError:
		return 1
	}
	return 2
}

// Limit names the limit a ClassLimitExceeded outcome is expected to hit.
type Limit int

// The limits a case can exceed.
const (
	// LimitAny matches any limit: used when several limits may trip first,
	// or when the class is not ClassLimitExceeded.
	LimitAny Limit = iota
	// LimitManifestSize caps index, manifest and config JSON (and a docker
	// archive's manifest.json).
	LimitManifestSize
	// LimitIndexDepth caps how deep nested indexes are followed.
	LimitIndexDepth
	// LimitLayerCount caps the number of layers in a manifest.
	LimitLayerCount
	// LimitDecompressedSize caps bytes produced by decompressing a layer (or
	// all layers of an image).
	LimitDecompressedSize
	// LimitEntryCount caps tar entries read from a layer or an archive.
	LimitEntryCount
	// LimitStreamSize caps the bytes of a package.yaml stream (or of all
	// files of an on-disk package).
	LimitStreamSize
	// LimitDocumentSize caps the bytes of one YAML document.
	LimitDocumentSize
	// LimitDocumentCount caps the number of documents in a stream.
	LimitDocumentCount
	// LimitDepth caps YAML nesting depth.
	LimitDepth
	// LimitAliases caps YAML alias expansion.
	LimitAliases
)

var limitNames = [...]string{
	LimitAny:              "any",
	LimitManifestSize:     "manifest-size",
	LimitIndexDepth:       "index-depth",
	LimitLayerCount:       "layer-count",
	LimitDecompressedSize: "decompressed-size",
	LimitEntryCount:       "entry-count",
	LimitStreamSize:       "stream-size",
	LimitDocumentSize:     "document-size",
	LimitDocumentCount:    "document-count",
	LimitDepth:            "depth",
	LimitAliases:          "aliases",
}

// String returns the limit's short name, e.g. "decompressed-size".
func (l Limit) String() string {
	if l >= 0 && int(l) < len(limitNames) {
		return limitNames[l]
	}
	return fmt.Sprintf("Limit(%d)", int(l))
}

// Outcome is what reading and linting a case produces, reduced to what the
// corpus can predict.
type Outcome struct {
	// Class is the outcome class.
	Class Class
	// Limit is the limit hit, for ClassLimitExceeded; LimitAny otherwise.
	Limit Limit
	// Rule is, for ClassParseError and ClassLintError, the rule ID
	// expected among the diagnostics (e.g. "XP001"); empty when any error
	// diagnostic will do. Informative: Case.Accepts ignores it.
	Rule string
}

// String renders the outcome as "class", "class(limit)" or "class[rule]".
func (o Outcome) String() string {
	s := o.Class.String()
	if o.Class == ClassLimitExceeded {
		s += "(" + o.Limit.String() + ")"
	}
	if o.Rule != "" {
		s += "[" + o.Rule + "]"
	}
	return s
}

// matches reports whether got is o: same class and, for limits, the same
// limit or LimitAny on either side.
func (o Outcome) matches(got Outcome) bool {
	if o.Class != got.Class {
		return false
	}
	if o.Class != ClassLimitExceeded {
		return true
	}
	return o.Limit == LimitAny || got.Limit == LimitAny || o.Limit == got.Limit
}

// Case is one adversarial input. Cases are values: Write materialises the
// input on disk when a test needs it, streaming, so the corpus holds no large
// blobs.
type Case struct {
	// Name is unique, lower-case with dashes; the written path is Name plus
	// the kind's extension (".xpkg", ".oci", ".oci.tar", ".yaml", or nothing
	// for a package directory).
	Name string
	// Description says what the input is, what it attacks and why the
	// expected outcome is the right one.
	Description string
	// Kind is the source kind written.
	Kind SourceKind
	// Expect is the outcome a correct reader produces.
	Expect Outcome
	// Alternatives are other outcomes a correct reader may produce instead
	// (for example when two limits can trip first); Description says why.
	Alternatives []Outcome
	// Later is the outcome from a later Crossplane release line on, where
	// Crossplane's verdict on the input changed (Expect and Alternatives
	// hold before it); nil when every line gives the same.
	Later *LaterOutcome
	// Size is the approximate number of bytes Write puts on disk.
	Size int64
	// Heavy marks cases that are large on disk (more than a few MiB) or
	// make a reader do seconds of work before a limit stops it; skip them
	// under testing.Short.
	Heavy bool
	// Seed marks small cases (under 64 KiB, regular files and directories
	// only) that WriteSeeds commits to testdata as fuzz seeds.
	Seed bool
	// Write materialises the case inside dir (which must exist) and returns
	// the path of the source it wrote. It is deterministic: the same bytes
	// on every call.
	Write func(ctx context.Context, dir string) (string, error)
}

// Accepts reports whether got is the expected outcome or one of the
// alternatives. A limit of LimitAny on either side matches any limit.
func (c Case) Accepts(got Outcome) bool {
	if c.Expect.matches(got) {
		return true
	}
	return slices.ContainsFunc(c.Alternatives, func(o Outcome) bool { return o.matches(got) })
}

// LaterOutcome is a case's outcome from a Crossplane release line on.
type LaterOutcome struct {
	// Since is the first release line it holds at, such as "v2.2".
	Since string
	// Outcome is what a correct reader produces from Since on.
	Outcome Outcome
}

// ExitCodesAt returns the xpkg-lint exit statuses the case accepts when
// the lint targets the release line line (such as "v2.3"): Later's from
// its Since on, ExitCodes' before.
func (c Case) ExitCodesAt(line string) []int {
	if c.Later != nil && !lineBefore(line, c.Later.Since) {
		return []int{c.Later.Outcome.Class.ExitCode()}
	}
	return c.ExitCodes()
}

// lineBefore reports whether the release line a ("v2.1") is older than b.
func lineBefore(a, b string) bool {
	var am, an, bm, bn int
	fmt.Sscanf(a, "v%d.%d", &am, &an)
	fmt.Sscanf(b, "v%d.%d", &bm, &bn)
	return am < bm || am == bm && an < bn
}

// ExitCodes returns the xpkg-lint exit statuses the accepted outcomes give,
// sorted, without duplicates, at the release lines before Later's.
func (c Case) ExitCodes() []int {
	codes := []int{c.Expect.Class.ExitCode()}
	for _, o := range c.Alternatives {
		codes = append(codes, o.Class.ExitCode())
	}
	slices.Sort(codes)
	return slices.Compact(codes)
}

// Lookup returns the case of Cases or Controls with the given name.
func Lookup(name string) (Case, bool) {
	for _, c := range append(Cases(), Controls()...) {
		if c.Name == name {
			return c, true
		}
	}
	return Case{}, false
}

// Cases returns the hostile corpus, a fresh slice on every call, in a stable
// order: container cases first, then YAML and lint cases.
func Cases() []Case {
	var cs []Case
	cs = append(cs, compressionCases()...)
	cs = append(cs, tarCases()...)
	cs = append(cs, metadataCases()...)
	cs = append(cs, blobCases()...)
	cs = append(cs, yamlCases()...)
	cs = append(cs, lintCases()...)
	cs = append(cs, ociCostCases()...)
	cs = append(cs, parserCostCases()...)
	cs = append(cs, lintCostCases()...)
	cs = append(cs, examplesCostCases()...)
	cs = append(cs, schemaCostCases()...)
	cs = append(cs, celCostCases()...)
	cs = append(cs, textCases()...)
	cs = append(cs, gatewayCases()...)
	cs = append(cs, targetsCases()...)
	cs = append(cs, sendsCostCases()...)
	return cs
}

// outcome helpers keep the case tables short.

func limit(l Limit) Outcome { return Outcome{Class: ClassLimitExceeded, Limit: l} }
func class(c Class) Outcome { return Outcome{Class: c} }
func rule(c Class, id string) Outcome {
	return Outcome{Class: c, Rule: id}
}

// notRegular returns the alternatives to ClassNotFound accepted when
// package.yaml exists but is not a regular file: refused as a bad path or as
// malformed. Any outcome that reads content through it is wrong.
func notRegular() []Outcome { return []Outcome{class(ClassBadPath), class(ClassMalformed)} }
