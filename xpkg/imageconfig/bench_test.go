package imageconfig_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/xpkg/imageconfig"
)

// worstSet is the largest Set the default limits allow: 1,000
// ImageConfigs of 100 prefixes each, every prefix 1,000 bytes long and
// sharing its first 990 bytes with the reference looked up.
func worstSet(b *testing.B) (*imageconfig.Set, string) {
	b.Helper()
	long := "xpkg.crossplane.io/" + strings.Repeat("a", 971)
	var sb strings.Builder
	for i := range 1000 {
		prefixes := make([]string, 100)
		for j := range prefixes {
			prefixes[j] = fmt.Sprintf("%s%010d", long, i*100+j)
		}
		sb.WriteString(ic(fmt.Sprintf("c%04d", i), rw("m/"), prefixes...))
	}
	s, err := imageconfig.ParseAll(context.Background(), []imageconfig.Input{{Reader: strings.NewReader(sb.String())}}, imageconfig.WithLimits(imageconfig.Limits{MaxBytes: 1 << 30}))
	if err != nil {
		b.Fatal(err)
	}
	return s, long + "0000099999/p:v1"
}

func BenchmarkRewriteWorst(b *testing.B) {
	s, ref := worstSet(b)
	b.ResetTimer()
	for range b.N {
		if _, _, ok := s.Rewrite(ref); !ok {
			b.Fatal("no match")
		}
	}
}

// BenchmarkRewriteLengths: the index's worst case, a prefix of every
// length up to MaxPrefixBytes, none matching a 1,024-byte reference, so
// that every length is looked up.
func BenchmarkRewriteLengths(b *testing.B) {
	var sb strings.Builder
	for i := range 11 {
		prefixes := make([]string, 0, 100)
		for j := 1; j <= 100 && i*100+j <= 1024; j++ {
			prefixes = append(prefixes, strings.Repeat("b", i*100+j))
		}
		if len(prefixes) > 0 {
			sb.WriteString(ic(fmt.Sprintf("c%02d", i), rw("m/"), prefixes...))
		}
	}
	s, err := imageconfig.ParseAll(context.Background(), []imageconfig.Input{{Reader: strings.NewReader(sb.String())}})
	if err != nil {
		b.Fatal(err)
	}
	ref := strings.Repeat("a", 1024)
	b.ResetTimer()
	for range b.N {
		if _, _, ok := s.Rewrite(ref); ok {
			b.Fatal("match")
		}
	}
}
