//go:build unix

package safefile

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// openRegular opens name read-only without following a link at its last
// element (O_NOFOLLOW) and without blocking (O_NONBLOCK: a FIFO with no
// writer, a device), then checks the descriptor's type.
func openRegular(name string) (*os.File, error) {
	fd, err := syscall.Open(name, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.EMLINK) {
			if fi, lerr := os.Lstat(name); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
				return nil, ErrLink
			}
		}
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		syscall.Close(fd)
		return nil, &fs.PathError{Op: "stat", Path: name, Err: err}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		syscall.Close(fd)
		return nil, ErrNotRegular
	}
	// A regular file reads the same blocking or not; clear the flag so
	// the os package treats the descriptor as an ordinary file.
	if err := syscall.SetNonblock(fd, false); err != nil {
		syscall.Close(fd)
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return os.NewFile(uintptr(fd), name), nil
}
