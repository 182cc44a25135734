// Package lsp is a Language Server Protocol (3.17) server for Crossplane
// packages over a stream (an editor's stdio).
package lsp
