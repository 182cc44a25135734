// Package remote reads and writes packages in OCI registries over the
// distribution API, through oras.land/oras-go/v2.
//
// A Client holds what every registry call shares: credentials (anonymous,
// Docker's config.json and its credential helpers, or the caller's own
// function), the HTTP transport with bounded retries, the plain-HTTP policy
// and, optionally, a verified local cache (package oci/cache). A Repository
// is one repository of a registry; it is an oci.Fetcher, so every reader of
// package oci (Resolve, ReadFile, ReadLayerFile, WalkLayer) reads from a
// registry exactly as it reads from a local store, with the same limits and
// the same streaming digest and size verification, and fetches only the
// blobs it reads:
//
//	c, _ := remote.New()
//	img, repo, err := c.Pull(ctx, "xpkg.crossplane.io/crossplane-contrib/provider-nop:v0.4.0")
//	// img.Manifest.Layers, then xpkg.OpenImage(ctx, repo, img) reads package.yaml
//	// from the base layer alone.
//
// A Client is an xpkg.Puller, and a Repository an xpkg.Pusher: package
// xpkg reaches a registry only through the client given to it
// (xpkg.WithRemote, xpkg.BuildResult.Push), so that a program that reads
// local packages links no registry code.
//
// Plain HTTP is used only for loopback registries (localhost, 127.0.0.0/8,
// ::1) unless WithPlainHTTP says otherwise. Requests that fail with 429, a
// 5xx status, a connection reset or a timeout are retried at most 3 times
// with exponential backoff, within a budget of waiting for the client's
// life (WithMaxRetryTime); a host two of whose requests in a row still fail
// is remembered, and every later request to it fails at once with
// ErrUnavailable. The requests
// sent to one host and to all, the tags and the pages of a tag listing,
// and the referrers listed are bounded too (Limits, WithLimits), for the
// client's life: a long-running
// service uses a Client per unit of work (one upload, one lint). Every call
// honours its context, so a stalled registry is cancelled by cancelling the
// context.
//
// Errors are safe to print: a registry's or a token service's message is
// escaped (no control character reaches a terminal) and bounded, a URL's
// query is dropped, and the credentials the client sent (passwords, tokens,
// a redirect's signature) are redacted. A malformed Docker config entry
// fails with ErrCredentials and a message that quotes nothing of it.
package remote
