//go:build !race

package apiserver

// raceBuild tells this package's internal tests that the race detector is on.
const raceBuild = false
