package lsp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/textproto"
	"net/url"
	"os"
	"path/filepath"
	"strconv"

	"github.com/xpkgkit/xpkgkit/lintcmd/lsp"
)

// A program serves an editor over its standard input and output with
//
//	lsp.New().Serve(ctx, os.Stdin, os.Stdout)
//
// Here a client on in-memory pipes opens a package's crossplane.yaml and
// prints the diagnostics the server publishes for it.
func Example() {
	ctx := context.Background()
	fromServer, serverOut := io.Pipe()
	serverIn, toServer := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- lsp.New().Serve(ctx, serverIn, serverOut) }()

	send := func(v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(toServer, "Content-Length: %d\r\n\r\n%s", len(b), b)
	}
	file, _ := filepath.Abs("testdata/config/crossplane.yaml")
	text, _ := os.ReadFile(file)
	uri := (&url.URL{Scheme: "file", Path: filepath.ToSlash(file)}).String()
	// The client writes while it reads, as an editor does: a pipe holds
	// nothing, and the server answers each request as it reads it.
	go func() {
		send(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{}})
		send(map[string]any{"jsonrpc": "2.0", "method": "initialized", "params": map[string]any{}})
		send(map[string]any{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": map[string]any{
			"textDocument": map[string]any{"uri": uri, "languageId": "yaml", "version": 1, "text": string(text)}}})
	}()

	r := textproto.NewReader(bufio.NewReader(fromServer))
	for {
		h, err := r.ReadMIMEHeader()
		if err != nil {
			fmt.Println(err)
			return
		}
		n, _ := strconv.Atoi(h.Get("Content-Length"))
		body := make([]byte, n)
		if _, err := io.ReadFull(r.R, body); err != nil {
			fmt.Println(err)
			return
		}
		var m struct {
			Method string `json:"method"`
			Params struct {
				URI         string `json:"uri"`
				Diagnostics []struct {
					Range struct {
						Start struct{ Line, Character int }
					}
					Code    string
					Message string
				}
			}
		}
		_ = json.Unmarshal(body, &m)
		if m.Method != "textDocument/publishDiagnostics" || m.Params.URI != uri {
			continue
		}
		for _, d := range m.Params.Diagnostics {
			fmt.Printf("%d:%d %s %s\n", d.Range.Start.Line+1, d.Range.Start.Character+1, d.Code, d.Message)
		}
		break
	}
	go io.Copy(io.Discard, fromServer)
	send(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
	send(map[string]any{"jsonrpc": "2.0", "method": "exit"})
	fmt.Println("Serve:", <-done)
	// Output:
	// 1:1 XP103 meta.pkg.crossplane.io/v1alpha1 is deprecated for Configuration: use meta.pkg.crossplane.io/v1 (deprecated-meta-version)
	// Serve: <nil>
}
