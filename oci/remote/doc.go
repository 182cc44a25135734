// Package remote reads and writes packages in OCI registries over the
// distribution API, through oras.land/oras-go/v2.
//
// A Client holds what every registry call shares: credentials (anonymous,
// Docker's config.json and its credential helpers, or the caller's own
// function), the HTTP transport with bounded retries, the plain-HTTP policy
// and, optionally, a verified local cache (package oci/cache). A Repository
// is one repository of a registry; it is an oci.Fetcher, so every reader of
// package oci (Resolve, ReadFile, ReadLayerFile, OpenLayer) reads from a
// registry exactly as it reads from a local store, with the same limits and
// the same streaming digest and size verification, and fetches only the
// blobs it reads:
//
//	c, _ := remote.New()
//	img, repo, err := c.Pull(ctx, "xpkg.crossplane.io/crossplane-contrib/provider-nop:v0.4.0")
//	// img.Layers, then xpkg.OpenImage(ctx, repo, img) reads package.yaml
//	// from the base layer alone.
//
// Plain HTTP is used only for loopback registries (localhost, 127.0.0.0/8,
// ::1) unless WithPlainHTTP says otherwise. Requests that fail with 429, a
// 5xx status, a connection reset or a timeout are retried with bounded
// exponential backoff; every call honours its context, so a stalled registry
// is cancelled by cancelling the context.
package remote
