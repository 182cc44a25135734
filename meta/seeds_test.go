package meta_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/xpkgkit/xpkgkit/meta"
	v1 "github.com/xpkgkit/xpkgkit/meta/v1"
	"github.com/xpkgkit/xpkgkit/meta/v1alpha1"
)

// TestPackagesGuideExamples decodes the meta.pkg.crossplane.io/v1 examples
// of the packages guide.
func TestPackagesGuideExamples(t *testing.T) {
	t.Parallel()
	s := newScheme(t)
	cases := map[string]struct {
		file string
		want meta.Pkg
	}{
		"Provider": {
			file: "packages-guide-provider.yaml",
			want: &v1.Provider{
				TypeMeta:   typeMeta("meta.pkg.crossplane.io/v1", "Provider"),
				ObjectMeta: objectMeta("provider-gcp", nil),
				Spec: v1.ProviderSpec{
					Controller: &v1.ControllerSpec{
						Image: ptr("crossplane/provider-gcp-controller:v0.14.0"),
						PermissionRequests: []v1.PolicyRule{{
							APIGroups: []string{"apiextensions.crossplane.io"},
							Resources: []string{"compositions"},
							Verbs:     []string{"get", "list", "create", "update", "patch", "watch"},
						}},
					},
					MetaSpec: v1.MetaSpec{Crossplane: &v1.CrossplaneConstraints{Version: ">=v1.0.0"}},
				},
			},
		},
		"Configuration": {
			file: "packages-guide-configuration.yaml",
			want: &v1.Configuration{
				TypeMeta:   typeMeta("meta.pkg.crossplane.io/v1", "Configuration"),
				ObjectMeta: objectMeta("my-org-infra", nil),
				Spec: v1.ConfigurationSpec{MetaSpec: v1.MetaSpec{
					Crossplane: &v1.CrossplaneConstraints{Version: ">=v1.0.0"},
					DependsOn:  []v1.Dependency{{Provider: ptr("crossplane/provider-gcp"), Version: ">=v0.14.0"}},
				}},
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := decode(s, readFile(t, "testdata", "seeds", tc.file))
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("decoded (-want +got):\n%s", diff)
			}
		})
	}
}

// TestFormatV2Examples decodes the examples of the Package Format v2 design,
// which use a fork's group (meta.pkg.ibm.crossplane.io). They are drafts that
// predate the released v1alpha1: `spec.crossplane` is a plain string, not
// {version: ...}, and the Provider's permissionRequests sit under spec, not
// spec.controller. Crossplane rejects them as written, and so do we; with
// `crossplane` in the released form they decode into the same types as the
// default group, and strict decoding names the misplaced field.
func TestFormatV2Examples(t *testing.T) {
	t.Parallel()
	s := newScheme(t, meta.WithGroup(forkGroup))
	annotations := func(provider, source, description, keywords string) map[string]string {
		return map[string]string{
			"company":     "Upbound",
			"maintainer":  "Nic Cope <negz@upbound.io>",
			"keywords":    keywords,
			"source":      source,
			"license":     "Apache-2.0",
			"description": description,
			"provider":    provider,
		}
	}
	cases := map[string]struct {
		file        string
		want        meta.Pkg
		wantUnknown string // the unknown field strict decoding reports, if any
	}{
		"Provider": {
			file: "format-v2-provider.yaml",
			want: &v1alpha1.Provider{
				TypeMeta: typeMeta(forkGroup+"/v1alpha1", "Provider"),
				ObjectMeta: objectMeta("provider-example", annotations("example",
					"github.com/crossplane-contrib/provider-example",
					"The Example provider adds support for example resources to Crossplane.\n",
					"cloud-native, kubernetes")),
				Spec: v1alpha1.ProviderSpec{
					Controller: &v1.ControllerSpec{Image: ptr("example/provider-example:v0.1.0")},
					MetaSpec: v1.MetaSpec{
						Crossplane: &v1.CrossplaneConstraints{Version: "v0.13.0"},
						DependsOn:  []v1.Dependency{{Provider: ptr("example/provider-uncommon"), Version: "v0.1.0"}},
					},
				},
			},
			wantUnknown: `"spec.permissionRequests"`,
		},
		"Configuration": {
			file: "format-v2-configuration.yaml",
			want: &v1alpha1.Configuration{
				TypeMeta: typeMeta(forkGroup+"/v1alpha1", "Configuration"),
				ObjectMeta: objectMeta("configuration-example", annotations("example",
					"github.com/crossplane-contrib/config-example",
					"The Example configuration adds example resources to Crossplane.\n",
					"cloud-native, kubernetes, example")),
				Spec: v1alpha1.ConfigurationSpec{MetaSpec: v1.MetaSpec{
					Crossplane: &v1.CrossplaneConstraints{Version: "v0.13.0"},
					DependsOn: []v1.Dependency{
						{Provider: ptr("example/provider-example"), Version: "v0.1.0"},
						{Configuration: ptr("example/some-dependency"), Version: "v0.2.0"},
					},
				}},
			},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			data := readFile(t, "testdata", "seeds", tc.file)

			// The draft writes spec.crossplane as a bare string: it decodes,
			// marked as shorthand so the linter can report it.
			draft, err := decode(s, data)
			if err != nil {
				t.Fatalf("decode of the draft as written: %v", err)
			}
			if c := draft.GetCrossplaneConstraints(); c == nil || c.Version != "v0.13.0" || !c.Shorthand {
				t.Errorf("draft spec.crossplane = %+v, want version v0.13.0 marked Shorthand", c)
			}

			released := bytes.Replace(data, []byte("crossplane: v0.13.0"), []byte("crossplane: {version: v0.13.0}"), 1)
			got, err := decode(s, released)
			if err != nil {
				t.Fatalf("decode with released spec.crossplane: %v", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("decoded (-want +got):\n%s", diff)
			}

			var m map[string]any
			if err := yaml.Unmarshal(released, &m); err != nil {
				t.Fatal(err)
			}
			obj := got.DeepCopyObject()
			err = runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(m, obj, true)
			switch {
			case tc.wantUnknown == "" && err != nil:
				t.Errorf("strict decoding: %v", err)
			case tc.wantUnknown != "" && (err == nil || !strings.Contains(err.Error(), tc.wantUnknown)):
				t.Errorf("strict decoding error = %v, want one naming %q", err, tc.wantUnknown)
			}
		})
	}
}
