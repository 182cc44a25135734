//go:build !unix

package cache

import (
	"os"
	"time"
)

// openNonBlock is zero where opening a FIFO cannot block this way.
const openNonBlock = 0

// lockTemp does nothing where files cannot be locked.
func lockTemp(*os.File) {}

// orphaned reports whether a temporary file is older than staleTemp.
func (c *Cache) orphaned(_ string, mtime time.Time) bool {
	return c.now().Sub(mtime) > staleTemp
}
