package safefile_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/xpkgkit/xpkgkit/internal/safefile"
)

func Example() {
	dir, _ := os.MkdirTemp("", "safefile")
	defer os.RemoveAll(dir)
	ctx := context.Background()
	name := filepath.Join(dir, "baseline.json")
	if err := safefile.Write(ctx, name, []byte("{}\n"), safefile.WriteOptions{Root: dir}); err != nil {
		fmt.Println(err)
	}
	data, err := safefile.Read(ctx, name, 1<<20)
	fmt.Printf("%q %v\n", data, err)

	_ = os.Symlink(name, filepath.Join(dir, "link.json"))
	_, err = safefile.Read(ctx, filepath.Join(dir, "link.json"), 1<<20)
	fmt.Println(errors.Is(err, safefile.ErrLink))
	// Output:
	// "{}\n" <nil>
	// true
}
