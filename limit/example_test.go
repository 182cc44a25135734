package limit_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/xpkgkit/xpkgkit/limit"
	"github.com/xpkgkit/xpkgkit/parser"
)

// Example sets one limit (the others keep their defaults), lifts another,
// and reads the limit exceeded from the error, as it would from any package
// of the module.
func Example() {
	stream := strings.Repeat("---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n", 3)
	_, err := parser.Parse(context.Background(), strings.NewReader(stream), parser.WithFile("package.yaml"),
		parser.WithLimits(parser.Limits{MaxDocuments: 2, MaxDepth: limit.Unlimited}))
	var le *limit.Error
	if errors.As(err, &le) {
		fmt.Println(le.Limit == limit.MaxDocuments, le.Max, le.Pos)
	}
	fmt.Println(errors.Is(err, limit.ErrExceeded))
	fmt.Println(err)
	// Output:
	// true 2 package.yaml:11:1
	// true
	// package.yaml:11:1: MaxDocuments 2 exceeded
}
