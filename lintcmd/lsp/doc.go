// Package lsp is a Language Server Protocol (3.17) server for Crossplane
// packages, over any stream (an editor's stdio): the checker (package
// lintcmd, xpkg-lint as a library) answering as the author types.
//
// As documents open, change and are saved, the server lints the package each
// belongs to (the nearest directory up the tree holding crossplane.yaml, its
// .xpkg-lint.yaml honoured, its examples included) through
// lintcmd.Checker.LintFS, with the editor's unsaved buffers over the files on
// disk, and publishes the diagnostics: each with its rule ID, a link to
// the rule's doc (WithRuleDocs), and, for an example's finding (XP408), the
// package's definition that judged it as related information. Edits are
// debounced (a lint starts 150 ms after the last edit), and a newer edit
// cancels the running lint. Every suggested fix is a quick fix
// (textDocument/codeAction). Hover shows the rule's doc on a diagnostic and,
// on a field, its type, description, default, enum and constraints from the
// schema that judges it at the target Crossplane release: the package's
// CRDs and XRDs, else Crossplane's and Kubernetes' kinds
// (schema.PackageKindsAt); the object of a field is the document's, or an
// embedded one (a composed resource's base, a function's input) by its
// apiVersion and kind. Completion offers field names, enum values and
// apiVersion/kind pairs; definition jumps from a Composition's
// compositeTypeRef to the XRD, from a step's functionRef to its dependsOn
// entry, and from an apiVersion/kind to the CRD or XRD that serves it.
//
// Settings come from initializationOptions and
// workspace/didChangeConfiguration, under "xpkg": crossplaneVersion,
// disable and cacheDir (a Crossplane package cache: the dependency graph is
// resolved from it, offline). The server reaches no network.
//
// Everything is bounded: one message is at most WithMaxMessageSize bytes
// (a larger one is skipped, streamed to nowhere, and logged), each request
// runs under a timeout (10 s) and is cancellable, at most four run at
// once, one lint runs at a time, and the context of a position is read from
// a bounded window of the document. A panic or an error inside a request
// becomes its error response and a window/logMessage; Serve ends only on
// exit, the end of the stream, broken framing, or its context.
//
// The JSON-RPC layer is the standard library's encoding/json over
// Content-Length framing. Text synchronisation is full (each change sends
// the whole document); positions are UTF-16, as LSP's default.
package lsp
