package xpkg_test

import (
	"testing"
	"testing/fstest"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/xpkgkit/xpkgkit/linter"
	"github.com/xpkgkit/xpkgkit/linter/rules"
	"github.com/xpkgkit/xpkgkit/parser"
	"github.com/xpkgkit/xpkgkit/xpkg"
	"github.com/xpkgkit/xpkgkit/xpkg/imageconfig"
)

// TestOptionKinds pins which call each option is for: an option a call
// does not use is not of its type, so giving it there does not compile
// (the type assertions below are what the compiler checks).
func TestOptionKinds(t *testing.T) {
	t.Parallel()
	openOnly := map[string]any{
		"WithPlatform":      xpkg.WithPlatform(ocispec.Platform{OS: "linux", Architecture: "arm64"}),
		"WithSourceName":    xpkg.WithSourceName("x"),
		"WithImagesOnly":    xpkg.WithImagesOnly(),
		"WithSpoolDir":      xpkg.WithSpoolDir(t.TempDir()),
		"WithRemote":        xpkg.WithRemote(nil),
		"WithImageConfig":   xpkg.WithImageConfig(&imageconfig.Set{}),
		"WithLimits":        xpkg.WithLimits(xpkg.Limits{}),
		"WithParserOptions": xpkg.WithParserOptions(parser.WithStrictKinds()),
	}
	buildOnly := map[string]any{
		"WithoutExamples":        xpkg.WithoutExamples(),
		"WithExamplesFS":         xpkg.WithExamplesFS(fstest.MapFS{}),
		"WithTags":               xpkg.WithTags("example.org/a:v1"),
		"WithOCIMediaTypes":      xpkg.WithOCIMediaTypes(),
		"WithCheck":              xpkg.WithCheck(rules.BuildCheck(linter.WithDisabled("XP401"))),
		"WithBuildParserOptions": xpkg.WithBuildParserOptions(parser.WithStrictKinds()),
	}
	for name, o := range openOnly {
		if _, ok := o.(xpkg.Option); !ok {
			t.Errorf("%s is not an Option", name)
		}
		if _, ok := o.(xpkg.BuildOption); ok {
			t.Errorf("%s is a BuildOption: Build would ignore it", name)
		}
	}
	for name, o := range buildOnly {
		if _, ok := o.(xpkg.BuildOption); !ok {
			t.Errorf("%s is not a BuildOption", name)
		}
		if _, ok := o.(xpkg.Option); ok {
			t.Errorf("%s is an Option: Open would ignore it", name)
		}
	}
}
