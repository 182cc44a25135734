package remote

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/xpkgkit/xpkgkit/internal/limitval"
	"github.com/xpkgkit/xpkgkit/internal/safetext"
	"github.com/xpkgkit/xpkgkit/limit"
)

// defaultMaxRetryTime is how long a Client waits in total, over all hosts,
// before retrying requests by default (WithMaxRetryTime).
const defaultMaxRetryTime = 10 * time.Second

// retry policy of one request: at most maxRetries retries, waiting
// retryBase, twice that, ... (each wait at most maxRetryWait; a
// Retry-After header can ask for more, up to maxRetryWait).
const (
	maxRetries   = 3
	retryBase    = 250 * time.Millisecond
	maxRetryWait = 2 * time.Second
	// maxSecrets bounds the credentials a client remembers to redact.
	maxSecrets = 64
	// minSecret is the shortest string redacted: shorter ones would
	// redact ordinary words.
	minSecret = 4
	// drainBytes is how much of a response body to a retried request is
	// read so the connection can be reused.
	drainBytes = 4 << 10
)

// guard is the transport of a Client: it retries requests that failed for
// a reason that may pass (HTTP 429, 500, 502, 503, 504, a network error),
// within a per-request and a per-client bound; it remembers a host that kept
// failing and fails every later request to it at once; it bounds the
// requests sent to each host; and it remembers the credentials it sends,
// so that errors can redact them.
type guard struct {
	next         http.RoundTripper
	maxPerHost   int
	maxRequests  int
	maxRetryTime time.Duration
	requests     int           // sent to all hosts
	retryTime    time.Duration // waited before retries, over all hosts
	mu           sync.Mutex
	hosts        map[string]*hostState
	secrets      []string // credentials seen, to redact from messages
}

type hostState struct {
	requests int
	strikes  int   // requests that failed after their retries, in a row
	failed   error // set once the host kept failing: later requests fail with it
}

// failStrikes is how many requests to a host, in a row, must fail after
// their retries for the host to be remembered as failing: one broken
// object (a 500 for one blob) does not condemn a registry, a registry that
// is down costs two requests' retries.
const failStrikes = 2

func newGuard(next http.RoundTripper, maxPerHost, maxRequests int, maxRetryTime time.Duration) *guard {
	return &guard{next: next, maxPerHost: maxPerHost, maxRequests: maxRequests, maxRetryTime: maxRetryTime, hosts: map[string]*hostState{}}
}

// RoundTrip implements http.RoundTripper.
func (g *guard) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	host := req.URL.Host
	g.remember(req.Header.Get("Authorization"))
	if req.Response != nil && req.URL.RawQuery != "" {
		// A redirect, to a signed URL perhaps: its query is a credential.
		for _, vs := range req.URL.Query() {
			for _, v := range vs {
				if len(v) >= 8 {
					g.rememberSecret(v)
				}
			}
		}
	}
	for attempt := 0; ; attempt++ {
		if err := g.admit(host); err != nil {
			if req.Body != nil {
				req.Body.Close()
			}
			return nil, err
		}
		resp, err := g.next.RoundTrip(req)
		if ctx.Err() != nil || !retryable(resp, err) {
			if err == nil {
				g.answered(host)
				if full, ok := ctx.Value(pageFullKey{}).(*atomic.Bool); ok && resp.Body != nil {
					resp.Body = &pageBody{ReadCloser: resp.Body, full: full}
				}
			}
			return resp, err
		}
		wait := retryBase << attempt
		if resp != nil {
			if s, perr := strconv.Atoi(resp.Header.Get("Retry-After")); perr == nil && s > 0 {
				wait = max(wait, time.Duration(min(s, 60))*time.Second)
			}
		}
		wait = min(wait, maxRetryWait)
		canRewind := req.Body == nil || req.Body == http.NoBody || req.GetBody != nil
		if attempt >= maxRetries || !canRewind || !g.spend(wait) {
			g.markFailed(host, resp, err)
			return resp, err
		}
		if resp != nil {
			io.CopyN(io.Discard, resp.Body, drainBytes)
			resp.Body.Close()
		}
		if req.GetBody != nil {
			body, berr := req.GetBody()
			if berr != nil {
				return nil, berr
			}
			req = req.Clone(ctx)
			req.Body = body
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}

// retryable reports whether a request that ended in resp or err may
// succeed when sent again.
func retryable(resp *http.Response, err error) bool {
	if err != nil {
		var cv *tls.CertificateVerificationError
		var ua x509.UnknownAuthorityError
		var hn x509.HostnameError
		var rh tls.RecordHeaderError
		switch {
		case errors.Is(err, http.ErrSchemeMismatch), errors.As(err, &cv), errors.As(err, &ua), errors.As(err, &hn), errors.As(err, &rh):
			return false // the answer will be the same
		}
		var le *limit.Error
		return !errors.As(err, &le) && !errors.Is(err, ErrUnavailable)
	}
	switch resp.StatusCode {
	case http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusBadGateway,
		http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// admit counts a request to host, or fails when the host failed before or
// had its share of requests.
func (g *guard) admit(host string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	st := g.hosts[host]
	if st == nil {
		st = &hostState{}
		g.hosts[host] = st
	}
	if st.failed != nil {
		return st.failed
	}
	if st.requests >= g.maxPerHost {
		return fmt.Errorf("%s: %w", safetext.Token(host), &limit.Error{Limit: limitval.MaxRequestsPerHost, Max: int64(g.maxPerHost)})
	}
	if g.requests >= g.maxRequests {
		return fmt.Errorf("%s: %w", safetext.Token(host), &limit.Error{Limit: limitval.MaxRequests, Max: int64(g.maxRequests)})
	}
	st.requests++
	g.requests++
	return nil
}

// spend takes wait from the retry budget, or reports that it is spent.
func (g *guard) spend(wait time.Duration) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.retryTime+wait > g.maxRetryTime {
		return false
	}
	g.retryTime += wait
	return true
}

// answered notes that host answered a request.
func (g *guard) answered(host string) {
	g.mu.Lock()
	g.hosts[host].strikes = 0
	g.mu.Unlock()
}

// markFailed counts a request to host that failed after its retries, and
// remembers the host as failing after failStrikes in a row.
func (g *guard) markFailed(host string, resp *http.Response, err error) {
	why := ""
	if resp != nil {
		why = "HTTP " + strconv.Itoa(resp.StatusCode)
	} else {
		why = safetext.ReasonText(err.Error())
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	st := g.hosts[host]
	if st.strikes++; st.strikes < failStrikes {
		return
	}
	st.failed = fmt.Errorf("%w: %s kept failing earlier (%s); it is not asked again by this client", ErrUnavailable, safetext.Token(host), why)
}

// remember records the credential of an Authorization header.
func (g *guard) remember(authz string) {
	scheme, value, ok := strings.Cut(authz, " ")
	if !ok || value == "" {
		return
	}
	g.rememberSecret(value)
	if strings.EqualFold(scheme, "basic") {
		if b, err := base64.StdEncoding.DecodeString(value); err == nil {
			g.rememberSecret(string(b))
			if _, pass, ok := strings.Cut(string(b), ":"); ok {
				g.rememberSecret(pass)
			}
		}
	}
}

// rememberSecret adds s to the strings errors redact.
func (g *guard) rememberSecret(s string) {
	if len(s) < minSecret {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, x := range g.secrets {
		if x == s {
			return
		}
	}
	if len(g.secrets) == maxSecrets {
		g.secrets = g.secrets[1:]
	}
	g.secrets = append(g.secrets, s)
}

// secretList returns the strings errors redact.
func (g *guard) secretList() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.secrets...)
}

// responseClasses names every class of registry response the client
// handles, each with its bound. Each has a worst case among the hostile
// registries of the tests (TestRegistryWorstCasesCoverEveryClass): a new
// class of response without one fails that test.
var responseClasses = []string{
	"pagination", // tag listings: MaxTagPages, MaxTags
	"retries",    // 429/5xx/network errors: per-request retries, MaxRetryTime, the failing-host memory
	"requests",   // any response: MaxRequestsPerHost, MaxRequests
	"errors",     // error bodies and headers: escaped, bounded
	"auth",       // credentials and token services: never quoted
	"bodies",     // slow or endless bodies: bounded sizes, the context
}
