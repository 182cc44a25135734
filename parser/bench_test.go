package parser

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured/unstructuredscheme"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
	apiyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/xpkgkit/xpkgkit/internal/testcorpus"
	"github.com/xpkgkit/xpkgkit/meta"
)

// benchPackages are the streams both parse benchmarks read.
var benchPackages = []struct{ name, corpus string }{
	{"monolith", monolith},
	{"provider-aws", "provider-aws"},
}

func benchFile(b *testing.B, corpus string) (string, int64) {
	b.Helper()
	file := filepath.Join(testcorpus.Path(b, corpus), "package.yaml")
	fi, err := os.Stat(file)
	if err != nil {
		b.Fatal(err)
	}
	return file, fi.Size()
}

// BenchmarkParse parses real packages with Parse, keeping every object.
// For peak memory, run one iteration under /usr/bin/time -v:
//
//	go test -c -o parser.test ./parser
//	/usr/bin/time -v ./parser.test -test.run='^$' -test.bench=BenchmarkParse/monolith -test.benchtime=1x
func BenchmarkParse(b *testing.B) {
	for _, bp := range benchPackages {
		b.Run(bp.name, func(b *testing.B) {
			file, size := benchFile(b, bp.corpus)
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				f, err := os.Open(file)
				if err != nil {
					b.Fatal(err)
				}
				p, err := Parse(context.Background(), f, WithFile("package.yaml"))
				f.Close()
				if err != nil || len(p.Errors) != 0 || len(p.Meta) != 1 {
					b.Fatalf("Parse: %v, %v", err, p.Errors)
				}
			}
		})
	}
}

// BenchmarkParseApimachinery decodes the same streams the way Crossplane's
// own parser does: apimachinery's YAML reader splits the stream, and each
// document goes through a YAML serializer for the meta scheme first and,
// when that refuses it, through one for unstructured objects (each
// converting the YAML to JSON again), keeping every object.
func BenchmarkParseApimachinery(b *testing.B) {
	metaScheme, err := meta.NewScheme()
	if err != nil {
		b.Fatal(err)
	}
	opts := json.SerializerOptions{Yaml: true}
	metaDecoder := json.NewSerializerWithOptions(json.DefaultMetaFactory, metaScheme, metaScheme, opts)
	objectDecoder := json.NewSerializerWithOptions(json.DefaultMetaFactory,
		unstructuredscheme.NewUnstructuredCreator(), unstructuredscheme.NewUnstructuredObjectTyper(), opts)
	for _, bp := range benchPackages {
		b.Run(bp.name, func(b *testing.B) {
			file, size := benchFile(b, bp.corpus)
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				f, err := os.Open(file)
				if err != nil {
					b.Fatal(err)
				}
				var metas, objects []runtime.Object
				r := apiyaml.NewYAMLReader(bufio.NewReader(f))
				for {
					doc, err := r.Read()
					if errors.Is(err, io.EOF) {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
					if len(bytes.TrimSpace(doc)) == 0 || isCommentOnly(doc) {
						continue
					}
					if m, _, err := metaDecoder.Decode(doc, nil, nil); err == nil {
						metas = append(metas, m)
						continue
					}
					o, _, err := objectDecoder.Decode(doc, nil, &unstructured.Unstructured{})
					if err != nil {
						b.Fatal(err)
					}
					objects = append(objects, o)
				}
				f.Close()
				if len(metas) != 1 || len(objects) == 0 {
					b.Fatalf("%d meta objects, %d objects", len(metas), len(objects))
				}
			}
		})
	}
}

func isCommentOnly(doc []byte) bool {
	for line := range bytes.Lines(doc) {
		if t := bytes.TrimSpace(line); len(t) > 0 && t[0] != '#' && !bytes.Equal(t, []byte("---")) {
			return false
		}
	}
	return true
}

// BenchmarkSplit measures the Splitter alone.
func BenchmarkSplit(b *testing.B) {
	for _, bp := range benchPackages {
		b.Run(bp.name, func(b *testing.B) {
			file, size := benchFile(b, bp.corpus)
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				f, err := os.Open(file)
				if err != nil {
					b.Fatal(err)
				}
				s := NewSplitter(f)
				for {
					if _, err := s.Next(); err != nil {
						if !errors.Is(err, io.EOF) {
							b.Fatal(err)
						}
						break
					}
				}
				f.Close()
			}
		})
	}
}

// BenchmarkUnstructured decodes every object of provider-aws with
// Object.Unstructured: through the fast path where the document allows it
// ("fast"), and through the full parse ("full", as before the fast path
// read whole documents).
func BenchmarkUnstructured(b *testing.B) {
	file, _ := benchFile(b, "provider-aws")
	for _, mode := range []struct {
		name string
		opts []Option
	}{{"fast", nil}, {"full", []Option{withFullParse()}}} {
		b.Run(mode.name, func(b *testing.B) {
			f, err := os.Open(file)
			if err != nil {
				b.Fatal(err)
			}
			p, err := Parse(context.Background(), f, append([]Option{WithFile("package.yaml")}, mode.opts...)...)
			f.Close()
			if err != nil {
				b.Fatal(err)
			}
			var size int64
			for _, o := range p.Objects {
				size += int64(o.RawSize())
			}
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				for _, o := range p.Objects {
					if _, err := o.Unstructured(); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
