package xpkg_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/xpkgkit/xpkgkit/limit"
	"github.com/xpkgkit/xpkgkit/oci"
	"github.com/xpkgkit/xpkgkit/xpkg"
)

// OpenReader reads an upload as a registry receives it: images only, with
// a verdict a registry can act on for each kind of failure.
func ExampleOpenReader() {
	ctx := context.Background()
	res, err := xpkg.Build(ctx, os.DirFS("testdata/build/provider-example"))
	if err != nil {
		fmt.Println(err)
		return
	}
	var upload bytes.Buffer
	if err := res.WriteXpkg(ctx, &upload); err != nil {
		fmt.Println(err)
		return
	}
	whole := upload.Bytes()
	for _, body := range [][]byte{whole, whole[:len(whole)/2], []byte("kind: Provider\n"), nil} {
		pkg, err := xpkg.OpenReader(ctx, bytes.NewReader(body), xpkg.WithImagesOnly())
		switch {
		case err == nil:
			fmt.Println("package:", pkg.Pkg().GetName(), "from", pkg.Source)
		case errors.Is(err, oci.ErrMalformed):
			fmt.Println("corrupt package")
		case errors.Is(err, xpkg.ErrUnknownSource):
			fmt.Println("not a package")
		case errors.Is(err, xpkg.ErrEmpty):
			fmt.Println("empty upload")
		default:
			fmt.Println(err)
		}
	}
	// Output:
	// package: provider-example from <stdin>
	// corrupt package
	// not a package
	// empty upload
}

// WithLimits tightens what a source may cost; a zero field keeps its
// default. Exceeding a limit, whichever package checked it, fails with a
// *limit.Error naming the field, which matches limit.ErrExceeded.
func ExampleWithLimits() {
	var limits xpkg.Limits
	limits.Parser.MaxDocuments = 2
	stream := strings.Repeat("---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n", 3)
	_, err := xpkg.OpenReader(context.Background(), strings.NewReader(stream), xpkg.WithLimits(limits))
	var le *limit.Error
	if errors.As(err, &le) {
		fmt.Println("over the limit:", le.Limit, le.Max)
	}
	// Output:
	// over the limit: MaxDocuments 2
}
