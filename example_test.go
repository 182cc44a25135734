package xpkgkit_test

import (
	"context"
	"fmt"
	"log"

	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/linter/rules"
	"github.com/xpkgkit/xpkgkit/xpkg"
)

// Example opens a package image as the Crossplane CLI writes it (a .xpkg
// docker archive), verifying every blob it reads, and lints it with the
// built-in rules for its kind.
func Example() {
	ctx := context.Background()
	pkg, err := xpkg.Open(ctx, "oci/testdata/configuration.xpkg")
	if err != nil {
		log.Fatal(err) // the source cannot be read: the error says what and where
	}
	res, err := rules.LintPackage(ctx, pkg, linter.WithCrossplaneVersion("v2.0.0"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s %s from a %s source\n", res.Kind, pkg.Meta[0].Name, pkg.SourceKind)
	for _, d := range res.Diagnostics {
		fmt.Println(d.Severity, d.RuleID, d.RuleName)
	}
	// Output:
	// Configuration e2e-depends-on-provider-nop from a xpkg source
	// warning XP204 license
	// warning XP205 source-url
	// info XP206 description
	// info XP207 maintainer
}
