// Package hostile is xpkgkit's adversarial corpus: inputs built to make a
// package reader panic, hang, run out of memory or read what it must not,
// each with the outcome a correct reader gives.
//
// Threat model. A registry that embeds xpkgkit reads packages anyone
// uploaded, so every byte is attacker-controlled: the archive, the
// compression, the JSON metadata and the YAML. The corpus covers:
//
//   - Resource exhaustion: gzip and zstd bombs (KiB that inflate to GiB), tar
//     bombs (millions of entries), manifests and index.json of many MiB or a
//     million layers, sizes claimed at 2^62, indexes nested 100 deep or
//     referring to themselves, YAML alias bombs, 10,000-deep nesting, a 200 MiB
//     scalar, millions of documents, key floods that make pairwise duplicate
//     checks quadratic. Each must stop at a limit, typed, before the memory
//     or time is spent.
//   - Escaping the package: '..' and absolute names, symlinks and hard links
//     to /etc/passwd or out of the layer, device and FIFO entries, digests
//     that are paths. Nothing outside the image (or the package directory)
//     is ever read, and package.yaml is a regular file at the layer root.
//   - Integrity: flipped bytes, truncated and lengthened blobs, tar headers
//     whose sizes lie, missing blobs, bad digest algorithms, lengths and case,
//     negative sizes. Every blob is verified by digest and size.
//   - Ambiguity: two package.yaml entries, two base layers. An error, never a
//     silent pick.
//   - Output: control characters in values the CLI prints.
//
// Cases returns the corpus; each Case writes itself on demand (streaming,
// deterministic), so large inputs are never committed. WriteSeeds writes
// the small ones to testdata as fuzz seeds; Controls are valid packages
// from the same writers.
package hostile

//go:generate go run ./cmd/gen -o ../../xpkg/testdata/hostile
