package tarpath_test

import (
	"fmt"

	"github.com/xpkgkit/xpkgkit/internal/tarpath"
)

func ExampleClean() {
	for _, name := range []string{"./package.yaml", "dir/", "a/../b", "/etc/passwd", ""} {
		clean, ok := tarpath.Clean(name)
		fmt.Printf("%q %q %v\n", name, clean, ok)
	}
	// Output:
	// "./package.yaml" "package.yaml" true
	// "dir/" "dir" true
	// "a/../b" "" false
	// "/etc/passwd" "" false
	// "" "" false
}
