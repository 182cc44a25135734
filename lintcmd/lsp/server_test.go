package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/xpkgkit/xpkgkit/lintcmd"
	"github.com/xpkgkit/xpkgkit/linter"
)

// xpkgLintFindings returns what xpkg-lint reports on the package directory
// root, as "file:line:col rule" (1-based, columns in bytes). A finding
// about a whole file (line 0, such as XP006's) is where an editor shows it:
// the file's start, 1:1.
func xpkgLintFindings(t *testing.T, root string) []string {
	t.Helper()
	var out, errOut bytes.Buffer
	lintcmd.New(lintcmd.WithName("xpkg-lint")).Run(context.Background(), []string{"-o", "json", root}, nil, &out, &errOut)
	var rep struct {
		Diagnostics []linter.Diagnostic `json:"diagnostics"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("xpkg-lint -o json: %v\n%s%s", err, out.String(), errOut.String())
	}
	var got []string
	for _, d := range rep.Diagnostics {
		line, col := d.Pos.Line, d.Pos.Column
		if line == 0 {
			line, col = 1, 1
		}
		got = append(got, fmt.Sprintf("%s:%d:%d %s", d.Pos.File, line, col, d.RuleID))
	}
	sort.Strings(got)
	return got
}

// TestProtocol drives the server through the six steps of an editing
// session on a Configuration: diagnostics as xpkg-lint gives them, a quick
// fix that clears its diagnostic, hover on a Composition field, completion
// of a composed resource's field, and definition from compositeTypeRef
// and from functionRef.
func TestProtocol(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, New(withDebounce(10*time.Millisecond)), `{"xpkg": {"crossplaneVersion": "v2.4.0"}}`)
	root := fixture(t, "")
	metaURI, _ := c.open(fixture(t, "crossplane.yaml"))
	compURI, comp := c.open(fixture(t, "apis/network/composition.yaml"))
	exURI, _ := c.open(fixture(t, "examples/network.yaml"))

	// 1-2. Diagnostics: every finding of xpkg-lint, at its position.
	want := xpkgLintFindings(t, root)
	if len(want) == 0 {
		t.Fatal("xpkg-lint finds nothing in the fixture: the test would prove nothing")
	}
	got := map[string]bool{}
	wantURIs := map[string]bool{}
	for _, w := range want {
		file, _, _ := strings.Cut(w, ":")
		wantURIs[pathToURI(file)] = true
	}
	deadline := time.After(testTimeout)
	for len(wantURIs) > 0 {
		select {
		case p := <-c.diags:
			if !wantURIs[p.URI] || len(p.Diagnostics) == 0 {
				continue
			}
			delete(wantURIs, p.URI)
			file := uriToPath(p.URI)
			for _, d := range p.Diagnostics {
				got[fmt.Sprintf("%s:%d:%d %s", file, d.Range.Start.Line+1, d.Range.Start.Character+1, d.Code)] = true
				if d.CodeDescription == nil || !strings.Contains(d.CodeDescription.Href, "#"+strings.ToLower(d.Code)+"-") {
					t.Errorf("%s: no link to the rule's doc: %+v", d.Code, d.CodeDescription)
				}
			}
		case <-deadline:
			t.Fatalf("diagnostics missing for %v", wantURIs)
		}
	}
	for _, w := range want {
		if !got[w] {
			t.Errorf("xpkg-lint reports %s; the server does not (it reports %v)", w, got)
		}
	}
	if len(got) != len(want) {
		t.Errorf("the server reports %d findings, xpkg-lint %d", len(got), len(want))
	}
	// The example's finding is judged by the XRD: its related location.
	c.notify("textDocument/didSave", map[string]any{"textDocument": map[string]any{"uri": exURI}})
	exDiags := c.diagnosticsFor(exURI, func(ds []diagnostic) bool { return len(ds) > 0 })
	if len(exDiags[0].RelatedInformation) != 1 || exDiags[0].RelatedInformation[0].Location.URI != pathToURI(fixture(t, "apis/network/definition.yaml")) {
		t.Errorf("XP408's related information: %+v", exDiags[0].RelatedInformation)
	}

	// 3. A quick fix clears its diagnostic.
	var actions []codeAction
	c.result("textDocument/codeAction", map[string]any{
		"textDocument": map[string]any{"uri": metaURI},
		"range":        lspRange{End: position{Line: 0, Character: 5}},
		"context":      map[string]any{"diagnostics": []any{}},
	}, &actions)
	if len(actions) != 1 || len(actions[0].Edit.DocumentChanges) != 1 {
		t.Fatalf("code actions %+v, want one fix of XP103", actions)
	}
	dc := actions[0].Edit.DocumentChanges[0]
	if dc.TextDocument.URI != metaURI || dc.TextDocument.Version == nil || *dc.TextDocument.Version != 1 {
		t.Errorf("the fix edits %s version %v, want %s version 1", dc.TextDocument.URI, dc.TextDocument.Version, metaURI)
	}
	_, meta := c.open(fixture(t, "crossplane.yaml")) // the text the edit applies to
	fixed := applyEdits(meta, dc.Edits)
	if !strings.HasPrefix(fixed, "apiVersion: meta.pkg.crossplane.io/v1\n") {
		t.Fatalf("fixed text begins %q", fixed[:60])
	}
	c.change(metaURI, 2, fixed)
	c.diagnosticsFor(metaURI, func(ds []diagnostic) bool {
		return !slices.ContainsFunc(ds, func(d diagnostic) bool { return d.Code == "XP103" })
	})

	// 4. Hover on a Composition field: its schema and description.
	var h hover
	c.result("textDocument/hover", textDocumentPositionParams{
		TextDocument: textDocumentIdentifier{URI: compURI},
		Position:     position{Line: lineOf(t, comp, "mode: Pipeline"), Character: 3},
	}, &h)
	for _, want := range []string{"**mode** `string`", "Mode controls what type", "Pipeline", "Composition `spec.mode`"} {
		if !strings.Contains(h.Contents.Value, want) {
			t.Errorf("hover on mode lacks %q:\n%s", want, h.Contents.Value)
		}
	}
	// On a composed resource's field: the package's XRD's description.
	c.result("textDocument/hover", textDocumentPositionParams{
		TextDocument: textDocumentIdentifier{URI: compURI},
		Position:     position{Line: lineOf(t, comp, "cidrBlock:"), Character: 18},
	}, &h)
	if !strings.Contains(h.Contents.Value, "The subnet's CIDR block") || !strings.Contains(h.Contents.Value, "(required)") {
		t.Errorf("hover on cidrBlock:\n%s", h.Contents.Value)
	}

	// 5. Completion of a composed resource's field.
	edited := strings.Replace(comp, "cidrBlock: 10.0.1.0/24\n", "cidrBlock: 10.0.1.0/24\n                \n", 1)
	c.change(compURI, 2, edited)
	var list completionList
	c.result("textDocument/completion", textDocumentPositionParams{
		TextDocument: textDocumentIdentifier{URI: compURI},
		Position:     position{Line: lineOf(t, comp, "cidrBlock:") + 1, Character: 16},
	}, &list)
	var labels []string
	for _, it := range list.Items {
		labels = append(labels, it.Label)
	}
	if !slices.Contains(labels, "zone") || slices.Contains(labels, "cidrBlock") {
		t.Errorf("completion in the composed resource's spec: %v, want zone and not cidrBlock (given)", labels)
	}
	// Enum values, and kinds for an apiVersion.
	c.result("textDocument/completion", textDocumentPositionParams{
		TextDocument: textDocumentIdentifier{URI: compURI},
		Position:     position{Line: lineOf(t, comp, "mode: Pipeline"), Character: 8},
	}, &list)
	if len(list.Items) != 1 || list.Items[0].Label != "Pipeline" {
		t.Errorf("completion of mode: %+v, want Pipeline", list.Items)
	}
	c.result("textDocument/completion", textDocumentPositionParams{
		TextDocument: textDocumentIdentifier{URI: compURI},
		Position:     position{Line: lineOf(t, comp, "kind: XSubnet"), Character: 20},
	}, &list)
	labels = labels[:0]
	for _, it := range list.Items {
		labels = append(labels, it.Label)
	}
	if !slices.Contains(labels, "XSubnet") || !slices.Contains(labels, "XNetwork") || slices.Contains(labels, "Composition") {
		t.Errorf("kinds of example.org/v1alpha1: %v", labels)
	}

	// 6. Definition: compositeTypeRef to the XRD, functionRef to dependsOn.
	var locs []location
	c.result("textDocument/definition", textDocumentPositionParams{
		TextDocument: textDocumentIdentifier{URI: compURI},
		Position:     position{Line: lineOf(t, comp, "kind: XNetwork"), Character: 11},
	}, &locs)
	if len(locs) != 1 || locs[0].URI != pathToURI(fixture(t, "apis/network/definition.yaml")) || locs[0].Range.Start.Line != 0 {
		t.Errorf("definition of compositeTypeRef: %+v", locs)
	}
	c.result("textDocument/definition", textDocumentPositionParams{
		TextDocument: textDocumentIdentifier{URI: compURI},
		Position:     position{Line: lineOf(t, comp, "functionRef:"), Character: 8},
	}, &locs)
	if len(locs) != 1 || locs[0].URI != metaURI || locs[0].Range.Start.Line != lineOf(t, meta, "- apiVersion: pkg.crossplane.io/v1") {
		t.Errorf("definition of functionRef: %+v", locs)
	}
	c.result("textDocument/definition", textDocumentPositionParams{
		TextDocument: textDocumentIdentifier{URI: compURI},
		Position:     position{Line: lineOf(t, comp, "kind: XSubnet"), Character: 16},
	}, &locs)
	if len(locs) != 1 || locs[0].URI != pathToURI(fixture(t, "apis/subnet/definition.yaml")) {
		t.Errorf("definition of a composed resource's kind: %+v", locs)
	}

	// Hover on a diagnostic: the rule's doc.
	c.result("textDocument/hover", textDocumentPositionParams{
		TextDocument: textDocumentIdentifier{URI: exURI},
		Position:     position{Line: 5, Character: 3},
	}, &h)
	if !strings.Contains(h.Contents.Value, "XP408 example-schema") || !strings.Contains(h.Contents.Value, "The region of the network") {
		t.Errorf("hover on an example's diagnostic:\n%s", h.Contents.Value)
	}

	// shutdown and exit end Serve with no error.
	if m := c.request("shutdown", nil); m.Error != nil {
		t.Fatalf("shutdown: %v", m.Error)
	}
	c.notify("exit", nil)
	select {
	case err := <-c.served:
		c.served <- err // for the cleanup
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(testTimeout):
		t.Fatal("Serve did not end on exit")
	}
}

// TestLintCancelled checks that an edit cancels the running lint: a rule
// that blocks until its lint is cancelled sees the cancellation, and the
// next lint publishes.
func TestLintCancelled(t *testing.T) {
	t.Parallel()
	var runs, cancelled atomic.Int32
	started := make(chan struct{}, 1)
	block := &linter.Rule{
		ID: "TEST001", Name: "blocks-once", Severity: linter.SeverityInfo,
		Doc: "Blocks its first run until cancelled\n\nA test rule.",
		Run: func(p *linter.Pass) error {
			if runs.Add(1) == 1 {
				started <- struct{}{}
				select {
				case <-p.Context().Done():
					cancelled.Add(1)
					return p.Context().Err()
				case <-time.After(testTimeout):
					return nil
				}
			}
			if p.Meta() != nil {
				p.Reportf(p.Meta(), nil, "lint %d", runs.Load())
			}
			return nil
		},
	}
	c := newTestClient(t, New(withDebounce(0), WithRules(block)), "")
	uri, text := c.open(fixture(t, "crossplane.yaml"))
	select {
	case <-started:
	case <-time.After(testTimeout):
		t.Fatal("the first lint did not start")
	}
	c.change(uri, 2, text+"\n")
	ds := c.diagnosticsFor(uri, func(ds []diagnostic) bool {
		return slices.ContainsFunc(ds, func(d diagnostic) bool { return d.Code == "TEST001" })
	})
	if cancelled.Load() != 1 {
		t.Errorf("the first lint was not cancelled (%d runs)", runs.Load())
	}
	for _, d := range ds {
		if d.Code == "TEST001" && d.Message == "lint 1 (blocks-once)" {
			t.Errorf("the cancelled lint published: %v", d)
		}
	}
}

// TestMalformed sends what a broken or hostile client sends: the server
// answers each with an error, or logs it, and goes on serving.
func TestMalformed(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, New(WithMaxMessageSize(1<<20)), "")
	tests := []struct {
		name string
		body string
		code int // the error response's code; 0: no response
	}{
		{name: "invalid JSON", body: `{not json`, code: codeParseError},
		{name: "unknown method", body: `{"jsonrpc":"2.0","id":"u1","method":"textDocument/rename","params":{}}`, code: codeMethodNotFound},
		{name: "bad params", body: `{"jsonrpc":"2.0","id":"u2","method":"textDocument/hover","params":[1,2]}`, code: codeInvalidParams},
		{name: "no params", body: `{"jsonrpc":"2.0","id":"u3","method":"textDocument/completion"}`, code: codeInvalidParams},
		{name: "object id", body: `{"jsonrpc":"2.0","id":{"a":1},"method":"textDocument/hover","params":{}}`, code: codeInvalidRequest},
		{name: "bad notification", body: `{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":5}}`},
		{name: "change of a closed document", body: `{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///nowhere.yaml","version":2},"contentChanges":[{"text":"x"}]}}`},
	}
	for _, tt := range tests {
		var id json.RawMessage
		var m message
		_ = json.Unmarshal([]byte(tt.body), &m)
		id = m.ID
		ch := make(chan message, 1)
		key := string(id)
		if tt.code == codeParseError || tt.code == codeInvalidRequest {
			key = "null"
		}
		if tt.code != 0 {
			c.mu.Lock()
			c.wait[key] = ch
			c.mu.Unlock()
		}
		c.sendRaw([]byte(tt.body))
		if tt.code != 0 {
			res := c.await(ch, tt.name)
			if res.Error == nil || res.Error.Code != tt.code {
				t.Errorf("%s: response %+v, want error %d", tt.name, res.Error, tt.code)
			}
		}
	}
	// A message over the cap is skipped, and logged.
	big := `{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///big.yaml","languageId":"yaml","version":1,"text":"` + strings.Repeat("a", 2<<20) + `"}}}`
	c.sendRaw([]byte(big))
	deadline := time.After(testTimeout)
	for skipped := false; !skipped; {
		select {
		case l := <-c.logs:
			skipped = strings.Contains(l.Message, "larger than the cap")
		case <-deadline:
			t.Fatal("no log of the skipped message")
		}
	}
	// The server still answers.
	var h *hover
	c.result("textDocument/hover", textDocumentPositionParams{TextDocument: textDocumentIdentifier{URI: "file:///big.yaml"}}, &h)
	if h != nil {
		t.Errorf("hover on a skipped document: %+v", h)
	}
}

// TestHostileDocument opens documents that would cost a naive server
// dearly: a deep, long YAML file at the cap, and answers requests on them.
func TestHostileDocument(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	c := newTestClient(t, New(withDebounce(0)), "")
	var b strings.Builder
	b.WriteString("apiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nspec:\n")
	for i := range 2000 {
		b.WriteString(strings.Repeat(" ", 2*(i%200+1)) + fmt.Sprintf("k%d:\n", i))
	}
	for range 50000 {
		b.WriteString("- - - - - - - - - - - - - - - - - - - - - - - - - - - - -\n")
	}
	uri := pathToURI(filepath.Join(dir, "deep.yaml"))
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "yaml", "version": 1, "text": b.String()}})
	for _, pos := range []position{{Line: 1500, Character: 100}, {Line: 40000, Character: 20}, {Line: 3, Character: 2}, {Line: 1 << 30, Character: 1 << 30}} {
		for _, method := range []string{"textDocument/hover", "textDocument/completion", "textDocument/definition"} {
			m := c.request(method, textDocumentPositionParams{TextDocument: textDocumentIdentifier{URI: uri}, Position: pos})
			if m.Error != nil {
				t.Errorf("%s at %v: %v", method, pos, m.Error)
			}
		}
	}
}

// TestServeEnds checks Serve's results: an exit without shutdown, a closed
// stream, broken framing.
func TestServeEnds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		input string
		want  error
	}{
		{name: "exit without shutdown", input: frame(`{"jsonrpc":"2.0","method":"exit"}`), want: ErrNoShutdown},
		{name: "end of stream", input: "", want: io.EOF},
		{name: "no content length", input: "Content-Type: x\r\n\r\n{}", want: ErrFraming},
		{name: "header too long", input: strings.Repeat("x", 10000), want: ErrFraming},
		{name: "truncated body", input: "Content-Length: 100\r\n\r\n{}", want: io.ErrUnexpectedEOF},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := New().Serve(context.Background(), strings.NewReader(tt.input), io.Discard)
			if !errors.Is(err, tt.want) {
				t.Errorf("Serve: %v, want %v", err, tt.want)
			}
		})
	}
}

func frame(body string) string {
	return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)
}
