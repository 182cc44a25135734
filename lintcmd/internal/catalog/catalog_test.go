package catalog_test

import (
	"bytes"
	"os"

	"github.com/xpkgkit/xpkgkit/lintcmd/internal/catalog"
	"github.com/xpkgkit/xpkgkit/linter"
)

func ExampleMarkdown() {
	r := &linter.Rule{
		ID: "ACME1", Name: "team-label", Severity: linter.SeverityWarning,
		Doc: "Objects need a team label\n\nEvery object names the team that owns it.",
		Run: func(*linter.Pass) error { return nil },
	}
	md := catalog.Markdown([]*linter.Rule{r})
	os.Stdout.Write(md[bytes.Index(md, []byte("## ACME1")):])
	// Output:
	// ## ACME1 team-label
	//
	// **Objects need a team label** · severity `warning` · kinds: all
	//
	// Every object names the team that owns it.
}
