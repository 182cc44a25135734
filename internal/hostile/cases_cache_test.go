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

	"github.com/xpkgkit/xpkgkit/linter/apiserver/verdictcache"
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
			// A pack as the cache writes it, of entries as package
			// apiserver writes them; the poison must leave no entry
			// readable as written.
			v := filepath.Join(t.TempDir(), "verdicts")
			ctx := context.Background()
			d, err := verdictcache.OpenDir(v)
			if err != nil {
				t.Fatal(err)
			}
			for i := range 16 {
				if err := d.Put(ctx, testKey(i), testEntry(i)); err != nil {
					t.Fatal(err)
				}
			}
			if err := d.Close(); err != nil {
				t.Fatal(err)
			}
			if err := c.Poison(v); err != nil {
				t.Fatal(err)
			}
			d, err = verdictcache.OpenDir(v)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			for i := range 16 {
				if b, ok := d.Get(ctx, testKey(i)); ok && bytes.Equal(b, testEntry(i)) {
					t.Errorf("entry %d: readable as written", i)
				}
			}
		})
	}
}

func testKey(i int) string { return fmt.Sprintf("%064x", i*7919) }

func testEntry(i int) []byte {
	return fmt.Appendf(nil, "xpkgkit-apiserver-verdict/1 %064x\n{\"key\":%q,\"total\":0,\"findings\":[]}", i, testKey(i))
}

// TestPackFormat requires the packs this package writes to be read by
// the cache as it reads its own, and the packs the cache writes to be
// decoded here: the cases write the format the cache reads.
func TestPackFormat(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cd := t.TempDir()
	if err := writePacks(cd, 2, 50, 64); err != nil {
		t.Fatal(err)
	}
	d, err := verdictcache.OpenDir(filepath.Join(cd, "verdicts"))
	if err != nil {
		t.Fatal(err)
	}
	for p := range 2 {
		for i := range 50 {
			k := fmt.Sprintf("%08x%056x", p, i)
			if b, ok := d.Get(ctx, k); !ok || !bytes.Equal(b, bytes.Repeat([]byte("x"), 64)) {
				t.Fatalf("pack %d entry %d: %q (hit %v)", p, i, b, ok)
			}
		}
	}
	for i := range 16 {
		if err := d.Put(ctx, testKey(i), testEntry(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	ps, err := packsIn(filepath.Join(cd, "verdicts"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 3 {
		t.Fatalf("%d packs; want 3", len(ps))
	}
	found := 0
	for _, p := range ps {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		es, err := decodePack(b)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(encodePack(es), b) && len(es) == 16 {
			t.Errorf("%s: the cache's pack encodes otherwise here", p)
		}
		for _, e := range es {
			var i int
			if _, err := fmt.Sscanf(string(e.key), "%x", &i); err == nil && len(e.key) == 64 && i%7919 == 0 && bytes.Equal(e.value, testEntry(i/7919)) {
				found++
			}
		}
	}
	if found != 16 {
		t.Errorf("%d entries decoded as the cache wrote them; want 16", found)
	}
}
