package parser

import (
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/limit"
)

// TestParseAliasLargeScalar aliases one 256 KiB scalar 4 096 times: few
// nodes (under MaxAliasExpansion), but 1 GiB once expanded. The expanded
// bytes count against MaxDocumentBytes, so the document is refused before
// anything is expanded.
func TestParseAliasLargeScalar(t *testing.T) {
	// Not parallel: the allocation measured below is the whole process's,
	// and parallel tests (corpus parses among them) would be counted too.
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: aliases\ndata:\n  big: &big ")
	b.WriteString(strings.Repeat("a", 256<<10))
	b.WriteString("\n  copies:\n")
	b.WriteString(strings.Repeat("  - *big\n", 4096))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	p := mustParse(t, b.String())
	for _, o := range p.Objects {
		if _, err := o.Decode(); err != nil {
			t.Logf("decode: %v", err)
		}
	}
	runtime.ReadMemStats(&after)
	var le *limit.Error
	if len(p.Errors) != 1 || !errors.As(p.Errors[0], &le) || le.Limit != "MaxDocumentBytes" {
		t.Fatalf("errors = %v; want one MaxDocumentBytes error", p.Errors)
	}
	if grown := after.TotalAlloc - before.TotalAlloc; grown > 64<<20 {
		t.Errorf("parsing allocated %d MiB", grown>>20)
	}
}
