package xpkgtest_test

import (
	"context"
	"fmt"
	"os"

	"github.com/xpkgkit/xpkgkit/meta"
	"github.com/xpkgkit/xpkgkit/xpkg/xpkgtest"
)

// A Provider fixture with a CRD and a dependency; its package.yaml stream.
func ExampleNewProvider() {
	p := xpkgtest.NewProvider("provider-example").
		WithCrossplaneConstraint(">=v1.14.0").
		WithCRD("example.org", "Widget", "v1alpha1").
		WithDependency(meta.KindProvider, "xpkg.crossplane.io/crossplane-contrib/provider-kubernetes", ">=v0.9.0")
	os.Stdout.Write(p.YAML())
	// Output:
	// apiVersion: meta.pkg.crossplane.io/v1
	// kind: Provider
	// metadata:
	//   annotations:
	//     meta.crossplane.io/description: The provider-example provider is a test fixture
	//       built by xpkgtest.
	//     meta.crossplane.io/license: Apache-2.0
	//     meta.crossplane.io/maintainer: xpkgkit fixtures <fixtures@example.org>
	//     meta.crossplane.io/source: https://github.com/xpkgkit/xpkgkit
	//   name: provider-example
	// spec:
	//   crossplane:
	//     version: '>=v1.14.0'
	//   dependsOn:
	//   - apiVersion: pkg.crossplane.io/v1
	//     kind: Provider
	//     package: xpkg.crossplane.io/crossplane-contrib/provider-kubernetes
	//     version: '>=v0.9.0'
	// ---
	// apiVersion: apiextensions.k8s.io/v1
	// kind: CustomResourceDefinition
	// metadata:
	//   name: widgets.example.org
	// spec:
	//   group: example.org
	//   names:
	//     kind: Widget
	//     listKind: WidgetList
	//     plural: widgets
	//     singular: widget
	//   scope: Cluster
	//   versions:
	//   - name: v1alpha1
	//     schema:
	//       openAPIV3Schema:
	//         properties:
	//           spec:
	//             properties:
	//               size:
	//                 description: The size.
	//                 type: integer
	//             type: object
	//         type: object
	//     served: true
	//     storage: true
}

// A Configuration fixture's image. In a test, p.MustImage(t).XpkgFile(t)
// writes it as a .xpkg file in t.TempDir() (LayoutDir, LayoutTarFile: as
// an OCI layout).
func ExampleNewConfiguration() {
	p := xpkgtest.NewConfiguration("configuration-example").
		WithXRD("platform.example.org", "XCluster", "v1alpha1").
		WithComposition("xclusters-aws", "platform.example.org/v1alpha1", "XCluster", "crossplane-contrib-function-patch-and-transform").
		WithDependency(meta.KindFunction, "xpkg.crossplane.io/crossplane-contrib/function-patch-and-transform", ">=v0.8.0")
	img, err := p.Image(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(img.Manifest().Layers), "layer,", len(p.FS()), "files on disk")
	// Output:
	// 1 layer, 3 files on disk
}

// Every broken variant, for a table test of a reader or a linter.
func ExampleBrokenVariants() {
	for _, b := range xpkgtest.BrokenVariants() {
		_, content := b.Package()
		fmt.Println(b, content)
	}
	// Output:
	// no-meta true
	// two-metas true
	// bad-crossplane-constraint true
	// two-base-layers false
	// digest-mismatch false
	// misplaced-package-yaml false
	// legacy-stack false
}
