package imageconfig_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/xpkg/imageconfig"
)

// TestHostileMemory: the largest stream the default limits read (4 MiB of
// ImageConfigs at the entry and prefix limits) allocates in total at most
// a fixed multiple of its size, and the Set it keeps is about its size.
func TestHostileMemory(t *testing.T) {
	var b strings.Builder
	prefixes := make([]string, 100)
	for i := range prefixes {
		prefixes[i] = strings.Repeat("p", 1000) + fmt.Sprint(i)
	}
	for i := 0; b.Len() < 4<<20-120<<10; i++ {
		b.WriteString(ic(fmt.Sprintf("c%d", i), rw("m/"), prefixes...))
	}
	in := b.String()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s, err := imageconfig.ParseAll(context.Background(), []imageconfig.Input{{Reader: strings.NewReader(in)}})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	total := after.TotalAlloc - before.TotalAlloc
	t.Logf("%d ImageConfigs, %d bytes in, %d bytes allocated", s.Len(), len(in), total)
	if limit := uint64(64 * len(in)); total > limit {
		t.Errorf("allocated %d bytes for %d bytes of input, more than %d", total, len(in), limit)
	}
}
