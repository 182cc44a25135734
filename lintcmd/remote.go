package lintcmd

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"

	"github.com/xpkgkit/xpkgkit/internal/safefile"
	"github.com/xpkgkit/xpkgkit/oci/cache"
	"github.com/xpkgkit/xpkgkit/oci/remote"
	"github.com/xpkgkit/xpkgkit/xpkg"
)

// remoteFlags are the flags for sources pulled from registries.
type remoteFlags struct {
	registryConfig string
	plainHTTP      bool
	cacheDir       string
	offline        bool
}

func (f *remoteFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.registryConfig, "registry-config", "", "Docker config file with registry credentials")
	fs.BoolVar(&f.plainHTTP, "plain-http", false, "reach every registry over plain HTTP")
	fs.StringVar(&f.cacheDir, "cache-dir", "", "package cache directory")
	fs.BoolVar(&f.offline, "offline", false, "read references from the cache only")
}

// apply sets c.openOpts to a registry client when a source may be pulled
// (it names no local path): the cache is opened, and created, only then.
func (f *remoteFlags) apply(c *config) error {
	if !anyRemote(c.sources) {
		return nil
	}
	client, err := f.client()
	if err != nil {
		return err
	}
	c.openOpts = append(c.openOpts, xpkg.WithRemote(client))
	return nil
}

// client returns a registry client as the flags configure it: the cache
// (opened, and created, now), credentials, plain HTTP, offline.
func (f *remoteFlags) client() (*remote.Client, error) {
	dir := f.cacheDir
	if dir == "" {
		d, err := cache.DefaultDir()
		if err != nil && f.offline {
			return nil, fmt.Errorf("--offline: no cache directory: %w", err)
		}
		dir = d
	}
	var opts []remote.Option
	if dir != "" {
		cc, err := cache.Open(dir)
		if err != nil {
			if f.cacheDir != "" || f.offline {
				return nil, fmt.Errorf("--cache-dir: %w", err)
			}
		} else {
			opts = append(opts, remote.WithCache(cc))
		}
	}
	if f.registryConfig != "" {
		// The registry client reads the file by name: it must be a
		// regular file (a FIFO would block the run), through a link or not
		// (the user names it, and Docker's configs are often links).
		if fi, err := os.Stat(f.registryConfig); err != nil {
			return nil, fmt.Errorf("--registry-config: %w", err)
		} else if !fi.Mode().IsRegular() {
			return nil, fmt.Errorf("--registry-config: %s %w", f.registryConfig, safefile.ErrNotRegular)
		}
		opts = append(opts, remote.WithDockerConfig(f.registryConfig))
	}
	opts = append(opts, remote.WithPlainHTTP(f.plainHTTP), remote.WithOffline(f.offline), remote.WithUserAgent("xpkg-lint"))
	return remote.New(opts...)
}

// anyRemote reports whether a source names no local path, and so may be a
// reference to pull.
func anyRemote(sources []string) bool {
	for _, s := range sources {
		if s == stdinSource {
			continue
		}
		if _, err := os.Lstat(s); errors.Is(err, fs.ErrNotExist) {
			return true
		}
	}
	return false
}
