// Package tarpath cleans the names of tar entries the one way the readers
// of this module match them (oci's layer and archive readers, xpkg's layer
// selection).
package tarpath

import (
	"path"
	"strings"
)

// Clean cleans a tar entry name: "./package.yaml" and "package.yaml" are
// the same file, "dir/" is "dir". It reports false for names that must
// never match: empty names, absolute names and names with a ".." element
// anywhere (even "a/../b").
func Clean(name string) (string, bool) {
	if name == "" || strings.HasPrefix(name, "/") {
		return "", false
	}
	for el := range strings.SplitSeq(name, "/") {
		if el == ".." {
			return "", false
		}
	}
	return path.Clean(name), true
}
