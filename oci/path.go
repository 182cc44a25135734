package oci

import (
	"path"
	"strings"
)

// CleanPath cleans a tar entry name the way this package matches names:
// "./package.yaml" and "package.yaml" are the same file, "dir/" is "dir". It
// reports false for names that must never match: empty names, absolute names
// and names with a ".." element anywhere (even "a/../b").
func CleanPath(name string) (string, bool) {
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
