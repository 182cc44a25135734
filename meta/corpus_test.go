package meta_test

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/xpkgkit/xpkgkit/internal/testcorpus"
	"github.com/xpkgkit/xpkgkit/meta"
)

// TestCorpus decodes the meta object of every corpus package, from its
// crossplane.yaml and from the first document of its package.yaml.
func TestCorpus(t *testing.T) {
	t.Parallel()
	want := map[string]struct {
		kind       meta.Kind
		apiVersion string
	}{
		"e2e-configuration-dependency": {meta.KindConfiguration, "meta.pkg.crossplane.io/v1"},
		"function-go-templating":       {meta.KindFunction, "meta.pkg.crossplane.io/v1"},
		"configuration-aws-network":    {meta.KindConfiguration, "meta.pkg.crossplane.io/v1alpha1"},
		"platform-ref-aws":             {meta.KindConfiguration, "meta.pkg.crossplane.io/v1alpha1"},
		"configuration-aws-eks":        {meta.KindConfiguration, "meta.pkg.crossplane.io/v1alpha1"},
		"function-patch-and-transform": {meta.KindFunction, "meta.pkg.crossplane.io/v1"},
		"provider-helm":                {meta.KindProvider, "meta.pkg.crossplane.io/v1"},
		"provider-kubernetes":          {meta.KindProvider, "meta.pkg.crossplane.io/v1"},
		"provider-azure":               {meta.KindProvider, "meta.pkg.crossplane.io/v1alpha1"},
		"provider-gcp":                 {meta.KindProvider, "meta.pkg.crossplane.io/v1alpha1"},
		"provider-aws":                 {meta.KindProvider, "meta.pkg.crossplane.io/v1"},
		"provider-upjet-aws-monolith":  {meta.KindProvider, "meta.pkg.crossplane.io/v1"},
	}
	s := newScheme(t)
	for _, name := range testcorpus.Names() {
		w, ok := want[name]
		if !ok {
			t.Errorf("corpus package %s: no expectation; add one", name)
			continue
		}
		dir := testcorpus.Path(t, name)
		sources := map[string]func() ([]byte, error){
			"package.yaml": func() ([]byte, error) { return firstDocument(filepath.Join(dir, "package.yaml")) },
		}
		if src := filepath.Join(dir, "src", "crossplane.yaml"); fileExists(src) {
			sources["crossplane.yaml"] = func() ([]byte, error) { return firstDocument(src) }
		}
		for source, read := range sources {
			t.Run(name+"/"+source, func(t *testing.T) {
				t.Parallel()
				data, err := read()
				if err != nil {
					t.Fatal(err)
				}
				p, err := decode(s, data)
				if err != nil {
					t.Fatalf("decode: %v", err)
				}
				if k, _ := meta.KindOf(p); k != w.kind {
					t.Errorf("KindOf() = %q, want %q", k, w.kind)
				}
				if got := p.GetObjectKind().GroupVersionKind().GroupVersion().String(); got != w.apiVersion {
					t.Errorf("apiVersion = %q, want %q", got, w.apiVersion)
				}
				if p.GetName() == "" {
					t.Error("no metadata.name")
				}
				v, err := meta.ToV1(p)
				if err != nil {
					t.Fatalf("ToV1: %v", err)
				}
				if got := v.GetObjectKind().GroupVersionKind().Version; got != "v1" {
					t.Errorf("ToV1 version = %q, want v1", got)
				}
				for _, c := range p.GetCapabilities() {
					if !meta.CapabilitiesContain(meta.KnownCapabilities(w.kind), c) {
						t.Logf("capability %q is not one Crossplane knows for a %s", c, w.kind)
					}
				}
			})
		}
	}
}

// firstDocument returns the first non-empty document of the YAML stream in
// path, reading no further than it.
func firstDocument(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := utilyaml.NewYAMLReader(bufio.NewReader(f))
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return nil, errors.New(path + ": no document")
		}
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(stripComments(doc))) > 0 {
			return doc, nil
		}
	}
}

// stripComments drops the comment lines of a YAML document.
func stripComments(doc []byte) []byte {
	var out []byte
	for _, line := range bytes.SplitAfter(doc, []byte("\n")) {
		if t := bytes.TrimSpace(line); len(t) > 0 && t[0] == '#' {
			continue
		}
		out = append(out, line...)
	}
	return out
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
