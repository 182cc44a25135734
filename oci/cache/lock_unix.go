//go:build unix

package cache

import (
	"os"
	"syscall"
	"time"
)

// openNonBlock makes opening a FIFO return at once instead of waiting for a
// writer.
const openNonBlock = syscall.O_NONBLOCK

// lockTemp takes an exclusive lock on a temporary file being written; the
// system releases it when the file is closed or the process ends.
func lockTemp(f *os.File) { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) }

// orphaned reports whether the temporary file name (relative to the
// root), last modified at mtime, is no longer being written: no process
// holds its lock (the lock of a file a killed process wrote is released by
// the system), or, where the lock cannot be taken to tell, it is older
// than staleTemp.
func (c *Cache) orphaned(name string, mtime time.Time) bool {
	f, err := c.root.OpenFile(name, os.O_RDONLY|openNonBlock, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if err == nil {
		return true // released when f is closed
	}
	if err == syscall.EWOULDBLOCK {
		return false
	}
	return c.now().Sub(mtime) > staleTemp
}
