package spdx_test

import (
	"fmt"

	"github.com/xpkgkit/xpkgkit/linter/rules/internal/spdx"
)

func ExampleCheck() {
	_, err := spdx.Check("Apache-2.0 OR MIT")
	fmt.Println(err)
	deprecated, _ := spdx.Check("GPL-2.0")
	fmt.Println(deprecated)
	_, err = spdx.Check("Apache 2")
	fmt.Println(err)
	// Output:
	// <nil>
	// [GPL-2.0]
	// unknown SPDX license identifier: "Apache" (see https://spdx.org/licenses/)
}
