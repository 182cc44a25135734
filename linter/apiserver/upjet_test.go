package apiserver

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xpkgkit/xpkgkit/internal/testcorpus"
	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/linter/rules"
	"github.com/xpkgkit/xpkgkit/parser"
)

// upjetCRD returns the document of the CRD named name in the upjet AWS
// monolith of the corpus.
func upjetCRD(t *testing.T, stream []byte, name string) string {
	t.Helper()
	for _, d := range bytes.Split(stream, []byte("\n---\n")) {
		if bytes.Contains(d, []byte("\n  name: "+name+"\n")) && bytes.Contains(d, []byte("kind: CustomResourceDefinition")) {
			return string(d)
		}
	}
	t.Fatalf("no CRD %s in the corpus", name)
	return ""
}

// TestUpjetRequiredParameters lints examples of two real upjet kinds
// (the upjet AWS provider's EmailIdentity, namespaced and cluster-scoped)
// with XP408 and the CEL extension: an example without a required
// parameter draws XP408 at its spec (the node the rule is attached to,
// which names no fieldPath), quoting the rule's message; the valid
// variants (the parameter set, Observe-only management policies, the
// parameter in initProvider) draw none.
func TestUpjetRequiredParameters(t *testing.T) {
	t.Parallel()
	stream, err := os.ReadFile(filepath.Join(testcorpus.Path(t, "provider-upjet-aws-monolith"), "package.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	pkgText := "apiVersion: meta.pkg.crossplane.io/v1\nkind: Provider\nmetadata:\n  name: provider-aws-ses\n---\n" +
		upjetCRD(t, stream, "emailidentities.ses.aws.m.upbound.io") + "\n---\n" +
		upjetCRD(t, stream, "emailidentities.ses.aws.upbound.io") + "\n"
	pkg, err := parser.Parse(context.Background(), strings.NewReader(pkgText), parser.WithFile("package.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	// Each example's "spec:" line that must draw XP408 ends in "# missing".
	const examples = `apiVersion: ses.aws.m.upbound.io/v1beta1
kind: EmailIdentity
metadata:
  name: missing
  namespace: default
spec: # missing
  forProvider:
    region: us-east-1
---
apiVersion: ses.aws.m.upbound.io/v1beta1
kind: EmailIdentity
metadata:
  name: set
  namespace: default
spec:
  forProvider:
    region: us-east-1
    email: a@example.org
---
apiVersion: ses.aws.m.upbound.io/v1beta1
kind: EmailIdentity
metadata:
  name: observe-only
  namespace: default
spec:
  managementPolicies: [Observe]
  forProvider:
    region: us-east-1
---
apiVersion: ses.aws.m.upbound.io/v1beta1
kind: EmailIdentity
metadata:
  name: init-provider
  namespace: default
spec:
  initProvider:
    email: a@example.org
  forProvider:
    region: us-east-1
---
apiVersion: ses.aws.m.upbound.io/v1beta1
kind: EmailIdentity
metadata:
  name: create-only
  namespace: default
spec: # missing
  managementPolicies: [Create, Observe]
  forProvider:
    region: us-east-1
---
apiVersion: ses.aws.upbound.io/v1beta1
kind: EmailIdentity
metadata:
  name: cluster-missing
spec: # missing
  forProvider:
    region: us-east-1
---
apiVersion: ses.aws.upbound.io/v1beta1
kind: EmailIdentity
metadata:
  name: cluster-observe-only
spec:
  managementPolicies: [Observe]
  forProvider:
    region: us-east-1
---
apiVersion: ses.aws.upbound.io/v1beta1
kind: EmailIdentity
metadata:
  name: cluster-init-provider
spec:
  initProvider:
    email: a@example.org
  forProvider:
    region: us-east-1
`
	ex, err := parser.Parse(context.Background(), strings.NewReader(examples), parser.WithFile("examples/emailidentity.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]bool{}
	for i, l := range strings.Split(examples, "\n") {
		if strings.HasSuffix(l, "# missing") {
			want[i+1] = true
		}
	}
	opts := append([]linter.Option{linter.WithRuleSet(rules.Lookup("XP408")), rules.WithExamples(ex)}, LintOptions()[1:]...)
	res, err := linter.Lint(context.Background(), pkg, append([]linter.Option{linter.WithRuleSet(rules.Builtin()...)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	got := map[int]bool{}
	for _, d := range res.Diagnostics {
		if d.RuleID != "XP408" || d.Severity == linter.SeverityInfo {
			continue
		}
		if !want[d.Pos.Line] || !strings.Contains(d.Message, "spec.forProvider.email is a required parameter") {
			t.Errorf("unexpected %s:%d: %s", d.Pos.File, d.Pos.Line, d.Message)
			continue
		}
		got[d.Pos.Line] = true
	}
	for l := range want {
		if !got[l] {
			t.Errorf("no XP408 at line %d", l)
		}
	}
}
