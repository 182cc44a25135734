package xpkg_test

import (
	"bytes"
	"fmt"
	"os"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/linter/rules"
	"github.com/xpkgkit/xpkgkit/parser"
	"github.com/xpkgkit/xpkgkit/xpkg"
	"github.com/xpkgkit/xpkgkit/xpkg/xpkgtest"
)

// form is one way of giving the same package to Open or OpenReader.
type form struct {
	name string
	kind xpkg.SourceKind
	open func(t *testing.T) (*xpkg.Package, error)
}

// openPath returns a form's open function for a path.
func openPath(path string, opts ...xpkg.Option) func(t *testing.T) (*xpkg.Package, error) {
	return func(t *testing.T) (*xpkg.Package, error) { return xpkg.Open(t.Context(), path, opts...) }
}

// openFileReader returns a form's open function that gives the file at
// path to OpenReader.
func openFileReader(path string, opts ...xpkg.Option) func(t *testing.T) (*xpkg.Package, error) {
	return func(t *testing.T) (*xpkg.Package, error) {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		return xpkg.OpenReader(t.Context(), f, opts...)
	}
}

// fixtureForms writes p in every form Open and OpenReader read.
func fixtureForms(t *testing.T, p *xpkgtest.Package) []form {
	t.Helper()
	img := p.MustImage(t)
	xpkgFile := img.XpkgFile(t)
	yamlFile := p.PackageYAMLFile(t)
	return []form{
		{"directory", xpkg.SourceDirectory, openPath(p.Dir(t))},
		{"package.yaml", xpkg.SourcePackageYAML, openPath(yamlFile)},
		{"xpkg", xpkg.SourceXpkg, openPath(xpkgFile)},
		{"oci-layout", xpkg.SourceOCILayout, openPath(img.LayoutDir(t))},
		{"oci-layout-tar", xpkg.SourceOCILayoutTar, openPath(img.LayoutTarFile(t))},
		{"reader-yaml", xpkg.SourceReader, openFileReader(yamlFile)},
		{"reader-xpkg", xpkg.SourceReader, openFileReader(xpkgFile)},
	}
}

// streamLines maps each file of p's on-disk form to the line of the
// package.yaml stream its first line becomes: Build (and xpkgtest) join the
// files in the order parser.ParseFS reads them, parser.MetaFile first, each ended
// by a newline and followed by a "---" line.
func streamLines(p *xpkgtest.Package) map[string]int {
	fsys := p.FS()
	var files []string
	for name := range fsys {
		if name != parser.MetaFile && !strings.HasPrefix(name, xpkg.ExamplesDir+"/") && (path.Ext(name) == ".yaml" || path.Ext(name) == ".yml") {
			files = append(files, name)
		}
	}
	slices.Sort(files)
	if _, ok := fsys[parser.MetaFile]; ok {
		files = append([]string{parser.MetaFile}, files...)
	}
	offsets := map[string]int{}
	line := 0
	for _, name := range files {
		offsets[name] = line
		data := fsys[name].Data
		line += bytes.Count(data, []byte("\n")) + 1 // the file, then "---"
		if len(data) > 0 && data[len(data)-1] != '\n' {
			line++
		}
	}
	return offsets
}

// positionInMessage matches a position cited in a message.
var positionInMessage = regexp.MustCompile(`([^\s()]+\.ya?ml|<stdin>):(\d+):(\d+)`)

// diagnosticLines formats diagnostics for comparison across forms: every
// field but the file name, with lines of a directory's files mapped to the
// lines of the joined stream (offsets, nil for a stream), and without the
// image rules (XP5xx), which only images have.
func diagnosticLines(ds []linter.Diagnostic, offsets map[string]int) []string {
	var out []string
	for _, d := range ds {
		if strings.HasPrefix(d.RuleID, "XP5") {
			continue
		}
		line := d.Pos.Line
		if offsets != nil && line > 0 {
			line += offsets[d.Pos.File]
		}
		obj := ""
		if d.Object != nil {
			obj = fmt.Sprintf("%s/%s %s", d.Object.APIVersion, d.Object.Kind, d.Object.Name)
		}
		// Messages may cite other positions ("file:line:col").
		msg := positionInMessage.ReplaceAllStringFunc(d.Message, func(m string) string {
			sub := positionInMessage.FindStringSubmatch(m)
			l, _ := strconv.Atoi(sub[2])
			if offsets != nil {
				l += offsets[sub[1]]
			}
			return fmt.Sprintf("FILE:%d:%s", l, sub[3])
		})
		out = append(out, fmt.Sprintf("%d:%d %s %s %s %q field=%s object=%s", line, d.Pos.Column, d.Severity, d.RuleID, d.RuleName, msg, d.Field, obj))
	}
	slices.Sort(out)
	return out
}

// objectNames lists a package's objects as "apiVersion/kind name", sorted.
func objectNames(p *xpkg.Package) []string {
	var out []string
	for _, o := range append(slices.Clone(p.Meta), p.Objects...) {
		out = append(out, o.APIVersion+"/"+o.Kind+" "+o.ObjectMeta.Name)
	}
	slices.Sort(out)
	return out
}

// ruleObjects lists diagnostics as "rule object", sorted, without the image
// rules: what stays the same when the YAML is re-encoded.
func ruleObjects(ds []linter.Diagnostic) []string {
	var out []string
	for _, d := range ds {
		if strings.HasPrefix(d.RuleID, "XP5") {
			continue
		}
		name := ""
		if d.Object != nil {
			name = d.Object.Kind + "/" + d.Object.Name
		}
		out = append(out, d.RuleID+" "+name)
	}
	slices.Sort(out)
	return out
}

// ruleIDs returns the IDs of the diagnostics, in order.
func ruleIDs(ds []linter.Diagnostic) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.RuleID
	}
	return out
}

// mustLint lints p and fails the test on error.
func mustLint(t *testing.T, p *xpkg.Package, opts ...linter.Option) *linter.Result {
	t.Helper()
	res, err := rules.LintPackage(t.Context(), p, opts...)
	if err != nil {
		t.Fatalf("Lint: %v", err)
	}
	if len(res.Failures) > 0 {
		t.Fatalf("Lint: rules failed: %v", res.Failures)
	}
	return res
}

// linterFacts returns the facts of a package image with a base layer and an
// examples layer.
func linterFacts(source, base, examples string) xpkg.ImageFacts {
	return xpkg.ImageFacts{
		Source:          source,
		BaseLayers:      []string{base},
		OtherLayers:     []xpkg.LayerFact{{Digest: examples, Annotation: xpkg.AnnotationExamples}},
		PackageYAMLPath: xpkg.PackageFile,
	}
}
