package schemakw_test

import (
	"fmt"
	"slices"

	"github.com/xpkgkit/xpkgkit/internal/schemakw"
)

func ExampleKeywords() {
	kw := schemakw.Keywords()
	fmt.Println(slices.Contains(kw, "pattern"), slices.Contains(kw, "description"))
	// Output: true false
}
