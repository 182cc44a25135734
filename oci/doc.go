// Package oci reads OCI images the way Crossplane packages need: blobs by
// verified digest, an index resolved to one manifest, and one file read out of
// a layer or out of the flattened filesystem, streamed.
//
// # Blobs
//
// A Fetcher returns a blob's bytes for a descriptor (the same method as
// oras-go's content.Fetcher, so oras-go stores plug in). A Store adds the
// top-level index. The stores that come with the package:
//
//   - Open (a path) and OpenReaderAt (an io.ReaderAt) recognise an input by
//     its content, not its name: an OCI image layout (oci-layout,
//     index.json, blobs/<alg>/<hex>) in a directory or inside a tar, plain
//     or gzip-compressed, read through an io.ReaderAt after indexing the
//     tar's headers once (a gzip-compressed tar is decompressed once, into
//     memory or a temporary file, so that reads cost the same in any
//     order); or a docker-archive tar (manifest.json with Config, RepoTags,
//     Layers), which is what the Crossplane CLI writes as .xpkg, presented
//     as Docker schema 2 manifests with layer digests computed and layer
//     annotations recovered from config labels. Source.Format says which.
//     Open reads a layout directory through os.Root: only regular files
//     inside it, never a link out of it, never blocking on a FIFO or a
//     device;
//   - NewLayoutFS: an OCI image layout in any fs.FS;
//   - NewMemoryStore: blobs in memory, for tests.
//
// Stores do not verify what they return; every reader of this package does:
// FetchVerified, Resolve, WalkLayer, ReadFile and ReadLayerFile
// check size and digest while streaming and report a mismatch instead of the
// final io.EOF (go-containerregistry does not verify layouts and archives;
// this package always does).
//
// # Resolution
//
// Resolve goes from a Store's index (or the entries of one reference) to one
// Image: nested indexes are followed up to a depth limit; an index with no
// manifests is ErrEmptyIndex; one manifest is used whatever its platform;
// among several, the first that matches the platform (default linux/amd64)
// wins. OCI and Docker schema 2 media types are accepted. The config's own
// os/architecture are never checked (Crossplane leaves them empty).
//
// # Layers and files
//
// A layer is decompressed by its media type (tar, gzip or zstd): WalkLayer
// calls a function per entry of its tar stream, ReadLayerFile
// reads one file of one layer and ReadFile one file of the filesystem the
// layers make once their changesets (whiteouts, opaque directories) are
// applied, walking from the top layer down and stopping at the layer that
// decides. Files are streamed, never buffered whole.
//
// # Limits and errors
//
// Every reader is bounded by Limits (DefaultLimits, WithLimits), and its cost
// is linear in its input plus what the limits let the content expand to;
// loops over input data check the context. JSON metadata that encoding/json
// would read ambiguously (a key twice, or two keys differing only in case)
// is ErrMalformed. Package data in error messages is escaped and shortened,
// and lists in them are capped. Errors wrap
// one sentinel per class (ErrNotFound, ErrDigestMismatch, ErrSizeMismatch,
// ErrUnsupportedMediaType, ErrNoMatchingPlatform, ErrEmptyIndex, ...)
// inside an *Error naming the operation, the descriptor and the path;
// limits are reported as a *limit.Error naming the field (it matches
// limit.ErrExceeded).
//
// Package ocitest checks a user's Fetcher against what these readers expect.
package oci
