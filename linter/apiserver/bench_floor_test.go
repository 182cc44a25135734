package apiserver

import (
	"context"
	"runtime"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	kjson "sigs.k8s.io/json"
)

// BenchmarkAPIServerFloor measures the part of XP420 that no change in
// xpkgkit can remove: the API server's own
// validation.ValidateCustomResourceDefinition on the monolith's CRDs,
// already decoded, defaulted and converted to the internal type before
// the timer starts, one CRD after another on one goroutine. XP420's cost
// on the monolith is at least this (divided by the cores it runs on).
func BenchmarkAPIServerFloor(b *testing.B) {
	pkg := parseCorpus(b, "provider-upjet-aws-monolith")
	var crds []*apiextensions.CustomResourceDefinition
	for _, o := range pkg.Objects {
		if o.GroupVersionKind().Kind != "CustomResourceDefinition" {
			continue
		}
		u, err := o.Unstructured()
		if err != nil {
			b.Fatal(err)
		}
		raw, err := marshalJSON(u.Object)
		if err != nil {
			b.Fatal(err)
		}
		var v1 apiextensionsv1.CustomResourceDefinition
		if err := kjson.UnmarshalCaseSensitivePreserveInts(raw, &v1); err != nil {
			b.Fatal(err)
		}
		apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(&v1)
		in := new(apiextensions.CustomResourceDefinition)
		if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(&v1, in, nil); err != nil {
			b.Fatal(err)
		}
		crds = append(crds, in)
	}
	runtime.GC()
	b.Logf("%d CRDs", len(crds))
	ctx := context.Background()
	start := cpuTime()
	for b.Loop() {
		for _, c := range crds {
			validation.ValidateCustomResourceDefinition(ctx, c)
		}
	}
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}
