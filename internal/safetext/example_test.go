package safetext_test

import (
	"errors"
	"fmt"

	"github.com/xpkgkit/xpkgkit/internal/safetext"
)

func Example() {
	name := "provider\x1b]0;pwned\a"
	platforms := []string{"linux/amd64", "linux/arm64", "linux/arm/v7", "linux/s390x", "linux/ppc64le", "windows/amd64", "darwin/arm64", "freebsd/amd64", "linux/riscv64"}
	fmt.Println("name", safetext.Quote(name))
	fmt.Println("kind", safetext.Token("Provider"))
	fmt.Println("index has", safetext.Join(platforms, safetext.Token))
	fmt.Println(safetext.Reason(errors.New("bad\rvalue")))
	// Output:
	// name "provider\x1b]0;pwned\a"
	// kind Provider
	// index has linux/amd64, linux/arm64, linux/arm/v7, linux/s390x, linux/ppc64le, windows/amd64, darwin/arm64, freebsd/amd64 and 1 more
	// bad\rvalue
}
