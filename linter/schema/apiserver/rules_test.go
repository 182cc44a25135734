package apiserver

import (
	"testing"

	"github.com/xpkgkit/xpkgkit/linter/linttest"
)

func TestRules(t *testing.T) {
	t.Parallel()
	linttest.RunWithOptions(t, "testdata/crd", nil, Rules()...)
}
