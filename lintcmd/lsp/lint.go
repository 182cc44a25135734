package lsp

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/xpkgkit/xpkgkit/linter"
	lschema "github.com/xpkgkit/xpkgkit/linter/schema"
	"github.com/xpkgkit/xpkgkit/parser"
	"github.com/xpkgkit/xpkgkit/xpkg"
)

// pkgState is what the server keeps of one package: its pending and
// running lint, and what the last lint published.
type pkgState struct {
	root   string
	gen    uint64             // bumped by every edit of the package
	timer  *time.Timer        // the debounce of the pending lint
	cancel context.CancelFunc // the running lint's
	// The last lint published: its snapshot, and its diagnostics by URI.
	snap      *snapshot
	diags     map[string][]published
	published map[string]bool // URIs given diagnostics, to clear later
	// The package parsed for hover, completion and definition, for gen
	// parsedGen (lazily, on the first request after an edit).
	parsed    *parsedPackage
	parsedGen uint64
}

// published is one diagnostic as published, with the linter's.
type published struct {
	d   linter.Diagnostic
	lsp diagnostic
}

// schedule lints the package of the file at path after the debounce,
// cancelling its running lint: a newer edit makes the older lint moot.
func (s *Server) schedule(file string) {
	root := s.packageRoot(file)
	if root == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ctx == nil || s.ctx.Err() != nil {
		return
	}
	st := s.pkgs[root]
	if st == nil {
		st = &pkgState{root: root, published: map[string]bool{}}
		s.pkgs[root] = st
	}
	st.gen++
	gen := st.gen
	if st.cancel != nil {
		st.cancel()
		st.cancel = nil
	}
	if st.timer != nil && st.timer.Stop() {
		s.wg.Done() // its function will not run
	}
	s.wg.Add(1)
	st.timer = time.AfterFunc(s.debounce, func() {
		defer s.wg.Done()
		s.runLint(st, gen)
	})
}

// runLint lints the package of st for gen, unless a newer edit came.
func (s *Server) runLint(st *pkgState, gen uint64) {
	s.mu.Lock()
	if st.gen != gen || s.ctx.Err() != nil {
		s.mu.Unlock()
		return
	}
	ctx, cancel := context.WithCancel(s.ctx)
	st.cancel = cancel
	flags := s.settings.flags()
	s.mu.Unlock()
	defer cancel()

	select {
	case s.lintSem <- struct{}{}:
		defer func() { <-s.lintSem }()
	case <-ctx.Done():
		return
	}
	if ctx.Err() != nil {
		return
	}
	snap := s.snapshotOf(st.root)
	res, err := s.ck.LintFS(ctx, st.root, snap.fs(), flags...)
	if ctx.Err() != nil {
		return
	}
	s.mu.Lock()
	if st.gen != gen {
		s.mu.Unlock()
		return
	}
	st.cancel = nil
	s.mu.Unlock()
	if err != nil {
		s.logf(msgError, "%s: %v", st.root, err)
		res = &linter.Result{}
		for _, d := range snap.docs {
			// The package could not be read: say so where the author is.
			res.Diagnostics = append(res.Diagnostics, linter.Diagnostic{
				RuleID: "xpkg-lsp", Severity: linter.SeverityError,
				Message: "the package cannot be linted: " + err.Error(),
				Pos:     parser.Position{File: d.path},
			})
		}
	}
	for _, f := range res.Failures {
		s.logf(msgError, "%s: %v", st.root, f)
	}
	byURI := s.convert(snap, res.Diagnostics)
	s.relate(ctx, st.root, byURI)
	s.mu.Lock()
	if st.gen != gen {
		s.mu.Unlock()
		return
	}
	var clear []string
	for uri := range st.published {
		if _, ok := byURI[uri]; !ok {
			clear = append(clear, uri)
			delete(st.published, uri)
		}
	}
	for _, d := range snap.docs {
		if _, ok := byURI[d.uri]; !ok && !slices.Contains(clear, d.uri) {
			clear = append(clear, d.uri)
		}
	}
	for uri := range byURI {
		st.published[uri] = true
	}
	st.snap, st.diags = snap, byURI
	onLint := s.onLint
	s.mu.Unlock()

	uris := make([]string, 0, len(byURI))
	for uri := range byURI {
		uris = append(uris, uri)
	}
	sort.Strings(uris)
	sort.Strings(clear)
	for _, uri := range uris {
		ds := make([]diagnostic, len(byURI[uri]))
		for i, p := range byURI[uri] {
			ds[i] = p.lsp
		}
		s.send("textDocument/publishDiagnostics", publishDiagnosticsParams{URI: uri, Version: versionOf(snap, uri), Diagnostics: ds})
	}
	for _, uri := range clear {
		s.send("textDocument/publishDiagnostics", publishDiagnosticsParams{URI: uri, Version: versionOf(snap, uri), Diagnostics: []diagnostic{}})
	}
	if onLint != nil {
		onLint(st.root, gen)
	}
}

// versionOf returns the version of the open document uri in snap, nil
// when it is not open.
func versionOf(snap *snapshot, uri string) *int {
	for _, d := range snap.docs {
		if d.uri == uri {
			v := d.version
			return &v
		}
	}
	return nil
}

// relintAll lints every known package again (the settings changed).
func (s *Server) relintAll() {
	s.mu.Lock()
	var files []string
	for root := range s.pkgs {
		files = append(files, filepath.Join(root, "crossplane.yaml"))
	}
	s.mu.Unlock()
	for _, f := range files {
		s.schedule(f)
	}
}

// convert turns diagnostics into LSP's, by URI. Files are read (the open
// document's text, else the file on disk) to place UTF-16 columns and
// ranges.
func (s *Server) convert(snap *snapshot, ds []linter.Diagnostic) map[string][]published {
	out := map[string][]published{}
	indexes := map[string]*lineIndex{}
	for _, d := range ds {
		file := d.Pos.File
		if file == "" || d.Pos.Line == 0 && !filepath.IsAbs(file) {
			file = snap.root
		}
		if !filepath.IsAbs(file) {
			file = filepath.Join(snap.root, file)
		}
		uri := pathToURI(file)
		x, ok := indexes[file]
		if !ok {
			text, _, ok := snap.text(file, s.maxMessage)
			if ok {
				x = newLineIndex(text)
			}
			indexes[file] = x
		}
		out[uri] = append(out[uri], published{d: d, lsp: s.lspDiagnostic(d, x)})
	}
	return out
}

// lspDiagnostic converts one diagnostic; x indexes its file (nil when it
// could not be read: columns are then taken as they are).
func (s *Server) lspDiagnostic(d linter.Diagnostic, x *lineIndex) diagnostic {
	ld := diagnostic{
		Range:    diagRange(d, x),
		Severity: severityOf(d.Severity),
		Code:     d.RuleID,
		Source:   "xpkg-lint",
		Message:  d.Message,
	}
	if d.RuleName != "" {
		ld.Message += " (" + d.RuleName + ")"
		ld.CodeDescription = &codeDescription{Href: s.ruleDocURL(d.RuleID, d.RuleName)}
	}
	return ld
}

// ruleDocURL is the link to a rule's doc.
func (s *Server) ruleDocURL(id, name string) string {
	return s.ruleDocs + "#" + strings.ToLower(id) + "-" + strings.ToLower(name)
}

// severityOf maps a severity to LSP's DiagnosticSeverity.
func severityOf(sev linter.Severity) int {
	switch sev {
	case linter.SeverityError:
		return 1
	case linter.SeverityWarning:
		return 2
	default:
		return 3
	}
}

// diagRange is the range a diagnostic covers: from its position to the
// end of the key or word there (a whole line when it has no column; the
// file's start for a file-level one).
func diagRange(d linter.Diagnostic, x *lineIndex) lspRange {
	if d.Pos.Line <= 0 {
		return lspRange{}
	}
	line := d.Pos.Line - 1
	if x == nil {
		c := max(d.Pos.Column-1, 0)
		return lspRange{Start: position{line, c}, End: position{line, c + 1}}
	}
	text := x.line(line)
	from := 0
	if d.Pos.Column > 0 {
		from = min(d.Pos.Column-1, len(text))
	} else {
		from = len(text) - len(strings.TrimLeft(text, " "))
	}
	to := tokenEnd(text, from)
	return lspRange{
		Start: position{line, utf16Len(text[:from])},
		End:   position{line, utf16Len(text[:to])},
	}
}

// tokenEnd returns where the key or word starting at from ends: at a
// mapping's colon, else at the end of the line's content.
func tokenEnd(text string, from int) int {
	rest := text[from:]
	if strings.HasPrefix(rest, "- ") {
		return from + 1
	}
	if _, after, ok := splitKey(strings.TrimLeft(rest, " ")); ok && rest != "" {
		return len(text) - len(after) - 1
	}
	end := len(strings.TrimRight(text, " \t"))
	if i := strings.Index(rest, " #"); i >= 0 {
		end = from + i
	}
	if end <= from {
		return min(from+1, len(text))
	}
	return end
}

// parsedPackage is a package parsed for hover, completion and definition.
type parsedPackage struct {
	pkg       *xpkg.Package
	snap      *snapshot
	err       error
	validator *lschema.Validator // the package's definitions
}

// relatedRules are the rules whose findings are judged by a definition of
// the package (an example against the CRD or XRD that serves its kind):
// their diagnostics carry the definition's location as related
// information.
var relatedRules = []string{"XP408"}

// relate adds to each diagnostic of relatedRules the location of the
// package's definition that serves its object's kind, in another file.
// The package is parsed (once per edit) only when there is such a
// diagnostic.
func (s *Server) relate(ctx context.Context, root string, byURI map[string][]published) {
	var pp *parsedPackage
	for uri, list := range byURI {
		for i := range list {
			d := list[i].d
			if d.Object == nil || !slices.Contains(relatedRules, d.RuleID) {
				continue
			}
			if pp == nil {
				if pp = s.parsedOf(ctx, root); pp == nil || pp.pkg == nil {
					return
				}
			}
			if ctx.Err() != nil {
				return
			}
			gvk := schema.FromAPIVersionAndKind(d.Object.APIVersion, d.Object.Kind)
			o := definitionOf(pp.pkg.Objects, gvk.GroupKind())
			if o == nil {
				continue
			}
			loc := objectLocation(root, o, o.Pos)
			if loc.URI == uri {
				continue
			}
			list[i].lsp.RelatedInformation = append(list[i].lsp.RelatedInformation, diagnosticRelated{
				Location: loc, Message: fmt.Sprintf("%s %q serves %s", o.Kind, o.Name, gvk.Kind),
			})
		}
	}
}
