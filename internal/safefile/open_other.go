//go:build !unix

package safefile

import (
	"io/fs"
	"os"
)

// openRegular opens name read-only when it is a regular file that is not a
// link: the name is checked before the open and the descriptor after.
func openRegular(name string) (*os.File, error) {
	fi, err := os.Lstat(name)
	if err != nil {
		return nil, err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return nil, ErrLink
	}
	if !fi.Mode().IsRegular() {
		return nil, ErrNotRegular
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	if fi2, err := f.Stat(); err != nil || !os.SameFile(fi, fi2) || !fi2.Mode().IsRegular() {
		f.Close()
		return nil, ErrNotRegular
	}
	return f, nil
}
