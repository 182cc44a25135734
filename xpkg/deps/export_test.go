package deps

// Fetches returns how many times m's Fetch was called for name at version.
func Fetches(m *MemorySource, name, version string) int { return m.fetchCount(name, version) }

// APIServerBytesPerCRD is the footprint model's cost of one served CRD.
const APIServerBytesPerCRD = apiServerBytesPerCRD
