package semverv1_test

import (
	"errors"
	"fmt"

	"github.com/Masterminds/semver/v3"

	"github.com/xpkgkit/xpkgkit/internal/semverv1"
)

func ExampleParse() {
	c, err := semverv1.Parse(">=v1.14.0, <v3")
	if err != nil {
		panic(err)
	}
	fmt.Println(c.Check(semver.MustParse("v2.1.0")))
	fmt.Println(c.Check(semver.MustParse("v2.1.0-rc.1")))

	_, err = semverv1.Parse(">=v1.14.0 <v3")
	fmt.Println(errors.Is(err, semverv1.ErrSpaceJoined))
	fmt.Println(err)
	// Output:
	// true
	// false
	// true
	// comparisons joined by a space: Crossplane's constraint parser (Masterminds/semver v1.5.0) needs a comma: write ">=v1.14.0, <v3"
}
