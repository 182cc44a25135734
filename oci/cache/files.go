package cache

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"

	"github.com/xpkgkit/xpkgkit/internal/safefile"

	"github.com/xpkgkit/xpkgkit/limit"
	"github.com/xpkgkit/xpkgkit/oci"
)

// tempPrefix starts the name of every temporary file the cache writes.
const tempPrefix = ".tmp-"

// openRegular opens name (slash-separated, relative to the cache root) for
// reading when it is a regular file inside the root: a symbolic link is
// followed only inside it (os.Root refuses the others), and a FIFO, device
// or socket is refused without blocking on it (it is checked before it is
// opened, opened non-blocking, and the opened file is checked again).
func (c *Cache) openRegular(name string) (*os.File, fs.FileInfo, error) {
	fi, err := c.root.Lstat(name)
	if err != nil {
		return nil, nil, err
	}
	if fi.Mode().Type() != fs.ModeSymlink && !fi.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%s: %w: %s", name, oci.ErrNotRegularFile, fi.Mode().Type())
	}
	f, err := c.root.OpenFile(name, os.O_RDONLY|openNonBlock, 0)
	if err != nil {
		return nil, nil, err
	}
	if fi, err = f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		if err == nil {
			err = fmt.Errorf("%s: %w: %s", name, oci.ErrNotRegularFile, fi.Mode().Type())
		}
		return nil, nil, err
	}
	return f, fi, nil
}

// readBounded reads the regular file name whole when it holds at most max
// bytes, and fails with an error wrapping limit.ErrExceeded otherwise.
func (c *Cache) readBounded(name string, max int64, limitName limit.Name) ([]byte, fs.FileInfo, error) {
	f, fi, err := c.openRegular(name)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	if fi.Size() > max {
		return nil, nil, fmt.Errorf("%s: %w", name, &limit.Error{Limit: limitName, Value: fi.Size(), Max: max})
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, nil, err
	}
	if int64(len(b)) > max {
		return nil, nil, fmt.Errorf("%s: %w", name, &limit.Error{Limit: limitName, Value: int64(len(b)), Max: max})
	}
	return b, fi, nil
}

// createTemp creates a temporary file in dir (relative to the root), held
// locked while this process writes it, so that a scan of another process
// (or a later one) can tell it from a file an interrupted process left.
func (c *Cache) createTemp(dir string) (*os.File, string, error) {
	f, name, err := safefile.CreateTempIn(c.root, dir, tempPrefix)
	if err != nil {
		return nil, "", fmt.Errorf("cache: %w", err)
	}
	lockTemp(f)
	return f, name, nil
}

// writeAtomic writes data to a temporary file beside name and renames it.
func (c *Cache) writeAtomic(name string, data []byte) error {
	f, tmp, err := c.createTemp(path.Dir(name))
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = c.root.Rename(tmp, name)
	}
	if err != nil {
		c.root.Remove(tmp)
	}
	return err
}

// isTemp reports whether a directory entry is a temporary file.
func isTemp(name string) bool { return strings.HasPrefix(name, tempPrefix) }
