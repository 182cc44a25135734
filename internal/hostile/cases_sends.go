package hostile

import (
	"fmt"
	"strings"
)

// sendsEmptySteps is how many steps sends-cost-empty-steps holds: as
// many as stay under internal/sent's MaxNodes once sent (7 nodes each),
// so that the API server's validator checks them all.
const sendsEmptySteps = 57_000

// sendsCRD is a CustomResourceDefinition, which a Configuration may not
// hold (XP102, an error with or without linter/apiserver), so that
// each sends case is an error through every reader.
const sendsCRD = `---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: things.sends.example.org
spec:
  group: sends.example.org
  names: {kind: Thing, plural: things}
  scope: Cluster
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object}
`

// sendsCostCases are the worst cases of the typed round trip of
// Crossplane's kinds (internal/sent, run by XP422 in
// linter/apiserver): what the YAML leaves out, the package manager
// sends as each Go type's zero value, so a small object becomes a large
// one. The round trip is linear in the object and the fields its types
// add (a bounded number per map of the YAML), and XP422 handles one object
// at a time.
func sendsCostCases() []Case {
	lintErr := rule(ClassLintError, "XP102")
	return []Case{
		{
			Name: "sends-cost-empty-steps",
			Description: "One Operation whose pipeline is 57,000 empty steps ({}), just under the node limit of the object as sent: each is sent with step \"\", " +
				"functionRef {name: \"\"} and the other fields its Go type has no omitempty on, and the API server's " +
				"validator then checks every step (the pipeline's unique-step-name CEL rule is bounded by the cost budget).",
			Kind:   KindPackageYAML,
			Expect: lintErr,
			Size:   7 * sendsEmptySteps,
			Write: streamYAML("sends-cost-empty-steps", func() []byte {
				head := validPackage + sendsCRD + "---\napiVersion: ops.crossplane.io/v1alpha1\nkind: Operation\nmetadata:\n  name: empty-steps\nspec:\n  mode: Pipeline\n  pipeline:\n"
				return []byte(head + strings.Repeat("  - {}\n", sendsEmptySteps))
			}),
		},
		{
			Name: "sends-cost-many-objects",
			Description: "About 8,000 CronOperations that leave out every field they can (schedule, mode, step, functionRef): " +
				"each is sent with its Go type's zero values and validated, one object at a time.",
			Kind:   KindPackageYAML,
			Expect: lintErr,
			Size:   lintCostBytes,
			Write: streamYAML("sends-cost-many-objects", func() []byte {
				return stream(validPackage+sendsCRD, func(i int) string {
					return fmt.Sprintf("---\napiVersion: ops.crossplane.io/v1alpha1\nkind: CronOperation\nmetadata:\n  name: c%d\nspec:\n  operationTemplate:\n    spec:\n      pipeline:\n      - {}\n", i)
				}, "")
			}),
		},
	}
}
