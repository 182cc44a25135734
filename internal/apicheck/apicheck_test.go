package apicheck_test

import (
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/xpkgkit/xpkgkit/internal/apicheck"
)

var update = flag.Bool("update", false, "rewrite api/xpkgkit.txt from the current API")

// apiFile is the checked-in description of the public API.
const apiFile = "../../api/xpkgkit.txt"

// TestAPI fails when the exported API differs from api/xpkgkit.txt: an API
// change must update the file in the same commit (go test
// ./internal/apicheck -update), so that it shows in review.
func TestAPI(t *testing.T) {
	lines, err := apicheck.Dump("../..")
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(lines, "\n") + "\n"
	if *update {
		if err := os.WriteFile(apiFile, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(apiFile)
	if err != nil {
		t.Fatalf("%v (create it with go test ./internal/apicheck -update)", err)
	}
	if diff := cmp.Diff(strings.Split(string(want), "\n"), strings.Split(got, "\n")); diff != "" {
		t.Errorf("the exported API differs from %s (-file +code). If the change is intended, run\n\tgo test ./internal/apicheck -update\nand commit the file with it.\n%s", apiFile, diff)
	}
}

// TestDumpSmall checks the description of a small package.
func TestDumpSmall(t *testing.T) {
	t.Parallel()
	lines, err := apicheck.Dump("testdata/mod")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"pkg example.com/mod, const Answer = 42",
		"pkg example.com/mod, const Mode Kind",
		"pkg example.com/mod, func New(name string, opts ...Option) (*Thing, error)",
		"pkg example.com/mod, method (*Thing) Name() string",
		"pkg example.com/mod, type Getter interface { Get, unexported }",
		"pkg example.com/mod, type Getter interface, Get(key string) (string, bool)",
		"pkg example.com/mod, type Getter interface, unexported methods",
		"pkg example.com/mod, type Kind int",
		"pkg example.com/mod, type Option func(*Thing)",
		"pkg example.com/mod, type Thing struct",
		"pkg example.com/mod, type Thing struct, Size int64",
		"pkg example.com/mod, type Thing struct, embedded io.Reader",
		"pkg example.com/mod, var ErrX",
		"pkg example.com/mod/sub, func Do()",
	}
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("Dump (-want +got):\n%s", diff)
	}
}
