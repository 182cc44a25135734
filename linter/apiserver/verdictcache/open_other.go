//go:build !unix

package verdictcache

// openNonBlock is zero where opening a FIFO cannot block this way.
const openNonBlock = 0
