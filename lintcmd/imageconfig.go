package lintcmd

import (
	"context"
	"flag"
	"fmt"

	"github.com/xpkgkit/xpkgkit/internal/safefile"
	"github.com/xpkgkit/xpkgkit/xpkg"
	"github.com/xpkgkit/xpkgkit/xpkg/deps"
	"github.com/xpkgkit/xpkgkit/xpkg/imageconfig"
)

// maxImageConfigFiles bounds --image-config: each file is read within
// imageconfig's limits (4 MiB, 1,000 ImageConfigs over all files).
const maxImageConfigFiles = 64

// imageConfigFlags is --image-config FILE (repeatable): Crossplane
// ImageConfig objects whose rewriteImage rules apply to every reference
// pulled, as a source and, with --deps, in the graph.
type imageConfigFlags struct {
	files fileList
}

func (f *imageConfigFlags) register(fs *flag.FlagSet) {
	fs.Var(&f.files, "image-config", "file of Crossplane ImageConfig objects (repeatable)")
}

// apply reads the files into c.images, and gives the set to Open.
func (f *imageConfigFlags) apply(ctx context.Context, c *config) error {
	if len(f.files) == 0 {
		return nil
	}
	set, err := readImageConfigs(ctx, f.files)
	if err != nil {
		return fmt.Errorf("--image-config: %w", err)
	}
	c.images = set
	c.openOpts = append(c.openOpts, xpkg.WithImageConfig(set))
	return nil
}

// readImageConfigs reads the ImageConfig objects of files, at most
// maxImageConfigFiles of them, under ctx. Each file is opened through
// safefile: a regular file, no link followed, never blocking on a FIFO.
func readImageConfigs(ctx context.Context, files []string) (*imageconfig.Set, error) {
	if len(files) > maxImageConfigFiles {
		return nil, fmt.Errorf("%d files, more than %d", len(files), maxImageConfigFiles)
	}
	var inputs []imageconfig.Input
	for _, name := range files {
		fh, err := safefile.Open(name)
		if err != nil {
			return nil, err
		}
		defer fh.Close()
		inputs = append(inputs, imageconfig.Input{Name: name, Reader: fh})
	}
	return imageconfig.ParseAll(ctx, inputs)
}

// registrySource is the graph's registry source with the ImageConfig
// rewrites applied: only the registry is rewritten, so --deps-from and
// --deps-cache keep being searched by the declared names.
func registrySource(c *config, src deps.Source) deps.Source {
	return deps.RewriteSource(src, c.images)
}

// fileList is a repeatable flag of file names (no comma splitting).
type fileList []string

func (l *fileList) String() string { return fmt.Sprint([]string(*l)) }

func (l *fileList) Set(v string) error {
	if v == "" {
		return fmt.Errorf("empty file name")
	}
	*l = append(*l, v)
	return nil
}
