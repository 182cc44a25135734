package hostile

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestCacheCases writes every verdict cache case that is not heavy and
// checks it: names unique and prefixed cache-cost-, the package holds
// cacheCRDs CRDs, the same bytes each time, and each Poison leaves no
// entry as the first run wrote it.
func TestCacheCases(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("FIFOs")
	}
	seen := map[string]bool{}
	for _, c := range CacheCases() {
		if seen[c.Name] || !strings.HasPrefix(c.Name, "cache-cost-") {
			t.Errorf("%s: a name not unique or not prefixed cache-cost-", c.Name)
		}
		seen[c.Name] = true
		if c.Heavy {
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			var pkgs [][]byte
			for range 2 {
				dir := t.TempDir()
				src, err := c.Write(context.Background(), dir)
				if err != nil {
					t.Fatal(err)
				}
				b, err := os.ReadFile(src)
				if err != nil {
					t.Fatal(err)
				}
				pkgs = append(pkgs, b)
				if n := bytes.Count(b, []byte("kind: CustomResourceDefinition")); n != cacheCRDs {
					t.Errorf("%d CRDs; want %d", n, cacheCRDs)
				}
				if _, err := os.Stat(c.CacheDir(dir)); err != nil {
					t.Error(err)
				}
			}
			if !bytes.Equal(pkgs[0], pkgs[1]) {
				t.Error("the package differs between two writes")
			}
			if c.Poison == nil {
				return
			}
			v := filepath.Join(t.TempDir(), "verdicts")
			var written []string
			for i := range 16 {
				k := fmt.Sprintf("%02x%062x", i*37%256, i)
				p := filepath.Join(v, k[:2], k)
				os.MkdirAll(filepath.Dir(p), 0o755)
				if err := os.WriteFile(p, []byte(fmt.Sprintf("xpkgkit-apiserver-verdict/1 %064x\n{\"key\":%q}", i, k)), 0o644); err != nil {
					t.Fatal(err)
				}
				written = append(written, p)
			}
			if err := c.Poison(v); err != nil {
				t.Fatal(err)
			}
			for i, p := range written {
				if fi, err := os.Lstat(p); err != nil || !fi.Mode().IsRegular() {
					continue // replaced by a FIFO, a directory or a link
				}
				if b, err := os.ReadFile(p); err == nil && bytes.Equal(b, []byte(fmt.Sprintf("xpkgkit-apiserver-verdict/1 %064x\n{\"key\":%q}", i, filepath.Base(p)))) {
					t.Errorf("%s: left as written", p)
				}
			}
		})
	}
}
