package hostile

import (
	"fmt"
	"strings"
)

// DiffCase is a worst case of the API diff (linter/apidiff, xpkg-lint
// --against OLD NEW): two packages whose definitions give Diff the most
// work for their size. Diff must stay linear in the definitions and
// schema nodes of both, keep at most its cap of changes per kind, and
// honour cancellation; the CLI must stay within the hostile budget with
// both packages open.
type DiffCase struct {
	// Name is unique and starts with "apidiff-cost-".
	Name string
	// Description says what the pair attacks.
	Description string
	// Old and New are the packages (package.yaml streams); both read and
	// lint without errors (ClassOK).
	Old, New Case
	// MinChanges is the least number of changes Diff finds (kept or
	// counted beyond the cap).
	MinChanges int
}

// apidiffCostBytes is about the size of each package of a DiffCase: both
// are open at once, each parsed object keeping its bytes.
const apidiffCostBytes = 4 << 20

const diffCRDHead = "---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: %[1]s.example.org\nspec:\n  group: example.org\n  names: {kind: %[2]s, plural: %[1]s}\n  scope: Cluster\n  versions:\n"

// diffVersion is a version whose spec's schema is props (lines indented
// for spec.properties).
func diffVersion(name string, served, storage bool, props string) string {
	return fmt.Sprintf("  - name: %s\n    served: %t\n    storage: %t\n    schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n          spec:\n            type: object\n            properties:\n%s", name, served, storage, props)
}

// APIDiffCases returns the worst cases of the API diff.
func APIDiffCases() []DiffCase {
	pair := func(name, desc string, min int, old, new func() []byte) DiffCase {
		mk := func(side string, gen func() []byte) Case {
			n := name + "-" + side
			return Case{Name: n, Description: desc + " (" + side + " package)", Kind: KindPackageYAML,
				Expect: Outcome{Class: ClassOK}, Size: apidiffCostBytes, Heavy: true, Write: streamYAML(n, gen)}
		}
		return DiffCase{Name: name, Description: desc, Old: mk("old", old), New: mk("new", new), MinChanges: min}
	}
	return []DiffCase{
		// One CRD of about 100,000 fields, every one retyped: a change per
		// field, capped; each field compared once.
		pair("apidiff-cost-wide-schema",
			"One CRD whose spec has 35,000 fields (about as many as the parser's MaxNodes lets one document hold), each of whose type changes (integer to string): one change per field, capped per kind, each positioned from one parse of each side.",
			35_000,
			func() []byte { return wideCRD("integer") },
			func() []byte { return wideCRD("string") }),
		// One CRD of thousands of served versions, all removed but one.
		pair("apidiff-cost-many-versions",
			"One CRD with 7,000 served versions of small schemas; the new package serves only one: a removal per version, found through a map, not a search per version.",
			5_000,
			func() []byte { return manyVersions(true) },
			func() []byte { return manyVersions(false) }),
		// Thousands of CRDs of one kind, each renamed: pairing by kind.
		pair("apidiff-cost-renamed-definitions",
			"About 8,000 CRDs of the same kind under different names, every one renamed in the new package: each is paired with an unmatched old one of its kind without a search per pair, and each compared.",
			8_000,
			func() []byte { return manyDefinitions("a") },
			func() []byte { return manyDefinitions("b") }),
		// An enum of 200,000 values, each dropped.
		pair("apidiff-cost-huge-enum",
			"One field with an enum of 120,000 values, all replaced: the enums are compared through sets, and the message lists five.",
			1,
			func() []byte { return hugeEnum("a") },
			func() []byte { return hugeEnum("b") }),
		// A schema nested as deep as the parser allows, changed at every level.
		pair("apidiff-cost-deep-schema",
			"A schema nested 55 objects deep (about as deep as the parser's depth limit of 128 lets a CRD schema go), whose every level gains a CEL rule and a field: the recursion is bounded, each node visited once.",
			100,
			func() []byte { return deepCRD(false) },
			func() []byte { return deepCRD(true) }),
	}
}

func wideCRD(typ string) []byte {
	var b strings.Builder
	b.WriteString(goodProvider)
	fmt.Fprintf(&b, diffCRDHead, "wides", "Wide")
	var props strings.Builder
	// The parser's MaxNodes (400,000 per document) bounds the fields.
	for i := 0; i < 35_000; i++ {
		fmt.Fprintf(&props, "              f%d: {type: %s}\n", i, typ)
	}
	b.WriteString(diffVersion("v1", true, true, props.String()))
	return []byte(b.String())
}

func manyVersions(all bool) []byte {
	var b strings.Builder
	b.WriteString(goodProvider)
	fmt.Fprintf(&b, diffCRDHead, "versions", "Version")
	b.WriteString(diffVersion("v1", true, true, "              size: {type: integer}\n"))
	if !all {
		return []byte(b.String())
	}
	for i := 0; i < 7_000; i++ { // within MaxNodes
		b.WriteString(diffVersion(fmt.Sprintf("v1alpha%d", i+1), true, false, "              size: {type: integer}\n"))
	}
	return []byte(b.String())
}

func manyDefinitions(prefix string) []byte {
	var b strings.Builder
	b.WriteString(goodProvider)
	for i := 0; b.Len() < apidiffCostBytes; i++ {
		fmt.Fprintf(&b, diffCRDHead, fmt.Sprintf("%s%d", prefix, i), "Same")
		b.WriteString(diffVersion("v1", true, true, "              size: {type: integer}\n"))
	}
	return []byte(b.String())
}

func hugeEnum(prefix string) []byte {
	var b strings.Builder
	b.WriteString(goodProvider)
	fmt.Fprintf(&b, diffCRDHead, "enums", "Enum")
	var props strings.Builder
	props.WriteString("              tier:\n                type: string\n                enum:\n")
	for i := 0; i < 120_000; i++ { // within MaxNodes
		fmt.Fprintf(&props, "                - %s%d\n", prefix, i)
	}
	b.WriteString(diffVersion("v1", true, true, props.String()))
	return []byte(b.String())
}

func deepCRD(changed bool) []byte {
	const depth = 55
	var b strings.Builder
	b.WriteString(goodProvider)
	fmt.Fprintf(&b, diffCRDHead, "deeps", "Deep")
	// Flow style keeps the nesting within the line-based indentation.
	var s strings.Builder
	for i := 0; i < depth; i++ {
		s.WriteString("{type: object, ")
		if changed {
			fmt.Fprintf(&s, "x-kubernetes-validations: [{rule: 'size(self) > %d'}], ", i)
		}
		s.WriteString("properties: {")
		if changed {
			fmt.Fprintf(&s, "n%d: {type: string}, ", i)
		}
		s.WriteString("c: ")
	}
	s.WriteString("{type: string}")
	for i := 0; i < depth; i++ {
		s.WriteString("}}")
	}
	b.WriteString(diffVersion("v1", true, true, "              deep: "+s.String()+"\n"))
	return []byte(b.String())
}
