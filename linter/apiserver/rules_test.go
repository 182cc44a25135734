package apiserver

import (
	"testing"

	"github.com/xpkgkit/xpkgkit/linter/linttest"
)

func TestRules(t *testing.T) {
	t.Parallel()
	linttest.Run(t, "testdata/crd", Rules())
}
