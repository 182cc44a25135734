package hostile

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// LSPCase is an adversarial session for a language server (lintcmd/lsp,
// examples/xpkg-lsp): the bytes an editor, or anything posing as one, sends
// on the server's input, after initialize and before shutdown. Its surface
// is the JSON-RPC stream: the framing, the documents it opens and edits,
// and the requests on them.
type LSPCase struct {
	// Name is unique, lower-case with dashes, starting with "lsp-".
	Name string
	// Description says what the session attacks and what a correct server
	// does.
	Description string
	// Write writes the package files the session refers to inside dir
	// (which must exist), then the session's messages, framed, to w. It
	// is deterministic and streams: no message is held whole.
	Write func(ctx context.Context, dir string, w io.Writer) error
}

// Sizes of the language server's cases: one message beyond the server's
// default cap of 16 MiB, and documents just under it.
const (
	lspOverCap     = 100 << 20
	lspUnderCap    = 15 << 20
	lspEdits       = 4
	lspDeepNesting = 5_000
	lspRequests    = 50
)

// LSPCases returns the language server's sessions, a fresh slice on every
// call.
func LSPCases() []LSPCase {
	return []LSPCase{
		{
			Name: "lsp-message-100mb",
			Description: "didOpen of a 100 MiB document, one message: the server skips a message over its cap " +
				"(lsp.WithMaxMessageSize, 16 MiB) by streaming it to nowhere, logs it, and answers the next request; " +
				"a server that reads the message, or the document, whole holds 100 MiB or more",
			Write: func(ctx context.Context, dir string, w io.Writer) error {
				file, err := lspPackage(dir)
				if err != nil {
					return err
				}
				if err := lspOpen(ctx, w, file, 1, func(w io.Writer) error {
					return repeatContent(w, []byte("apiVersion: v1\\nkind: ConfigMap\\ndata:\\n  a: "), []byte("x"), lspOverCap, nil)
				}); err != nil {
					return err
				}
				return lspRequest(w, 2, "textDocument/hover", file, 1, 1)
			},
		},
		{
			Name: "lsp-edits-at-cap",
			Description: "a package file of 15 MiB (many small objects of a kind a Configuration may not hold) opened, " +
				"then replaced whole four times in a row: each edit cancels the running lint, the server keeps one text " +
				"of the document, and the last lint is bounded as xpkg-lint's is",
			Write: func(ctx context.Context, dir string, w io.Writer) error {
				file, err := lspPackage(dir)
				if err != nil {
					return err
				}
				doc := func(i int) func(io.Writer) error {
					return func(w io.Writer) error {
						unit := fmt.Sprintf("---\\napiVersion: v1\\nkind: ConfigMap\\nmetadata:\\n  name: c%d\\ndata:\\n  k: v\\n", i)
						return repeatContent(w, nil, []byte(unit), int64(lspUnderCap/len(unit)), nil)
					}
				}
				if err := lspOpen(ctx, w, file, 1, doc(0)); err != nil {
					return err
				}
				for v := 2; v < 2+lspEdits; v++ {
					if err := lspChange(ctx, w, file, v, doc(v)); err != nil {
						return err
					}
				}
				return lspRequest(w, 2, "textDocument/completion", file, 3, 2)
			},
		},
		{
			Name: "lsp-deep-requests",
			Description: "a document of 5,000 nested block mappings, and hover, completion and definition at its deepest " +
				"line, 50 times: the server reads the context of a position from a bounded window of lines and ancestors, " +
				"never lines times depth",
			Write: func(ctx context.Context, dir string, w io.Writer) error {
				file, err := lspPackage(dir)
				if err != nil {
					return err
				}
				if err := lspOpen(ctx, w, file, 1, func(w io.Writer) error {
					if _, err := io.WriteString(w, "apiVersion: apiextensions.crossplane.io/v1\\nkind: Composition\\n"); err != nil {
						return err
					}
					for i := range lspDeepNesting {
						if _, err := fmt.Fprintf(w, "%sk%d:\\n", strings.Repeat(" ", i), i); err != nil {
							return err
						}
					}
					return nil
				}); err != nil {
					return err
				}
				methods := []string{"textDocument/hover", "textDocument/completion", "textDocument/definition"}
				for i := range lspRequests {
					if err := ctx.Err(); err != nil {
						return err
					}
					if err := lspRequest(w, 10+i, methods[i%len(methods)], file, lspDeepNesting+1, lspDeepNesting-1); err != nil {
						return err
					}
				}
				return nil
			},
		},
	}
}

// lspPackage writes a valid package directory in dir and returns the path
// of the file a session opens in it.
func lspPackage(dir string) (string, error) {
	root := filepath.Join(dir, "pkg")
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(root, "crossplane.yaml"), []byte(validPackage), 0o644); err != nil {
		return "", err
	}
	file := filepath.Join(root, "objects.yaml")
	return file, os.WriteFile(file, []byte("apiVersion: v1\nkind: ConfigMap\n"), 0o644)
}

// lspURI is the file: URI of an absolute path.
func lspURI(path string) string { return "file://" + filepath.ToSlash(path) }

// lspOpen writes a didOpen of file whose text, already escaped for a JSON
// string, text writes.
func lspOpen(ctx context.Context, w io.Writer, file string, version int, text func(io.Writer) error) error {
	head := fmt.Sprintf(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":%q,"languageId":"yaml","version":%d,"text":"`, lspURI(file), version)
	return lspStreamed(ctx, w, head, text, `"}}}`)
}

// lspChange writes a didChange replacing the whole text of file.
func lspChange(ctx context.Context, w io.Writer, file string, version int, text func(io.Writer) error) error {
	head := fmt.Sprintf(`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":%q,"version":%d},"contentChanges":[{"text":"`, lspURI(file), version)
	return lspStreamed(ctx, w, head, text, `"}]}}`)
}

// lspStreamed writes one framed message of head, the text, and tail: the
// text is written twice, once to count it, so that no message is held.
func lspStreamed(ctx context.Context, w io.Writer, head string, text func(io.Writer) error, tail string) error {
	var n lspCounter
	if err := text(&n); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if _, err := fmt.Fprintf(w, "Content-Length: %d\r\n\r\n%s", int64(len(head))+n.n+int64(len(tail)), head); err != nil {
		return err
	}
	if err := text(w); err != nil {
		return err
	}
	_, err := io.WriteString(w, tail)
	return err
}

// lspRequest writes a request at a position of file.
func lspRequest(w io.Writer, id int, method, file string, line, char int) error {
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": map[string]any{
		"textDocument": map[string]any{"uri": lspURI(file)}, "position": map[string]any{"line": line, "character": char}}})
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "Content-Length: %d\r\n\r\n", len(b))
	buf.Write(b)
	_, err = w.Write(buf.Bytes())
	return err
}

// lspCounter counts the bytes written to it.
type lspCounter struct{ n int64 }

func (c *lspCounter) Write(b []byte) (int, error) {
	c.n += int64(len(b))
	return len(b), nil
}
