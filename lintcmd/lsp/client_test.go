package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// testClient drives a Server over in-memory pipes, as an editor does over
// stdio.
type testClient struct {
	t      testing.TB
	w      *io.PipeWriter
	mu     sync.Mutex
	nextID int
	wait   map[string]chan message
	diags  chan publishDiagnosticsParams
	logs   chan logMessageParams
	served chan error
	cancel context.CancelFunc
}

// testTimeout bounds every wait of a test: a hang fails, never blocks.
const testTimeout = 60 * time.Second

// newTestClient starts s and initializes it with settings.
func newTestClient(t testing.TB, s *Server, settings string) *testClient {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cr, sw := io.Pipe() // server -> client
	sr, cw := io.Pipe() // client -> server
	c := &testClient{t: t, w: cw, wait: map[string]chan message{},
		diags: make(chan publishDiagnosticsParams, 1024), logs: make(chan logMessageParams, 1024),
		served: make(chan error, 1), cancel: cancel}
	go func() {
		c.served <- s.Serve(ctx, sr, sw)
		sw.Close()
	}()
	go c.readLoop(cr)
	t.Cleanup(func() {
		cancel()
		cw.Close()
		select {
		case <-c.served:
		case <-time.After(testTimeout):
			t.Error("Serve did not return")
		}
	})
	var opts json.RawMessage
	if settings != "" {
		opts = json.RawMessage(settings)
	}
	res := c.request("initialize", map[string]any{"processId": nil, "rootUri": nil, "capabilities": map[string]any{}, "initializationOptions": opts})
	if res.Error != nil {
		t.Fatalf("initialize: %v", res.Error.Message)
	}
	c.notify("initialized", map[string]any{})
	return c
}

func (c *testClient) readLoop(r io.Reader) {
	rd := newReader(r, 1<<30)
	for {
		body, err := rd.read()
		if err != nil {
			return
		}
		var m message
		if err := json.Unmarshal(body, &m); err != nil {
			c.t.Errorf("server sent invalid JSON: %v", err)
			return
		}
		switch {
		case m.Method == "textDocument/publishDiagnostics":
			var p publishDiagnosticsParams
			if err := json.Unmarshal(m.Params, &p); err != nil {
				c.t.Errorf("publishDiagnostics: %v", err)
			}
			c.diags <- p
		case m.Method == "window/logMessage":
			var p logMessageParams
			_ = json.Unmarshal(m.Params, &p)
			select {
			case c.logs <- p:
			default:
			}
		case m.Method == "":
			c.mu.Lock()
			ch := c.wait[string(m.ID)]
			delete(c.wait, string(m.ID))
			c.mu.Unlock()
			if ch != nil {
				ch <- m
			}
		}
	}
}

// send writes one framed message.
func (c *testClient) send(v any) {
	c.t.Helper()
	body, err := json.Marshal(v)
	if err != nil {
		c.t.Fatal(err)
	}
	c.sendRaw(body)
}

func (c *testClient) sendRaw(body []byte) {
	c.t.Helper()
	if _, err := fmt.Fprintf(c.w, "Content-Length: %d\r\n\r\n%s", len(body), body); err != nil {
		c.t.Fatal(err)
	}
}

// start sends a request and returns the channel its response arrives on.
func (c *testClient) start(method string, params any) (string, chan message) {
	c.mu.Lock()
	c.nextID++
	id := fmt.Sprint(c.nextID)
	ch := make(chan message, 1)
	c.wait[id] = ch
	c.mu.Unlock()
	c.send(map[string]any{"jsonrpc": "2.0", "id": c.nextID, "method": method, "params": params})
	return id, ch
}

// request sends a request and waits for its response.
func (c *testClient) request(method string, params any) message {
	c.t.Helper()
	_, ch := c.start(method, params)
	return c.await(ch, method)
}

func (c *testClient) await(ch chan message, what string) message {
	c.t.Helper()
	select {
	case m := <-ch:
		return m
	case <-time.After(testTimeout):
		c.t.Fatalf("no response to %s", what)
		return message{}
	}
}

// result decodes a request's result into v, failing on an error.
func (c *testClient) result(method string, params any, v any) {
	c.t.Helper()
	m := c.request(method, params)
	if m.Error != nil {
		c.t.Fatalf("%s: error %d %s", method, m.Error.Code, m.Error.Message)
	}
	if err := json.Unmarshal(m.Result, v); err != nil {
		c.t.Fatalf("%s: %v in %s", method, err, m.Result)
	}
}

func (c *testClient) notify(method string, params any) {
	c.t.Helper()
	c.send(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

// diagnosticsFor waits for the diagnostics of uri that satisfy ok.
func (c *testClient) diagnosticsFor(uri string, ok func([]diagnostic) bool) []diagnostic {
	c.t.Helper()
	deadline := time.After(testTimeout)
	for {
		select {
		case p := <-c.diags:
			if p.URI == uri && ok(p.Diagnostics) {
				return p.Diagnostics
			}
		case <-deadline:
			c.t.Fatalf("no diagnostics for %s as expected", uri)
			return nil
		}
	}
}

// open opens a file of the fixture and returns its URI and text.
func (c *testClient) open(path string) (string, string) {
	c.t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		c.t.Fatal(err)
	}
	uri := pathToURI(path)
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": uri, "languageId": "yaml", "version": 1, "text": string(b)}})
	return uri, string(b)
}

// change replaces a document's text.
func (c *testClient) change(uri string, version int, text string) {
	c.t.Helper()
	c.notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": version},
		"contentChanges": []map[string]any{{"text": text}},
	})
}

// applyEdits applies text edits to text.
func applyEdits(text string, edits []textEdit) string {
	x := newLineIndex(text)
	type span struct {
		from, to int
		s        string
	}
	var spans []span
	for _, e := range edits {
		spans = append(spans, span{x.offset(e.Range.Start), x.offset(e.Range.End), e.NewText})
	}
	for i := len(spans) - 1; i >= 0; i-- {
		sp := spans[i]
		text = text[:sp.from] + sp.s + text[sp.to:]
	}
	return text
}

// fixture returns the absolute path of a file of testdata/config.
func fixture(t *testing.T, rel string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", "config", filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// lineOf returns the 0-based line of the first line of text holding s.
func lineOf(t *testing.T, text, s string) int {
	t.Helper()
	for i, l := range strings.Split(text, "\n") {
		if strings.Contains(l, s) {
			return i
		}
	}
	t.Fatalf("no line holds %q", s)
	return 0
}
