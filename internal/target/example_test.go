package target_test

import (
	"fmt"

	"github.com/Masterminds/semver/v3"

	"github.com/xpkgkit/xpkgkit/internal/target"
)

func Example() {
	for _, v := range []string{"v2.1.8", "v2.3.4"} {
		r, _ := target.Resolve(v)
		c, err := r.ParseConstraint(">v2")
		fmt.Println(r.Line, r.Semver, err == nil && c.Check(semver.MustParse("v2.1.0")), r.FunctionCRDOnly)
	}
	// Output:
	// v2.1 Masterminds/semver v1.5.0 true false
	// v2.3 Masterminds/semver/v3 v3.4.0 false true
}
