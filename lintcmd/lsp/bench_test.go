package lsp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BenchmarkDidChange measures the time from a didChange to the
// publishDiagnostics of the edited file (the debounce set to zero, the
// package linted once before the clock starts), on real packages of the
// corpus: a Configuration and provider-aws (7 MB of CRDs in 200 files).
//
//	go test -run '^$' -bench BenchmarkDidChange -benchtime 20x ./lintcmd/lsp
func BenchmarkDidChange(b *testing.B) {
	for _, bc := range []struct{ name, pkg, file string }{
		{"configuration/platform-ref-aws", "platform-ref-aws", "crossplane.yaml"},
		{"configuration/configuration-aws-network", "configuration-aws-network", "apis/definition.yaml"},
		{"provider/provider-aws", "provider-aws", "crossplane.yaml"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			root, err := filepath.Abs(filepath.Join(corpusDir(), bc.pkg, "src"))
			if err != nil {
				b.Fatal(err)
			}
			file := filepath.Join(root, filepath.FromSlash(bc.file))
			text, err := os.ReadFile(file)
			if err != nil {
				b.Skipf("no corpus: %v", err)
			}
			c := newTestClient(b, New(withDebounce(0)), "")
			uri := pathToURI(file)
			c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
				"uri": uri, "languageId": "yaml", "version": 1, "text": string(text)}})
			waitVersion(c, uri, 1)
			b.ResetTimer()
			for i := range b.N {
				v := i + 2
				c.change(uri, v, string(text)+strings.Repeat("#", v%7)+"\n")
				waitVersion(c, uri, v)
			}
		})
	}
}

// waitVersion waits for the diagnostics of version v of uri.
func waitVersion(c *testClient, uri string, v int) {
	deadline := time.After(testTimeout)
	for {
		select {
		case p := <-c.diags:
			if p.URI == uri && p.Version != nil && *p.Version == v {
				return
			}
		case <-deadline:
			c.t.Fatalf("no diagnostics for version %d of %s", v, uri)
		}
	}
}
