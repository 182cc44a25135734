// Package register adds the meta types of one API version to a
// runtime.Scheme under a chosen group, refusing what would make the scheme
// panic.
package register
