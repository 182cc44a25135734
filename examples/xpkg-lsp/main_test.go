package main

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

func frame(body string) string {
	return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)
}

// TestRun runs the program on scripted sessions and arguments.
func TestRun(t *testing.T) {
	t.Parallel()
	session := frame(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`) +
		frame(`{"jsonrpc":"2.0","id":2,"method":"shutdown"}`) + frame(`{"jsonrpc":"2.0","method":"exit"}`)
	tests := []struct {
		name    string
		args    []string
		stdin   string
		code    int
		wantOut string
		wantErr string
	}{
		{name: "session", args: []string{"--stdio"}, stdin: session, code: 0, wantOut: `"name":"xpkg-lsp"`},
		{name: "exit without shutdown", stdin: frame(`{"jsonrpc":"2.0","method":"exit"}`), code: 1, wantErr: "exit without shutdown"},
		{name: "end of input", stdin: "", code: 0},
		{name: "version", args: []string{"--version"}, code: 0, wantOut: "xpkg-lsp "},
		{name: "unknown argument", args: []string{"--port", "1"}, code: 2, wantErr: "unknown argument"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var out, errOut bytes.Buffer
			code := run(tt.args, strings.NewReader(tt.stdin), &out, &errOut)
			if code != tt.code || !strings.Contains(out.String(), tt.wantOut) || !strings.Contains(errOut.String(), tt.wantErr) {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d, %q, %q", code, out.String(), errOut.String(), tt.code, tt.wantOut, tt.wantErr)
			}
		})
	}
}
