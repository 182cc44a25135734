package deps

import "github.com/xpkgkit/xpkgkit/parser"

// Fetches returns how many times m's Fetch was called for name at version.
func Fetches(m *MemorySource, name, version string) int { return m.fetchCount(name, version) }

// Definitions returns the definitions p's summary keeps for XP607.
func Definitions(p *Package) []*parser.Object { return p.definitions }
