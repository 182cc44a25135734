// Package consumer holds, as tests, five programs a new user writes from
// the documentation alone: a package inspector, a registry indexer fed by
// an io.Reader, a custom rule tested with linttest, and a unit test built
// on xpkgtest fixtures, and (mylint) a lint program of its own rule on
// package checker. They use only the public API (package consumer_test
// imports no internal package), so that a change that breaks what users
// write fails here first.
package consumer
