package meta

// For the tests.
var (
	CapabilityMatches = capabilityMatches
	GroupVersionKinds = groupVersionKinds
)
