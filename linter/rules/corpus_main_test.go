package rules_test

import (
	"os"
	"testing"

	"github.com/xpkgkit/xpkgkit/internal/testcorpus"
)

// TestMain runs the tests and says once how many corpus tests were skipped
// (testcorpus.Main).
func TestMain(m *testing.M) { os.Exit(testcorpus.Main(m)) }
