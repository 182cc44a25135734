package limit_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

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
		fmt.Println(le.Limit == "MaxDocuments", le.Max, le.Pos)
	}
	fmt.Println(errors.Is(err, limit.ErrExceeded))
	fmt.Println(err)
	// Output:
	// true 2 package.yaml:11:1
	// true
	// package.yaml:11:1: MaxDocuments 2 exceeded
}

// ExampleGate admits two calls at once: a third waits for its turn, and a
// fourth finds the queue of one full and is refused, as a server answers
// 503.
func ExampleGate() {
	g := limit.NewGate(limit.GateLimits{MaxActive: 2, MaxQueued: 1})
	ctx := context.Background()
	first, _ := g.Enter(ctx, 1<<20)
	second, _ := g.Enter(ctx, 1<<20)
	admitted := make(chan struct{})
	go func() {
		third, err := g.Enter(ctx, 1<<20)
		if err == nil {
			close(admitted)
			third()
		}
	}()
	for _, _, queued := g.Load(); queued == 0; _, _, queued = g.Load() {
		time.Sleep(time.Millisecond)
	}
	_, err := g.Enter(ctx, 1<<20)
	fmt.Println(err, errors.Is(err, limit.ErrExceeded))
	first()
	<-admitted
	second()
	// Output:
	// MaxQueued 1 exceeded true
}
