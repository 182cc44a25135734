package cache

import ocispec "github.com/opencontainers/image-spec/specs-go/v1"

// Work returns how many scans of the blob directory the cache made and how
// many index.json entries it wrote.
func (c *Cache) Work() (scans, indexEntries int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.scans, c.indexEntriesWritten
}

// JournalFile is the journal file's name, for the tests.
const JournalFile = journalFile

// Has reports whether the cache holds desc's blob, for the tests.
func (c *Cache) Has(desc ocispec.Descriptor) bool { return c.has(desc) }

// The index bounds, for the tests.
const (
	MaxIndexEntries = maxIndexEntries
	MaxIndexBytes   = maxIndexBytes
)
