// Package ociwrite writes container images deterministically, in the three
// forms xpkgkit reads: an OCI image layout directory, the same layout as a tar
// stream, and a docker-archive tar (what the Crossplane CLI writes as a
// `.xpkg` file).
//
// It is a writer for fixtures and for package builds, not a general image
// library: layers are held in memory, compressed with gzip at a fixed level
// with a fixed header (no name, zero modification time, OS byte 255), and
// every tar entry it writes has a fixed modification time (the Unix epoch),
// owner 0:0, no user or group names and modes 0644 (files) or 0755
// (directories). The same input therefore gives the same digests on every
// run and on every machine (the compressor is
// github.com/klauspost/compress, whose output is fixed by the module version
// in go.sum, not by the Go toolchain).
//
// It can also write images that are deliberately wrong, for tests of
// readers: layers with any annotations (several annotated `base`, say), a
// layer blob whose bytes do not match its digest (Layer.Corrupt), and layers
// with any tar content (Layer.Tar, Layer.WriteTar, TarFiles).
package ociwrite
