package hostile_test

import (
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/internal/hostile"
	"github.com/xpkgkit/xpkgkit/linter/rules"
	"github.com/xpkgkit/xpkgkit/xpkg"
)

// ociCostCaseNames are the cases of ociCostCases.
var ociCostCaseNames = []string{
	"xpkg-manifest-41000-entries",
	"xpkg-manifest-100-entries-8mib-config",
	"xpkg-gzip-1000-layers",
	"oci-tar-gz-600-flattened-layers",
	"oci-dir-blob-symlink-outside",
	"oci-dir-fifo-index",
	"oci-dir-fifo-oci-layout",
	"oci-dir-fifo-blob",
	"oci-manifest-layers-twice",
	"xpkg-manifest-json-layers-twice",
	"oci-gzip-header-corrupt",
	"layer-sparse-package-yaml",
	"layer-500-long-unsafe-names",
	"xpkg-90000-stale-layer-labels",
}

// rawTerminal reports whether s holds a C0 or C1 control character or a
// bidirectional override.
func rawTerminal(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool {
		return r < 0x20 || (r >= 0x7f && r < 0xa0) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
	})
}

// TestOCICostMessagesBounded opens the cases whose errors could list many
// items: the error text stays short and escaped. (The outcome classes and
// the memory bound of every case are checked by xpkg's TestHostile.)
func TestOCICostMessagesBounded(t *testing.T) {
	for _, name := range []string{"xpkg-90000-stale-layer-labels", "xpkg-manifest-41000-entries"} {
		t.Run(name, func(t *testing.T) {
			c, ok := hostile.Lookup(name)
			if !ok {
				t.Fatalf("no case %s", name)
			}
			src, err := c.Write(t.Context(), t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			_, err = xpkg.Open(t.Context(), src)
			if err == nil {
				t.Fatal("the case opened")
			}
			msg := err.Error()
			if len(msg) > 2048 || rawTerminal(msg) {
				t.Errorf("error of %d bytes, unbounded or unescaped: %.600s", len(msg), msg)
			}
			if name == "xpkg-90000-stale-layer-labels" && !strings.Contains(msg, "and 89992 more") {
				t.Errorf("error does not count the labels left out: %s", msg)
			}
		})
	}
}

// BenchmarkOCICostCases opens and lints each case of ociCostCases, for its
// time and allocations: go test -run '^$' -bench OCICostCases -benchtime 1x
// ./internal/hostile
func BenchmarkOCICostCases(b *testing.B) {
	for _, name := range ociCostCaseNames {
		b.Run(name, func(b *testing.B) {
			c, ok := hostile.Lookup(name)
			if !ok {
				b.Fatalf("no case %s", name)
			}
			src, err := c.Write(b.Context(), b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			start := cpuTime()
			for b.Loop() {
				p, err := xpkg.Open(b.Context(), src)
				if err == nil {
					_, err = rules.LintPackage(b.Context(), p)
				}
				_ = err
			}
			// CPU time (user and system, the whole process) says more
			// than wall time on a shared machine.
			b.ReportMetric(float64((cpuTime()-start).Milliseconds())/float64(b.N), "cpu-ms/op")
		})
	}
}
