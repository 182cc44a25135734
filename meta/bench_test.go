package meta_test

import (
	"path/filepath"
	"testing"

	"github.com/xpkgkit/xpkgkit/internal/testcorpus"
	"github.com/xpkgkit/xpkgkit/meta"
)

// BenchmarkDecode measures decoding real meta documents the parser's way
// (YAML to map to typed object) and converting them to v1.
func BenchmarkDecode(b *testing.B) {
	for _, name := range []string{"provider-helm", "configuration-aws-eks"} {
		data, err := firstDocument(filepath.Join(testcorpus.Path(b, name), "package.yaml"))
		if err != nil {
			b.Fatal(err)
		}
		s, err := meta.NewScheme()
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				p, err := decode(s, data)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := meta.ToV1(p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
