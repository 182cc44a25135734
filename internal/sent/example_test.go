package sent_test

import (
	"context"
	"fmt"

	"github.com/xpkgkit/xpkgkit/internal/sent"
)

func Example() {
	// An Operation without mode, as an author wrote it.
	obj := map[string]any{
		"apiVersion": "ops.crossplane.io/v1alpha1",
		"kind":       "Operation",
		"metadata":   map[string]any{"name": "once"},
		"spec": map[string]any{"pipeline": []any{
			map[string]any{"step": "run", "functionRef": map[string]any{"name": "function-run"}},
		}},
	}
	out, rep, ok, err := sent.Send(context.Background(), "v2.4", "ops.crossplane.io", "v1alpha1", "Operation", obj)
	if err != nil || !ok {
		fmt.Println(ok, err)
		return
	}
	z, _ := rep.Zeroed([]string{"spec", "mode"})
	fmt.Printf("mode %q, zeroed as %s\n", out["spec"].(map[string]any)["mode"], z)
	// Output:
	// mode "", zeroed as ""
}
