// Package consumer holds, as tests, four programs a new user writes from
// the documentation alone: a package inspector, a registry indexer fed by
// an io.Reader, a custom rule tested with linttest, and a unit test built
// on xpkgtest fixtures. They use only the public API (package consumer_test
// imports no internal package), so that a change that breaks what users
// write fails here first.
package consumer
