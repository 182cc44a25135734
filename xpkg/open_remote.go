package xpkg

import (
	"context"
	"errors"
	"io/fs"
	"os"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/xpkgkit/xpkgkit/oci"
)

// Puller pulls images from registries for Open (WithRemote): Pull resolves
// a reference ("host[:port]/repository:tag" or "...@sha256:...") to one
// image manifest, honouring the platform and limits of opts, and returns
// the image and where its blobs are read from. *remote.Client (package
// oci/remote) is a Puller; package xpkg itself never reaches a network.
type Puller interface {
	Pull(ctx context.Context, ref string, opts ...oci.Option) (*oci.Image, oci.Fetcher, error)
}

// Pusher receives a built image (BuildResult.Push): PushImage uploads the
// blobs of the image whose manifest is desc from f, those it lacks, then
// the manifest, under each of tags. *remote.Repository (package
// oci/remote) is a Pusher.
type Pusher interface {
	PushImage(ctx context.Context, f oci.Fetcher, desc ocispec.Descriptor, tags []string, opts ...oci.Option) error
}

// WithRemote sets the registry client Open pulls references through (a
// *remote.Client of package oci/remote: its credentials, transport, cache
// and offline mode, and its bounds, which hold for the client's life).
// Without it Open never reaches a network: a source that names no local
// path fails with ErrUnknownSource, and says that a registry client would
// have pulled it.
func WithRemote(p Puller) Option {
	return func(oc *openConfig) { oc.remote = p }
}

// errNoRemote is why a reference is not pulled without WithRemote.
var errNoRemote = errors.New("registry reference: no registry client to pull it with (WithRemote)")

// isReference reports whether source is to be pulled from a registry: no
// file of that name exists, and it parses as a reference that names a
// registry host and a tag or digest. A local path always wins; a missing
// path such as "out.d/package.yaml", which parses as a reference without
// tag, is not pulled.
func isReference(source string) bool {
	if _, err := os.Lstat(source); !errors.Is(err, fs.ErrNotExist) {
		return false
	}
	r, err := oci.ParseReference(source)
	return err == nil && r.Registry != "" && (r.Tag != "" || r.Digest != "")
}

// openRemote pulls ref's manifest and config, and reads package.yaml from
// the layer the selector chooses (the base layer alone, when there is
// one), and the examples layer, if any.
func openRemote(ctx context.Context, ref string, c *openConfig) (*Package, error) {
	pull, by := c.rewrite(ref)
	img, repo, err := c.remote.Pull(ctx, pull, c.ociOptions()...)
	if err != nil {
		return nil, err
	}
	p, err := loadImage(ctx, repo, img, c)
	if p != nil && by != "" {
		p.Resolved, p.ImageConfig = pull, by
	}
	return p, err
}
