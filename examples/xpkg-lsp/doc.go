// Command xpkg-lsp is a language server for Crossplane packages: package
// lintcmd/lsp over standard input and output, for any editor with an LSP
// client (Neovim, VS Code through a generic LSP client extension, Helix,
// Zed; the README shows each one's configuration).
//
//	xpkg-lsp [--version]
//
// As files open and change, it lints the package each belongs to
// (crossplane.yaml up the tree, .xpkg-lint.yaml honoured, the examples
// included) as xpkg-lint does, unsaved buffers included, and publishes the
// diagnostics with their rule IDs and links to the rules' docs; it offers
// the rules' suggested fixes as quick fixes, and answers hover, completion
// and go-to-definition from the schemas that judge the package at the
// target Crossplane release. The settings (initializationOptions or
// workspace/didChangeConfiguration, under "xpkg") are crossplaneVersion,
// disable and cacheDir. It reaches no network.
//
// It sets Go's soft memory limit (192 MiB, unless GOMEMLIMIT is set), as
// xpkg-lint does, and logs to the client, never to standard output.
package main
