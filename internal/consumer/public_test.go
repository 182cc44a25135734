package consumer_test

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestPublicAPIOnly checks that the consumer programs import no internal
// package of the module: they are what a user can write.
func TestPublicAPIOnly(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*_test.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no test files: %v", err)
	}
	for _, f := range files {
		af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range af.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(p, "github.com/xpkgkit/xpkgkit/") && strings.Contains(p+"/", "/internal/") {
				t.Errorf("%s imports %s, which users cannot", f, p)
			}
		}
	}
}
