package deps_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/meta"

	"github.com/klauspost/compress/gzip"

	"github.com/xpkgkit/xpkgkit/internal/testcorpus"
	"github.com/xpkgkit/xpkgkit/linter/graphrules"
	"github.com/xpkgkit/xpkgkit/xpkg"
	"github.com/xpkgkit/xpkgkit/xpkg/deps"
	"github.com/xpkgkit/xpkgkit/xpkg/xpkgtest"
)

func TestDirSource(t *testing.T) {
	t.Parallel()
	prov := xpkgtest.NewProvider("provider-a").WithCRD("a.example.org", "Widget", "v1")
	g := xpkgtest.NewGraph().
		Add(provA, "v1.0.0", prov).
		Add(provA, "v1.1.0", prov.WithAnnotation("x", "y")).
		Add(fnP, "v0.3.0", xpkgtest.NewFunction("function-p"))
	dir := g.Dir(t)
	// A package directory and a package.yaml stream beside the images.
	pb := xpkgtest.NewProvider("provider-b")
	bdir := filepath.Join(dir, filepath.FromSlash(provB))
	if err := os.MkdirAll(filepath.Join(bdir, "v0.2.0"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range pb.FS() {
		p := filepath.Join(bdir, "v0.2.0", filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, data.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(bdir, "v0.1.0.yaml"), pb.YAML(), 0o644); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "README"), []byte("not a package"), 0o644)

	src := deps.NewDirSource(dir)
	tags, err := src.Tags(context.Background(), provA)
	if err != nil || strings.Join(tags, ",") != "v1.0.0,v1.1.0" {
		t.Fatalf("tags: %v %v", tags, err)
	}
	if _, err := src.Tags(context.Background(), reg+"nothing"); !errors.Is(err, deps.ErrNotFound) {
		t.Errorf("missing: %v", err)
	}
	d0 := prov.MustImage(t).Digest().String()
	root := xpkgtest.NewConfiguration("root").
		WithDependency(meta.KindProvider, provA, d0).
		WithDependency(meta.KindProvider, provB, ">=v0.1.0").
		WithDependency(meta.KindFunction, fnP, "v0")
	gr, ds := resolve(t, src, root)
	checkDiags(t, ds, nil)
	if got, want := versions(gr), fnP+":v0.3.0 "+provA+"@"+d0+" "+provB+":v0.2.0"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	n := gr.Nodes[2]
	if n.Package.Version != "v1.0.0" || n.Package.Digest != d0 || len(n.Package.Types) != 1 {
		t.Errorf("pinned: %+v", n.Package)
	}
	if d := gr.Nodes[1].Package.Digest; !strings.HasPrefix(d, "sha256:") {
		t.Errorf("image digest %q", d)
	}
	if d := gr.Nodes[3].Package.Digest; d != "" {
		t.Errorf("package directory digest %q", d)
	}
}

// writeCache writes p's package.yaml as Crossplane's cache does.
func writeCache(t *testing.T, dir, id string, p *xpkgtest.Package) {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, id+".gz"))
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(f)
	zw.Write(p.YAML())
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

func TestCacheSource(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	hex := strings.Repeat("ab", 32)
	writeCache(t, dir, "acme-provider-a-"+hex[:12], xpkgtest.NewProvider("provider-a").WithCRD("a.example.org", "Widget", "v1"))
	writeCache(t, dir, "acme-function-p-111111111111", xpkgtest.NewFunction("function-p"))
	writeCache(t, dir, "acme-function-p-222222222222", xpkgtest.NewFunction("function-p"))
	src := deps.NewCacheSource(dir)
	if _, err := src.Tags(context.Background(), provA); !errors.Is(err, deps.ErrUnversioned) {
		t.Fatalf("tags: %v", err)
	}
	root := xpkgtest.NewConfiguration("root").WithDependency(meta.KindProvider, provA, ">=v1.0.0")
	gr, ds := resolve(t, src, root)
	checkDiags(t, ds, nil)
	if n := gr.Nodes[1]; n.Package == nil || n.Package.Digest != "sha256:"+hex[:12] || n.Package.Kind != "Provider" {
		t.Fatalf("cache entry: %+v", n)
	}
	_, ds = resolve(t, src, root.WithDependency(meta.KindFunction, fnP, "v0"))
	checkDiags(t, ds, []want{{"XP601", "root.yaml:19", "several copies"}})
	_, ds = resolve(t, src, xpkgtest.NewConfiguration("root").WithDependency(meta.KindProvider, provA, "sha256:"+hex))
	checkDiags(t, ds, nil)
}

// corpusDir lays out the corpus Configurations' dependencies as a
// NewDirSource reads them: the corpus packages under the references the
// Configurations name, and xpkgtest stand-ins for what the corpus lacks.
func corpusDir(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	link := func(name, tag, corpusPath string) {
		p := filepath.Join(dir, filepath.FromSlash(name), tag)
		if strings.HasSuffix(corpusPath, xpkg.Extension) {
			p += xpkg.Extension
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(corpusPath, p); err != nil {
			t.Fatal(err)
		}
	}
	up := "xpkg.upbound.io/upbound/"
	cc := "xpkg.upbound.io/crossplane-contrib/"
	link(up+"configuration-aws-network", "v0.23.0", testcorpus.Path(t, "configuration-aws-network.xpkg"))
	link(up+"configuration-aws-eks", "v0.16.0", testcorpus.Path(t, "configuration-aws-eks.xpkg"))
	link(cc+"function-patch-and-transform", "v0.8.2", testcorpus.Path(t, "function-patch-and-transform.xpkg"))
	link(cc+"function-go-templating", "v0.9.2", testcorpus.Path(t, "function-go-templating.oci"))
	link(up+"provider-helm", "v0.19.0", testcorpus.Path(t, "provider-helm/src"))
	link(up+"provider-kubernetes", "v0.14.0", testcorpus.Path(t, "provider-kubernetes.xpkg"))

	// Stand-ins serve the composed types with schemas that keep any spec:
	// their real schemas are not in the corpus.
	prov := func(name string) *standIn { return &standIn{xpkgtest.NewProvider(name)} }
	g := xpkgtest.NewGraph().
		Add(up+"provider-aws-ec2", "v1.20.0", prov("provider-aws-ec2").crd("ec2.aws.upbound.io", "SecurityGroup", "v1beta1").crd("ec2.aws.upbound.io", "VPC", "v1beta1").p).
		Add(up+"provider-aws-ec2", "v1.21.0", prov("provider-aws-ec2").crd("ec2.aws.upbound.io", "SecurityGroup", "v1beta1").crd("ec2.aws.upbound.io", "VPC", "v1beta1").p).
		Add(up+"provider-aws-eks", "v1.21.0", prov("provider-aws-eks").
			crd("eks.aws.upbound.io", "AccessEntry", "v1beta1").crd("eks.aws.upbound.io", "AccessPolicyAssociation", "v1beta1").
			crd("eks.aws.upbound.io", "Addon", "v1beta1").crd("eks.aws.upbound.io", "ClusterAuth", "v1beta1").
			crd("eks.aws.upbound.io", "Cluster", "v1beta2", "v1beta1").crd("eks.aws.upbound.io", "NodeGroup", "v1beta2", "v1beta1").p).
		Add(up+"provider-aws-iam", "v1.21.0", prov("provider-aws-iam").crd("iam.aws.upbound.io", "Role", "v1beta1").p).
		Add(cc+"function-kcl", "v0.11.2", xpkgtest.NewFunction("function-kcl")).
		Add(cc+"function-auto-ready", "v0.4.2", xpkgtest.NewFunction("function-auto-ready")).
		Add(cc+"function-sequencer", "v0.2.2", xpkgtest.NewFunction("function-sequencer")).
		Add(cc+"function-cel-filter", "v0.1.1", xpkgtest.NewFunction("function-cel-filter")).
		Add(up+"configuration-aws-lb-controller", "v0.3.0", (&standIn{xpkgtest.NewConfiguration("configuration-aws-lb-controller")}).xrd("aws.platform.upbound.io", "XAWSLBController").p).
		Add(up+"configuration-aws-database", "v0.15.0", xpkgtest.NewConfiguration("configuration-aws-database")).
		Add(up+"configuration-app", "v0.11.0", xpkgtest.NewConfiguration("configuration-app")).
		Add(up+"configuration-observability-oss", "v0.9.0", (&standIn{xpkgtest.NewConfiguration("configuration-observability-oss")}).xrd("observe.platform.upbound.io", "XOss").p).
		Add(up+"configuration-gitops-flux", "v0.10.0", (&standIn{xpkgtest.NewConfiguration("configuration-gitops-flux")}).xrd("gitops.platform.upbound.io", "XFlux").p).
		Add(cc+"provider-nop", "v0.3.1", xpkgtest.NewProvider("provider-nop")).
		Add(cc+"provider-nop", "v0.4.0", xpkgtest.NewProvider("provider-nop"))
	if err := os.CopyFS(dir, os.DirFS(g.Dir(t))); err != nil {
		t.Fatal(err)
	}
	return dir
}

// standIn builds stand-in packages whose definitions keep any spec.
type standIn struct{ p *xpkgtest.Package }

const permissive = "        type: object\n        properties:\n          spec:\n            type: object\n            x-kubernetes-preserve-unknown-fields: true\n"

func (s *standIn) crd(group, kind string, versions ...string) *standIn {
	plural := xpkgtest.Plural(kind)
	y := fmt.Sprintf("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: %s.%s\nspec:\n  group: %s\n  scope: Cluster\n  names:\n    kind: %s\n    listKind: %sList\n    plural: %s\n    singular: %s\n  versions:\n", plural, group, group, kind, kind, plural, strings.ToLower(kind))
	for i, v := range versions {
		y += fmt.Sprintf("  - name: %s\n    served: true\n    storage: %t\n    schema:\n      openAPIV3Schema:\n%s", v, i == 0, permissive)
	}
	return &standIn{s.p.WithObject([]byte(y))}
}

func (s *standIn) xrd(group, kind string) *standIn {
	plural := xpkgtest.Plural(kind)
	y := fmt.Sprintf("apiVersion: apiextensions.crossplane.io/v1\nkind: CompositeResourceDefinition\nmetadata:\n  name: %s.%s\nspec:\n  group: %s\n  names:\n    kind: %s\n    plural: %s\n  versions:\n  - name: v1alpha1\n    served: true\n    referenceable: true\n    schema:\n      openAPIV3Schema:\n%s", plural, group, group, kind, plural, permissive)
	return &standIn{s.p.WithObject([]byte(y))}
}

func TestCorpusConfigurations(t *testing.T) {
	t.Parallel()
	dir := corpusDir(t)
	tests := []struct {
		name      string
		packages  int
		check     func(*testing.T, *deps.Graph)
		footprint string // XP609's message, a pattern
	}{
		{"platform-ref-aws", 19, nil, `installs 34 CRDs: 19 plain, 9 MRDs active at install, 6 MRDs inactive .* of served definitions`},
		{"configuration-aws-eks", 13, nil, `installs 29 CRDs: 14 plain, 9 MRDs active at install, 6 MRDs inactive`},
		{"configuration-aws-network", 5, func(t *testing.T, g *deps.Graph) {
			if n := g.Nodes[len(g.Nodes)-1]; n.Label() != "xpkg.upbound.io/upbound/provider-aws-ec2:v1.21.0" {
				t.Errorf("provider-aws-ec2 resolved to %s", n.Label())
			}
		}, `installs 4 CRDs: 2 plain, 2 MRDs active at install, 0 MRDs inactive`},
		{"e2e-configuration-dependency", 2, func(t *testing.T, g *deps.Graph) {
			if n := g.Nodes[1]; n.Label() != "xpkg.upbound.io/crossplane-contrib/provider-nop:v0.3.1" {
				t.Errorf("provider-nop resolved to %s", n.Label())
			}
		}, `installs 0 CRDs: .*no MRAP in the graph`},
	}
	src := deps.NewDirSource(dir)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			pkg, err := xpkg.Open(ctx, testcorpus.Path(t, tc.name+".xpkg"))
			if err != nil {
				t.Fatal(err)
			}
			root, err := deps.Summarize(ctx, pkg.Package, "")
			if err != nil {
				t.Fatal(err)
			}
			g, err := deps.NewResolver(src).Resolve(ctx, root)
			if err != nil {
				t.Fatal(err)
			}
			res, err := graphrules.Lint(ctx, g, linter.WithCrossplaneVersion("v2.1.0"))
			if err != nil {
				t.Fatal(err)
			}
			footprints := 0
			for _, d := range res.Diagnostics {
				if d.RuleID == "XP609" {
					footprints++
					if !regexp.MustCompile(tc.footprint).MatchString(d.Message) {
						t.Errorf("XP609: %s\nwant it to match %s", d.Message, tc.footprint)
					}
					continue
				}
				t.Errorf("unexpected: %s", d)
			}
			if footprints != 1 {
				t.Errorf("%d XP609 findings, want one (the graph's footprint)", footprints)
			}
			if len(g.Nodes) != tc.packages {
				for _, n := range g.Nodes {
					t.Log(n.Label())
				}
				t.Errorf("got %d packages, want %d", len(g.Nodes), tc.packages)
			}
			for _, n := range g.Nodes[1:] {
				if n.Package == nil {
					t.Errorf("%s not fetched: %v", n.Label(), n.Err)
				}
			}
			if tc.check != nil {
				tc.check(t, g)
			}
		})
	}
}

func TestSourcesShadow(t *testing.T) {
	t.Parallel()
	prov := xpkgtest.NewProvider("provider-a")
	first := xpkgtest.NewGraph().Add(provA, "v1.0.0", prov).Source(t)
	second := xpkgtest.NewGraph().Add(provA, "v1.5.0", prov).Add(provB, "v0.1.0", xpkgtest.NewProvider("provider-b")).Source(t)
	root := xpkgtest.NewConfiguration("root").
		WithDependency(meta.KindProvider, provA, "v1").
		WithDependency(meta.KindProvider, provB, "v0")
	g, ds := resolve(t, deps.Sources(first, second), root)
	checkDiags(t, ds, nil)
	if got, want := versions(g), provA+":v1.0.0 "+provB+":v0.1.0"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if deps.Fetches(second, provA, "v1.5.0") != 0 {
		t.Error("the second source was asked for a package the first has")
	}
}

// TestUnreadablePackages: too many tags, and an image that fails its
// verification, are problems of the graph (XP601), not errors of Resolve.
func TestUnreadablePackages(t *testing.T) {
	t.Parallel()
	g := xpkgtest.NewGraph()
	for i := range 20 {
		g.Add(provA, fmt.Sprintf("v1.0.%d", i), xpkgtest.NewProvider("provider-a"))
	}
	g.Add(provB, "v1.0.0", xpkgtest.NewProvider("provider-b"))
	dir := g.Dir(t)
	// Corrupt provider-b's image: one byte of its base layer.
	p := filepath.Join(dir, filepath.FromSlash(provB), "v1.0.0.xpkg")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(data, []byte{0x1f, 0x8b}) // the first gzip layer
	if i < 0 {
		t.Fatal("no gzip layer in the .xpkg")
	}
	data[i+40] ^= 0xff
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	root := xpkgtest.NewConfiguration("root").
		WithDependency(meta.KindProvider, provA, "v1").
		WithDependency(meta.KindProvider, provB, "v1")
	gr, err := deps.NewResolver(deps.NewDirSource(dir), deps.WithLimits(deps.Limits{MaxTags: 10})).Resolve(context.Background(), rootSummary(t, root))
	if err != nil {
		t.Fatal(err)
	}
	res, err := graphrules.Lint(context.Background(), gr)
	if err != nil {
		t.Fatal(err)
	}
	checkDiags(t, res.Diagnostics, []want{
		{"XP601", "root.yaml:15", `cannot list its versions: deps: "xpkg.example.org/acme/provider-a": MaxTags 10 exceeded`},
		{"XP601", "root.yaml:19", `provider-b:v1.0.0 cannot be fetched: `},
	})
}
