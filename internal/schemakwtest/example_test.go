package schemakwtest_test

import (
	"fmt"
	"slices"

	"github.com/xpkgkit/xpkgkit/internal/schemakwtest"
)

func ExampleKeywords() {
	kw := schemakwtest.Keywords()
	fmt.Println(slices.Contains(kw, "pattern"), slices.Contains(kw, "description"))
	// Output: true false
}
