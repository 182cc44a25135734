package celskip_test

import (
	"fmt"

	"github.com/xpkgkit/xpkgkit/internal/celskip"
)

// The counts travel as tallies and come back whole.
func Example() {
	c := celskip.Counts{Transition: 2, Unevaluated: 3}
	back := celskip.FromTallies(c.Tallies())
	fmt.Println(back.Total(), back == c)
	// Output: 5 true
}
