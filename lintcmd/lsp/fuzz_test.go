package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"testing"
	"time"
)

// FuzzServe feeds arbitrary bytes to Serve as the client's stream: the
// framing, the JSON-RPC dispatch and every handler. Serve must return (no
// hang, no panic) with one of its documented errors, and everything it
// writes must be framed JSON-RPC messages.
func FuzzServe(f *testing.F) {
	hover := `{"jsonrpc":"2.0","id":2,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///x/a.yaml"},"position":{"line":3,"character":4}}}`
	open := `{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///x/a.yaml","languageId":"yaml","version":1,"text":"apiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nspec:\n  mode: Pipeline\n  pipeline:\n  - step: a\n"}}}`
	change := `{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///x/a.yaml","version":2},"contentChanges":[{"range":{"start":{"line":1,"character":2},"end":{"line":9,"character":0}},"text":"x"}]}}`
	complete := `{"jsonrpc":"2.0","id":3,"method":"textDocument/completion","params":{"textDocument":{"uri":"file:///x/a.yaml"},"position":{"line":5,"character":4}}}`
	for _, s := range []string{
		frame(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`) + frame(open) + frame(hover) + frame(change) + frame(complete) +
			frame(`{"jsonrpc":"2.0","id":4,"method":"shutdown"}`) + frame(`{"jsonrpc":"2.0","method":"exit"}`),
		frame(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"initializationOptions":{"xpkg":{"crossplaneVersion":"v2.0","disable":["XP103"]}}}}`) + frame(hover),
		frame(`{`), "Content-Length: 5\r\n\r\n[1,2]", "Content-Length: 99999999999\r\n\r\n", "\r\n\r\n", frame(`{"id":null}`),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var out bytes.Buffer
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		err := New(withDebounce(0), WithMaxMessageSize(1<<20), withRequestTimeout(5*time.Second)).Serve(ctx, bytes.NewReader(data), &syncWriter{w: &out})
		switch {
		case err == nil, errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, ErrFraming), errors.Is(err, ErrNoShutdown):
		default:
			t.Fatalf("Serve: %v", err)
		}
		rd := newReader(&out, 1<<30)
		for {
			body, err := rd.read()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("the server wrote a malformed frame: %v", err)
			}
			var m message
			if err := json.Unmarshal(body, &m); err != nil || m.JSONRPC != "2.0" {
				t.Fatalf("the server wrote %q", body)
			}
		}
	})
}

// syncWriter serialises writes for reading the buffer after Serve.
type syncWriter struct{ w io.Writer }

func (s *syncWriter) Write(b []byte) (int, error) { return s.w.Write(b) }

// FuzzCursorAt reads the context of any position in any text without a
// panic, and the path it finds names only the document's lines.
func FuzzCursorAt(f *testing.F) {
	f.Add(ctxDoc, 20, 10)
	f.Add("- - a: |\n  b\n- c:\n", 1, 3)
	f.Add("'a: b\n\"c\": d\n---\n...\n", 1, 0)
	f.Fuzz(func(t *testing.T, text string, line, col int) {
		c := cursorAt(text, line, col)
		if c == nil {
			return
		}
		for _, e := range c.path {
			if e.line < 0 || e.line >= len(c.doc.lines) {
				t.Fatalf("path element at line %d of %d", e.line, len(c.doc.lines))
			}
			c.doc.mappingValues(&e, "apiVersion", "kind")
		}
		c.siblingKeys()
		if c.from > c.to && c.mode != onNewKey {
			t.Fatalf("range %d > %d", c.from, c.to)
		}
	})
}
