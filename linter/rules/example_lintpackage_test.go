package rules_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"

	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/linter/rules"
	"github.com/xpkgkit/xpkgkit/xpkg"
)

// LintPackage lints a package opened with xpkg with the built-in rules, passing the image
// facts when the package came from an image.
func ExampleLintPackage() {
	ctx := context.Background()
	pkg, err := xpkg.Open(ctx, "../../xpkg/testdata/open/provider-lint")
	if err != nil {
		log.Fatal(err)
	}
	res, err := rules.LintPackage(ctx, pkg)
	if err != nil {
		log.Fatal(err)
	}
	for _, d := range res.Diagnostics {
		fmt.Printf("%s: %s %s %s\n", d.Pos, d.Severity, d.RuleID, d.RuleName)
	}
	fmt.Println("fails the build:", res.AtOrAbove(linter.SeverityError))
	// Output:
	// crossplane.yaml:7:3: warning XP204 license
	// crossplane.yaml:17:7: error XP303 dependency-reference
	// deployment.yaml:2:1: error XP102 allowed-kind
	// fails the build: true
}

// BuildCheck is the lint gate of xpkg.Build: Build refuses a package the
// linter finds errors in, and says why.
func ExampleBuildCheck() {
	_, err := xpkg.Build(context.Background(), os.DirFS("../../xpkg/testdata/build/lint-error"), xpkg.WithCheck(rules.BuildCheck()))
	var le *rules.LintError
	if errors.As(err, &le) {
		for _, d := range le.Diagnostics {
			fmt.Println(d.RuleID, d.Pos)
		}
	}
	// Output:
	// XP401 widgets.yaml:5:3
}
