package rules

import (
	"github.com/xpkgkit/xpkgkit/linter"

	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/xpkgkit/xpkgkit/limit"
	"github.com/xpkgkit/xpkgkit/parser"
)

// errorRuleID says which rule reports a document error of the parser.
func errorRuleID(err error) string {
	switch {
	case errors.Is(err, parser.ErrMissingType), errors.Is(err, parser.ErrNotObject), errors.Is(err, parser.ErrUnknownKind):
		return "XP002"
	case errors.Is(err, parser.ErrDecode):
		return "XP005"
	default:
		return "XP001"
	}
}

// documentErrorMessage describes a document error without the position the
// diagnostic carries anyway.
func documentErrorMessage(e *parser.DocumentError) string {
	var le *limit.Error
	if errors.As(e.Err, &le) {
		return fmt.Sprintf("document %d cannot be read: it exceeds the parser limit %s (%d)", e.Pos.Document, le.Limit, le.Max)
	}
	msg := e.Err.Error()
	// Errors from deeper layers may repeat the position; keep the reason.
	if p := e.Pos.String() + ": "; strings.HasPrefix(msg, p) {
		msg = msg[len(p):]
	}
	return reasonText(msg)
}

func reportDocumentErrors(p *linter.Pass) error {
	for _, e := range p.Package.Errors {
		if canceled(p) {
			return p.Context().Err()
		}
		if e == nil || e.Err == nil || errorRuleID(e.Err) != p.Rule.ID {
			continue
		}
		d := linter.Diagnostic{Message: documentErrorMessage(e), Pos: e.Pos}
		if u := e.Unquoted; u != nil && u.Pos.Offset >= 0 {
			d.SuggestedFixes = []linter.SuggestedFix{{
				Message:   "quote " + token(u.Text) + " to make it a string",
				TextEdits: []linter.TextEdit{{File: e.Pos.File, Offset: u.Pos.Offset, End: u.Pos.Offset + int64(len(u.Text)), NewText: strconv.Quote(u.Text)}},
			}}
		}
		p.Report(d)
	}
	if p.Rule.ID == "XP001" && examples(p) != nil {
		for _, e := range examples(p).Errors {
			if canceled(p) {
				return p.Context().Err()
			}
			if e == nil || e.Err == nil || !exampleRefused(e.Err) {
				continue
			}
			p.Report(linter.Diagnostic{Message: "example " + documentErrorMessage(e) + "; crossplane xpkg build refuses the package (\"failed to parse examples\"), and XP408 cannot check the example", Pos: e.Pos})
		}
	}
	return nil
}

// exampleRefused reports whether Crossplane's examples parser refuses an
// example whose document error is err. It splits the stream with
// apimachinery's YAMLReader and decodes each document with sigs.k8s.io/yaml
// into an Unstructured (crossplane v2.1.0 internal/xpkg/parser/examples,
// Parser.Parse; crossplane-runtime v2.4.0 pkg/xpkg/parser/examples, the
// same): invalid YAML, a value JSON cannot hold, a document that is a
// list or a scalar, and one without a kind fail; one with a kind and no
// apiVersion, a null document, and any kind or field type decode. A
// document over one of our parser's limits cannot be read, so it is
// reported too.
func exampleRefused(err error) bool {
	switch {
	case errors.Is(err, parser.ErrUnknownKind), errors.Is(err, parser.ErrDecode):
		return false
	case errors.Is(err, parser.ErrMissingType):
		return !strings.HasSuffix(err.Error(), ": no apiVersion")
	case errors.Is(err, parser.ErrNotObject):
		return !strings.HasSuffix(err.Error(), "found a null")
	}
	return true
}

func ruleYAMLSyntax() *linter.Rule {
	return &linter.Rule{
		ID: "XP001", Name: "yaml-syntax", Severity: linter.SeverityError,
		Doc: `A document is not valid YAML

The parser could not read the document: a syntax error, a value JSON cannot
hold (a non-string key, .nan), or a document that exceeds one of the
parser's limits (size, depth, alias expansion), in which case the message
names the limit. Crossplane rejects the whole package when one document
cannot be read (crossplane-runtime v2.1.0, pkg/parser, PackageParser.Parse,
which crossplane xpkg build and the package revision reconciler call). The
limits are xpkgkit's own, set far above what real packages need.

It also reports each example (the YAML files under examples/ of a package
directory, .up/examples.yaml of an image's examples layer) that
crossplane xpkg build cannot parse: Builder.Build parses the examples
and fails with "failed to parse examples" (crossplane v2.1.0
internal/xpkg/build.go and internal/xpkg/parser/examples, Parser.Parse;
from v2.3 crossplane-runtime pkg/xpkg/build.go and
pkg/xpkg/parser/examples, unchanged at v2.4.0). That parser splits the
stream with apimachinery's YAMLReader and decodes each document into an
Unstructured, so invalid YAML, a list or a scalar, and a document without
a kind fail (one without an apiVersion does not). Its file reader
(FsReadCloser.Read, pkg/parser/fsreader.go) appends "
...
" and
"
---
" to every file, so the last document of a file must hold an
object: a file ending in "---" (or in blank lines or comments after one)
fails, and so does a "---" line followed by anything but a comment.`,
		Bad:  "apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata:\n  name: [unclosed\n",
		Good: metaHead,
		Run:  reportDocumentErrors,
	}
}

func ruleMissingType() *linter.Rule {
	return &linter.Rule{
		ID: "XP002", Name: "missing-type", Severity: linter.SeverityError,
		Doc: `A document has no apiVersion or no kind

Every document of a package must be a Kubernetes object with a string
apiVersion and kind. This rule also reports a document that is a scalar or
a list rather than an object, and a document in the meta group whose
version and kind the meta scheme does not know (for example
meta.pkg.crossplane.io/v2), since Crossplane cannot decode either: its
package parser tries the meta scheme, then the object scheme, and refuses
the package when neither decodes the document (crossplane-runtime v2.1.0,
pkg/parser, PackageParser.Parse).`,
		Bad:  "metadata:\n  name: example\nspec: {}\n",
		Good: metaHead + "spec: {}\n",
		Run:  reportDocumentErrors,
	}
}

func ruleFieldType() *linter.Rule {
	return &linter.Rule{
		ID: "XP005", Name: "field-type", Severity: linter.SeverityError,
		Doc: `A field's value does not fit its type

The document is valid YAML with a known type, but a field holds a value of
the wrong type: a number where the meta schema wants a string (version:
1.14, unquoted), a mapping where it wants a list (dependsOn written as one
entry), or metadata that does not fit a Kubernetes ObjectMeta (a label
value true instead of "true"). The diagnostic points at the field and says
what it holds and what its place wants. Crossplane decodes every document
into the Go type of its kind and refuses the whole package when one does
not decode (crossplane-runtime v2.1.0, pkg/parser, PackageParser.Parse, at
crossplane xpkg build and at install).`,
		Bad:  metaHead + "spec:\n  crossplane:\n    version: 1.14  # a number, not a string\n",
		Good: metaHead + "spec:\n  crossplane:\n    version: \">=1.14\"\n",
		Run:  reportDocumentErrors,
	}
}

func ruleEmptyPackage() *linter.Rule {
	return &linter.Rule{
		ID: "XP003", Name: "empty-package", Severity: linter.SeverityError,
		Doc: `The stream holds no objects

A package's YAML stream must hold at least its meta object. This rule
reports a stream that is empty or holds only comments and empty documents;
a stream whose documents all failed to parse is left to XP001 and XP002.
Crossplane refuses it: it holds no meta object (crossplane v2.1.0,
internal/xpkg, OneMeta, and Builder.Build's own check).`,
		Bad:  "# nothing but a comment\n---\n",
		Good: "apiVersion: meta.pkg.crossplane.io/v1\nkind: Configuration\nmetadata:\n  name: example\n",
		Run: func(p *linter.Pass) error {
			if len(p.Package.Meta)+len(p.Package.Objects)+len(p.Package.Errors) == 0 {
				p.Reportf(nil, nil, "the package holds no objects: it needs at least a meta object (Provider, Configuration or Function)")
			}
			return nil
		},
	}
}

func ruleUnusedSuppression() *linter.Rule {
	return &linter.Rule{
		ID: "XP004", Name: "unused-suppression", Severity: linter.SeverityInfo, SuppressionCheck: true,
		Doc: `A suppression annotation silences nothing

The annotation lint.xpkgkit.dev/ignore lists rules (by ID or name) whose
diagnostics are dropped: on an object, those inside that object's document;
on the meta object, those of the whole package. An entry that silenced no
diagnostic is stale, or misspelt, and is reported here, on the annotation.
Entries naming a rule that did not run (disabled, not for this kind of
package, or lacking the image facts or target version it needs) are not
reported, since nothing can be told. The linter itself implements this rule;
remove it from the rule set (or disable it) to turn it off.`,
		Bad:  crdHead + "metadata:\n  name: buckets.example.org\n  annotations:\n    lint.xpkgkit.dev/ignore: XP401  # the name is right: nothing to silence\n" + crdBody,
		Good: exampleCRD,
		Run:  func(*linter.Pass) error { return nil }, // implemented by Lint
	}
}

func ruleSkippedFile() *linter.Rule {
	return &linter.Rule{
		ID: "XP006", Name: "skipped-file", Severity: linter.SeverityWarning,
		Doc: `A file of the package directory was not read

A package read from its on-disk format (parser.ParseFS) is untrusted input
too, so xpkgkit does not follow symbolic links: a link whose name ends in
.yaml or .yml, or a link to a directory, is skipped, and what it leads to
is not part of the package that was checked. crossplane xpkg build does
follow links, so the package it builds holds objects that were never
linted. Copy the file or directory into the package instead of linking to
it.

xpkgkit also leaves out directories whose names start with "." (.github,
.crossplane; .git is not even walked), but crossplane xpkg build reads every
*.yaml and *.yml file under the package root except the examples directory,
hidden directories included (crossplane v2.1.0, cmd/crank/xpkg/build.go,
buildFilters: it skips directory entries, files that are not YAML and empty
files, and the paths given with --ignore, nothing else), so a CI workflow in
.github/workflows fails its build. Each YAML file under a hidden directory
is reported: move it out of the package directory, or, when the build
leaves it out (its --ignore flag), list it under ignore in the project's
.xpkg-lint.yaml (the same globs, relative to the package root:
ignore: [".github/workflows/*"]), so that xpkg-lint leaves it out too.
This is a warning, not an error, by decision, although the build fails
on such a file when it is not ignored: the linter cannot know the flags
the build runs with, and most package repositories keep a .github
directory and build with --ignore.

Each skipped entry is reported once. The diagnostic's file is the entry's
path and its line is 0, as for image-level diagnostics: no line of it was
read.`,
		Bad:  "# the package directory\ncrossplane.yaml: file\ncrds/bucket.yaml: symbolic link to ../../shared/bucket.yaml\n",
		Good: "# the package directory\ncrossplane.yaml: file\ncrds/bucket.yaml: file  # a copy of ../../shared/bucket.yaml\n",
		Run: func(p *linter.Pass) error {
			for _, s := range p.Package.Skipped {
				if canceled(p) {
					return p.Context().Err()
				}
				why := "symlink not followed"
				if s.Reason != "" {
					why = reasonText(s.Reason)
				}
				msg := token(s.Path) + " was not read: " + why + "; Crossplane's build would include the link's target: copy it in instead"
				if s.Reason == "in a hidden directory" {
					msg = token(s.Path) + " was not read: " + why + "; crossplane xpkg build reads every YAML file outside the examples directory, " +
						"hidden ones too: move it out of the package directory, or, when the build leaves it out, say so with ignore: [" +
						token(path.Dir(s.Path)+"/*") + "] in .xpkg-lint.yaml"
				}
				// Line 0: the entry was not read, so there is no line of it
				// to point at (the convention of ImagePos).
				p.Report(linter.Diagnostic{Pos: parser.Position{File: s.Path}, Message: msg})
			}
			return nil
		},
	}
}
