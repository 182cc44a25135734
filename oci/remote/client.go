package remote

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"sync"
	"time"

	"oras.land/oras-go/v2/registry/remote/auth"
	"oras.land/oras-go/v2/registry/remote/credentials"

	"github.com/xpkgkit/xpkgkit/internal/limitval"
	"github.com/xpkgkit/xpkgkit/oci/cache"
)

// Credential is what a registry is given to authenticate: a user name and
// password (basic auth, or exchanged for a bearer token), a refresh token
// (an identity token, exchanged for an access token), or an access token
// used as it is. The zero Credential is anonymous access, which still
// follows a registry's anonymous bearer-token flow.
type Credential struct {
	Username     string
	Password     string
	RefreshToken string
	AccessToken  string
}

// CredentialFunc returns the credential for a registry host ("host" or
// "host:port"). It is called for every registry that asks for
// authentication; returning the zero Credential means anonymous access.
type CredentialFunc func(ctx context.Context, host string) (Credential, error)

// Option configures a Client.
type Option func(*config)

type config struct {
	credFunc     CredentialFunc
	dockerConfig string
	noDocker     bool
	plainHTTP    bool
	httpClient   *http.Client
	cache        *cache.Cache
	offline      bool
	userAgent    string
	limits       Limits
	maxRetryTime time.Duration
}

// Limits bound what a Client asks of registries and reads from them over
// its life. They follow the convention of package limit: a zero field
// means its default (DefaultLimits), so that a partly filled Limits never
// lifts the limits it does not mention; limit.Unlimited (any negative
// value) means no limit. A limit exceeded is a *limit.Error naming the
// field (it matches limit.ErrExceeded).
type Limits struct {
	// MaxRequests bounds the HTTP requests the client sends over its life,
	// to all hosts together (a package can name many hosts that are one
	// server); past it every request fails. Default 100 000.
	MaxRequests int
	// MaxRequestsPerHost bounds the HTTP requests the client sends to one
	// host (a registry, or the token service it names) over its life; past
	// it every request to that host fails. Default 20 000.
	MaxRequestsPerHost int
	// MaxTags bounds the tags one Tags call returns. Default 100 000.
	MaxTags int
	// MaxTagPages bounds the pages of a tag listing Tags reads: a registry
	// whose pages each link to another never ends otherwise. Default
	// 1 000.
	MaxTagPages int
	// MaxReferrers bounds the referrers one Referrers call returns (an
	// image may have many referrers of other kinds). Default 1 000.
	MaxReferrers int
}

// DefaultLimits returns the limits used when none are given.
func DefaultLimits() Limits {
	return Limits{MaxRequests: 100_000, MaxRequestsPerHost: 20_000, MaxTags: 100_000, MaxTagPages: 1_000, MaxReferrers: 1_000}
}

// withDefaults returns l with every zero field replaced by its default, and
// every negative one (limit.Unlimited) by a value no input reaches.
func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	l.MaxRequests = limitval.Or(l.MaxRequests, d.MaxRequests)
	l.MaxRequestsPerHost = limitval.Or(l.MaxRequestsPerHost, d.MaxRequestsPerHost)
	l.MaxTags = limitval.Or(l.MaxTags, d.MaxTags)
	l.MaxTagPages = limitval.Or(l.MaxTagPages, d.MaxTagPages)
	l.MaxReferrers = limitval.Or(l.MaxReferrers, d.MaxReferrers)
	return l
}

// WithCredentials makes fn the source of credentials, instead of Docker's
// config file.
func WithCredentials(fn CredentialFunc) Option {
	return func(c *config) { c.credFunc = fn }
}

// WithDockerConfig reads credentials from the Docker config file at path
// (its "auths" entries, its "credsStore" and "credHelpers" credential
// helpers) instead of the default one ($DOCKER_CONFIG/config.json, else
// ~/.docker/config.json). The file is read when a registry first asks for
// credentials.
func WithDockerConfig(path string) Option {
	return func(c *config) { c.dockerConfig = path }
}

// WithAnonymous uses no credentials at all (not even Docker's config).
func WithAnonymous() Option {
	return func(c *config) { c.noDocker = true; c.credFunc = nil }
}

// WithPlainHTTP makes every registry be reached over plain HTTP when plain
// is true. Without it, plain HTTP is used only for loopback registries
// (localhost, 127.0.0.0/8, ::1), and HTTPS for every other.
func WithPlainHTTP(plain bool) Option {
	return func(c *config) { c.plainHTTP = plain }
}

// WithHTTPClient sets the HTTP client whose transport (TLS configuration,
// proxy, timeouts) requests go through. Its Transport is wrapped with
// retries; its CheckRedirect is kept. The default is a client over
// http.DefaultTransport.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *config) { c.httpClient = hc }
}

// WithCache reads blobs and resolved tags through the cache: a blob in the
// cache is read from it without network traffic, a blob fetched from a
// registry is stored in it once verified, and a tag resolved less than the
// cache's tag TTL ago is not resolved again.
func WithCache(cc *cache.Cache) Option {
	return func(c *config) { c.cache = cc }
}

// WithOffline makes the client use only its cache: a tag is resolved from
// the cache whatever its age, and anything the cache does not hold fails
// with ErrOffline. Without a cache every call fails.
func WithOffline(offline bool) Option {
	return func(c *config) { c.offline = offline }
}

// WithUserAgent sets the User-Agent header of requests.
func WithUserAgent(ua string) Option {
	return func(c *config) { c.userAgent = ua }
}

// WithLimits sets the limits; zero fields keep their defaults, and
// limit.Unlimited lifts a limit.
func WithLimits(l Limits) Option {
	return func(c *config) { c.limits = l }
}

// WithMaxRetryTime bounds the time the client waits before retrying
// requests, in total over all hosts and its life (default
// 10 s). It is a retry policy, not one of the Limits: less
// than zero means no retries.
// Whatever the bound, one request is retried at most 3 times, and a host
// two of whose requests in a row still fail after their retries (HTTP 429
// or 5xx, a network error) is remembered: every later request to it fails
// at once with an error wrapping ErrUnavailable. Zero means the default; less than zero,
// no retries.
func WithMaxRetryTime(d time.Duration) Option {
	return func(c *config) { c.maxRetryTime = d }
}

// Client reaches registries. It is safe for concurrent use, and meant to be
// shared: it caches the bearer tokens registries issue.
type Client struct {
	cfg   config
	auth  *auth.Client
	guard *guard

	plain sync.Map // loopback host -> bool, once probed

	storeOnce sync.Once
	store     credentials.Store
	storeErr  error
}

// New returns a Client. Options: WithCredentials, WithDockerConfig,
// WithAnonymous, WithPlainHTTP, WithHTTPClient, WithCache, WithOffline,
// WithUserAgent, WithLimits, WithMaxRetryTime.
func New(opts ...Option) (*Client, error) {
	c := &Client{}
	for _, o := range opts {
		if o != nil {
			o(&c.cfg)
		}
	}
	c.cfg.limits = c.cfg.limits.withDefaults()
	if c.cfg.maxRetryTime < 0 {
		c.cfg.maxRetryTime = 0
	} else if c.cfg.maxRetryTime == 0 {
		c.cfg.maxRetryTime = defaultMaxRetryTime
	}
	base := c.cfg.httpClient
	if base == nil {
		base = &http.Client{}
	}
	hc := *base
	tr := hc.Transport
	if tr == nil {
		tr = http.DefaultTransport
	}
	c.guard = newGuard(tr, c.cfg.limits.MaxRequestsPerHost, c.cfg.limits.MaxRequests, c.cfg.maxRetryTime)
	hc.Transport = c.guard
	c.auth = &auth.Client{
		Client:     &hc,
		Cache:      auth.NewCache(),
		Credential: c.credential,
	}
	ua := c.cfg.userAgent
	if ua == "" {
		ua = "xpkgkit"
	}
	c.auth.SetUserAgent(ua)
	return c, nil
}

// credential is the auth.CredentialFunc of the client. The credentials it
// gives are remembered so that errors can redact them; an error of the
// Docker config's store is replaced by one that quotes nothing of it
// (oras-go's quotes a malformed "auth" entry, which holds the secret).
func (c *Client) credential(ctx context.Context, hostport string) (auth.Credential, error) {
	cr, err := c.credentialOf(ctx, hostport)
	for _, s := range []string{cr.Password, cr.RefreshToken, cr.AccessToken} {
		c.guard.rememberSecret(s)
	}
	return cr, err
}

func (c *Client) credentialOf(ctx context.Context, hostport string) (auth.Credential, error) {
	if c.cfg.credFunc != nil {
		cr, err := c.cfg.credFunc(ctx, hostport)
		if err != nil {
			return auth.EmptyCredential, fmt.Errorf("credentials for %s: %w", hostport, err)
		}
		return auth.Credential(cr), nil
	}
	if c.cfg.noDocker {
		return auth.EmptyCredential, nil
	}
	c.storeOnce.Do(func() {
		if c.cfg.dockerConfig != "" {
			c.store, c.storeErr = credentials.NewStore(c.cfg.dockerConfig, credentials.StoreOptions{})
		} else {
			c.store, c.storeErr = credentials.NewStoreFromDocker(credentials.StoreOptions{})
		}
	})
	if c.storeErr != nil {
		return auth.EmptyCredential, credentialError("reading the Docker config", c.storeErr)
	}
	cr, err := credentials.Credential(c.store)(ctx, hostport)
	if err != nil {
		return auth.EmptyCredential, credentialError("reading the Docker config's credentials for "+hostport, err)
	}
	return cr, nil
}

// credentialError is an error of reading credentials that keeps nothing
// of err's text, which may quote a secret: only its class (a missing or
// unreadable file, a cancelled context) stays in the chain.
func credentialError(what string, err error) error {
	for _, class := range []error{context.Canceled, context.DeadlineExceeded, fs.ErrNotExist, fs.ErrPermission} {
		if errors.Is(err, class) {
			return fmt.Errorf("%w: %s: %w", ErrCredentials, what, class)
		}
	}
	return fmt.Errorf("%w: %s: the entry is malformed or the credential helper failed (the cause is not shown: it may quote a credential)", ErrCredentials, what)
}

// usePlainHTTP reports whether host is reached over plain HTTP: always
// with WithPlainHTTP(true); never for a host that is not loopback; for a
// loopback host, when it answers HTTPS with plain HTTP (as Docker does for
// localhost registries). The answer for a loopback host is probed once, with
// a GET of /v2/ over HTTPS, and remembered.
func (c *Client) usePlainHTTP(ctx context.Context, host string) (bool, error) {
	if c.cfg.plainHTTP {
		return true, nil
	}
	if !isLoopback(host) {
		return false, nil
	}
	if v, ok := c.plain.Load(host); ok {
		return v.(bool), nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://"+host+"/v2/", nil)
	if err != nil {
		return false, err
	}
	resp, err := c.auth.Client.Do(req)
	plain := false
	switch {
	case errors.Is(err, http.ErrSchemeMismatch):
		plain = true
	case err != nil:
		return false, err
	default:
		resp.Body.Close()
	}
	c.plain.Store(host, plain)
	return plain, nil
}

// isLoopback reports whether host ("host" or "host:port") names the
// loopback interface: localhost, an address of 127.0.0.0/8, or ::1.
func isLoopback(host string) bool {
	h, _, err := net.SplitHostPort(host)
	if err != nil {
		h = host
	}
	if len(h) > 1 && h[0] == '[' && h[len(h)-1] == ']' {
		h = h[1 : len(h)-1]
	}
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}
