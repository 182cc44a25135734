package remote_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/xpkgkit/xpkgkit/internal/testbudget"
	"github.com/xpkgkit/xpkgkit/limit"
	"github.com/xpkgkit/xpkgkit/oci"
	"github.com/xpkgkit/xpkgkit/oci/remote"
)

// secret is a credential no error or output may ever hold.
const secret = "XPKGKIT-SECRET-7f3a9c51"

// hostileText is a registry's message with every kind of escape: a window
// title, clear screen, a carriage return faking a verdict, a bidi override,
// an invalid byte.
const hostileText = "\x1b]0;pwned\x07\x1b[2J\rPASS: 0 problems\u202e\xff"

// registryWorstCase is a hostile registry for one class of response
// (remote.ResponseClasses) and the bounded, typed outcome it must get.
type registryWorstCase struct {
	name  string
	class string
	run   func(t *testing.T)
}

// hostileRegistry serves handler on a loopback port and counts the
// requests that reach it.
func hostileRegistry(t *testing.T, handler http.HandlerFunc) (host string, requests *atomic.Int64) {
	t.Helper()
	requests = new(atomic.Int64)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		handler(w, r)
	}))
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://"), requests
}

// checkSafe fails t when msg holds a control character, a format
// character (bidi override), an invalid byte or the secret, or is longer
// than an error message may be.
func checkSafe(t *testing.T, msg string) {
	t.Helper()
	if strings.Contains(msg, secret) || strings.Contains(msg, base64.StdEncoding.EncodeToString([]byte(secret))) {
		t.Errorf("message holds the secret: %q", msg)
	}
	if !utf8.ValidString(msg) {
		t.Errorf("message is not valid UTF-8: %q", msg)
	}
	for _, r := range msg {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			t.Errorf("message holds %U: %q", r, msg)
			break
		}
	}
	if n := utf8.RuneCountInString(msg); n > 2048 {
		t.Errorf("message of %d runes", n)
	}
}

// errorBody is a registry's error response body.
func errorBody(code, message, detail string) []byte {
	b, _ := json.Marshal(map[string]any{"errors": []map[string]string{{"code": code, "message": message, "detail": detail}}})
	return b
}

// oneServer is an HTTP client that reaches host whatever host a request
// names, as wildcard DNS would.
func oneServer(host string) *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DialContext = func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, host)
	}
	return &http.Client{Transport: tr}
}

func registryWorstCases() []registryWorstCase {
	return append(referrerWorstCases(), []registryWorstCase{
		{"registry-cost-endless-pagination", "pagination", func(t *testing.T) {
			// Empty pages, each linking to a next one.
			host, n := hostileRegistry(t, func(w http.ResponseWriter, r *http.Request) {
				if strings.HasSuffix(r.URL.Path, "/tags/list") {
					w.Header().Set("Link", fmt.Sprintf(`</v2/test/pkg/tags/list?last=%d>; rel="next"`, time.Now().UnixNano()))
					w.Header().Set("Content-Type", "application/json")
					fmt.Fprint(w, `{"name":"test/pkg","tags":[]}`)
					return
				}
				w.WriteHeader(http.StatusOK)
			})
			_, err := anonClient(t).Tags(context.Background(), host+"/test/pkg")
			var le *limit.Error
			if !errors.As(err, &le) || le.Limit != "MaxTagPages" {
				t.Fatalf("err = %v, want MaxTagPages", err)
			}
			if got := n.Load(); got > int64(remote.DefaultLimits().MaxTagPages)+2 {
				t.Errorf("%d requests, want at most %d", got, remote.DefaultLimits().MaxTagPages+2)
			}
		}},
		{"registry-cost-tag-flood", "pagination", func(t *testing.T) {
			// Full pages of tags, without end.
			page := `{"name":"test/pkg","tags":["` + strings.Repeat(`v1.0.0","`, 999) + `v1.0.0"]}`
			host, n := hostileRegistry(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Link", `</v2/test/pkg/tags/list?last=x>; rel="next"`)
				fmt.Fprint(w, page)
			})
			_, err := anonClient(t).Tags(context.Background(), host+"/test/pkg")
			var le *limit.Error
			if !errors.As(err, &le) || le.Limit != "MaxTags" {
				t.Fatalf("err = %v, want MaxTags", err)
			}
			if got := n.Load(); got > 102 {
				t.Errorf("%d requests, want at most 102", got)
			}
		}},
		{"registry-cost-503-storm", "retries", func(t *testing.T) {
			// Everything answers 503: two requests' retries, then the host
			// is remembered and no other name costs a request.
			host, n := hostileRegistry(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Retry-After", "1")
				http.Error(w, "down", http.StatusServiceUnavailable)
			})
			c := anonClient(t)
			for i := range 100 {
				_, _, err := c.Pull(context.Background(), fmt.Sprintf("%s/dep%d:v1", host, i))
				if !errors.Is(err, remote.ErrUnavailable) {
					t.Fatalf("pull %d: err = %v, want ErrUnavailable", i, err)
				}
				checkSafe(t, err.Error())
			}
			if got := n.Load(); got > 8 {
				t.Errorf("%d requests for 100 names, want at most 8 (two requests of 1 + 3 tries)", got)
			}
		}},
		{"registry-cost-retry-after-hour", "retries", func(t *testing.T) {
			// 429 asking to wait an hour, per request, over a retry budget.
			host, n := hostileRegistry(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Retry-After", "3600")
				http.Error(w, `{"errors":[{"code":"TOOMANYREQUESTS"}]}`, http.StatusTooManyRequests)
			})
			c, _ := remote.New(remote.WithAnonymous(), remote.WithMaxRetryTime(time.Second))
			_, _, err := c.Pull(context.Background(), host+"/test/pkg:v1")
			if !errors.Is(err, remote.ErrUnavailable) {
				t.Fatalf("err = %v, want ErrUnavailable", err)
			}
			if got := n.Load(); got > 1 {
				t.Errorf("%d requests, want 1: a 2 s wait is over the 1 s budget", got)
			}
		}},
		{"registry-cost-request-flood", "requests", func(t *testing.T) {
			// A registry that answers, but never with a package.
			host, n := hostileRegistry(t, func(w http.ResponseWriter, r *http.Request) {
				http.Error(w, `{"errors":[{"code":"MANIFEST_UNKNOWN"}]}`, http.StatusNotFound)
			})
			c, _ := remote.New(remote.WithAnonymous(), remote.WithLimits(remote.Limits{MaxRequestsPerHost: 50}))
			var limited int
			for i := range 200 {
				_, _, err := c.Pull(context.Background(), fmt.Sprintf("%s/dep%d:v1", host, i))
				if errors.Is(err, limit.ErrExceeded) {
					limited++
				} else if !errors.Is(err, oci.ErrNotFound) {
					t.Fatalf("pull %d: err = %v", i, err)
				}
			}
			if got := n.Load(); got > 50 || limited < 150 {
				t.Errorf("%d requests, %d pulls limited; want at most 50 requests", got, limited)
			}
		}},
		{"registry-cost-many-hosts-pagination", "requests", func(t *testing.T) {
			// Endless tag pages from 200 host names that are one server:
			// the client's total bound holds whatever the names.
			host, n := hostileRegistry(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Link", fmt.Sprintf(`</v2/test/pkg/tags/list?last=%d>; rel="next"`, time.Now().UnixNano()))
				fmt.Fprint(w, `{"tags":[]}`)
			})
			c, _ := remote.New(remote.WithAnonymous(), remote.WithPlainHTTP(true), remote.WithHTTPClient(oneServer(host)), remote.WithLimits(remote.Limits{MaxRequests: 2000}))
			for i := range 200 {
				_, err := c.Tags(context.Background(), fmt.Sprintf("h%d.example:5000/test/pkg", i))
				if !errors.Is(err, limit.ErrExceeded) {
					t.Fatalf("host %d: err = %v, want limit.ErrExceeded", i, err)
				}
			}
			if got := n.Load(); got > 2000 {
				t.Errorf("%d requests, want at most 2000 (MaxRequests)", got)
			}
		}},
		{"registry-cost-many-hosts-503", "retries", func(t *testing.T) {
			// 50 host names that are one server answering 503: the retry
			// budget is the client's, not each host's.
			host, n := hostileRegistry(t, func(w http.ResponseWriter, r *http.Request) {
				http.Error(w, "down", http.StatusServiceUnavailable)
			})
			c, _ := remote.New(remote.WithAnonymous(), remote.WithPlainHTTP(true), remote.WithHTTPClient(oneServer(host)), remote.WithMaxRetryTime(time.Second))
			for i := range 50 {
				_, _, err := c.Pull(context.Background(), fmt.Sprintf("h%d.example:5000/test/pkg:v1", i))
				if !errors.Is(err, remote.ErrUnavailable) {
					t.Fatalf("host %d: err = %v, want ErrUnavailable", i, err)
				}
			}
			// 1 s of budget: at most 4 waits of 250 ms, so 4 retries in all.
			if got := n.Load(); got > 50+4 {
				t.Errorf("%d requests, want at most 54", got)
			}
		}},
		{"registry-cost-escapes-everywhere", "errors", func(t *testing.T) {
			// Escape sequences in every field of an error response, as
			// much as oras-go reads of a registry's error (8 KiB), on every path:
			// manifest, blob, tags.
			host, _ := hostileRegistry(t, func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodHead { // resolves, so that the GET is made
					w.Header().Set("Content-Type", "application/vnd.oci.image.manifest.v1+json")
					w.Header().Set("Docker-Content-Digest", "sha256:"+strings.Repeat("a", 64))
					w.Header().Set("Content-Length", "10")
					return
				}
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				w.Write(errorBody(hostileText, strings.Repeat(hostileText, 3<<10/len(hostileText)), hostileText))
			})
			c := anonClient(t)
			_, _, err := c.Pull(context.Background(), host+"/test/pkg:v1")
			if err == nil {
				t.Fatal("pull succeeded")
			}
			checkSafe(t, err.Error())
			_, err = c.Tags(context.Background(), host+"/test/pkg")
			if err == nil || !strings.Contains(err.Error(), "PASS") {
				t.Fatalf("tags: err = %v, want the registry's message", err)
			}
			checkSafe(t, err.Error())
		}},
		{"registry-cost-token-service-escapes", "errors", func(t *testing.T) {
			// The token service answers with escapes in its error; the
			// realm itself holds them too.
			var host string
			host, _ = hostileRegistry(t, func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/token" {
					w.WriteHeader(http.StatusUnauthorized)
					w.Write(errorBody("DENIED", hostileText, hostileText))
					return
				}
				w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer realm="http://%s/token",service="x\x1b[2J",scope="repository:test/pkg:pull"`, host))
				http.Error(w, `{"errors":[{"code":"UNAUTHORIZED"}]}`, http.StatusUnauthorized)
			})
			_, _, err := anonClient(t).Pull(context.Background(), host+"/test/pkg:v1")
			if err == nil || !strings.Contains(err.Error(), "PASS") {
				t.Fatalf("err = %v, want the token service's message", err)
			}
			checkSafe(t, err.Error())
		}},
		{"registry-cost-bare-token-auth", "auth", func(t *testing.T) {
			// A Docker config auth entry that is the base64 of a bare
			// token: oras-go's decode error quotes it.
			host, _ := hostileRegistry(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("WWW-Authenticate", `Basic realm="hostile"`)
				http.Error(w, `{"errors":[{"code":"UNAUTHORIZED"}]}`, http.StatusUnauthorized)
			})
			cfg := filepath.Join(t.TempDir(), "config.json")
			auth := base64.StdEncoding.EncodeToString([]byte(secret))
			if err := os.WriteFile(cfg, []byte(fmt.Sprintf(`{"auths":{%q:{"auth":%q}}}`, host, auth)), 0o600); err != nil {
				t.Fatal(err)
			}
			c, _ := remote.New(remote.WithDockerConfig(cfg))
			_, _, err := c.Pull(context.Background(), host+"/test/pkg:v1")
			if !errors.Is(err, remote.ErrCredentials) {
				t.Fatalf("err = %v, want ErrCredentials", err)
			}
			checkSafe(t, err.Error())
			for e := errors.Unwrap(err); e != nil; e = errors.Unwrap(e) {
				checkSafe(t, e.Error()) // no layer of the chain quotes it either
			}
		}},
		{"registry-cost-echoed-credentials", "auth", func(t *testing.T) {
			// A registry that echoes the credentials it was sent in its
			// error messages, on the registry and on the token path.
			var host string
			host, _ = hostileRegistry(t, func(w http.ResponseWriter, r *http.Request) {
				authz := r.Header.Get("Authorization")
				if r.URL.Path == "/token" {
					b, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(authz, "Basic "))
					w.WriteHeader(http.StatusForbidden)
					w.Write(errorBody("DENIED", "you sent "+authz+", that is "+string(b), ""))
					return
				}
				w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer realm="http://%s/token",service="hostile"`, host))
				w.WriteHeader(http.StatusUnauthorized)
				w.Write(errorBody("UNAUTHORIZED", "got "+authz, ""))
			})
			c, _ := remote.New(remote.WithCredentials(func(context.Context, string) (remote.Credential, error) {
				return remote.Credential{Username: "user", Password: secret}, nil
			}))
			_, _, err := c.Pull(context.Background(), host+"/test/pkg:v1")
			if err == nil {
				t.Fatal("pull succeeded")
			}
			checkSafe(t, err.Error())
		}},
		{"registry-cost-signed-redirect", "auth", func(t *testing.T) {
			// A blob redirected to a signed URL that fails: the
			// signature is a credential.
			f := newFake(t)
			other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusBadRequest)
				w.Write(errorBody("DENIED", "signature "+r.URL.RawQuery, ""))
			}))
			t.Cleanup(other.Close)
			f.hook = func(w http.ResponseWriter, r *http.Request) bool {
				if strings.Contains(r.URL.Path, "/blobs/") {
					http.Redirect(w, r, other.URL+"/blob?X-Amz-Signature="+secret, http.StatusTemporaryRedirect)
					return true
				}
				return false
			}
			_, _, err := anonClient(t).Pull(context.Background(), f.host()+"/test/pkg:v1")
			if err == nil {
				t.Fatal("pull succeeded")
			}
			checkSafe(t, err.Error())
		}},
		{"registry-cost-slow-body", "bodies", func(t *testing.T) {
			// A manifest sent one byte every 10 ms: the context ends it.
			host, _ := hostileRegistry(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/vnd.oci.image.manifest.v1+json")
				w.Header().Set("Docker-Content-Digest", "sha256:"+strings.Repeat("a", 64))
				w.Header().Set("Content-Length", "4000")
				if r.Method == http.MethodHead {
					return
				}
				for range 4000 {
					if _, err := w.Write([]byte(" ")); err != nil {
						return
					}
					w.(http.Flusher).Flush()
					select {
					case <-r.Context().Done():
						return
					case <-time.After(10 * time.Millisecond):
					}
				}
			})
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(200*time.Millisecond, cancel)
			start := time.Now()
			_, _, err := anonClient(t).Pull(ctx, host+"/test/pkg:v1")
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want context.Canceled", err)
			}
			if d := time.Since(start); d > 5*time.Second {
				testbudget.Errorf(t, "pull ended %v after start, want soon after the cancel at 200ms", d)
			}
		}},
		{"registry-cost-endless-tag-body", "bodies", func(t *testing.T) {
			// A tag list body without end.
			host, _ := hostileRegistry(t, func(w http.ResponseWriter, r *http.Request) {
				fmt.Fprint(w, `{"name":"test/pkg","tags":[`)
				chunk := []byte(strings.Repeat(`"v1",`, 1<<12))
				for range 2 << 10 { // 40 MiB
					if _, err := w.Write(chunk); err != nil {
						return
					}
				}
			})
			_, err := anonClient(t).Tags(context.Background(), host+"/test/pkg")
			if err == nil {
				t.Fatal("tags succeeded")
			}
			checkSafe(t, err.Error())
		}},
	}...)
}

// TestRegistryWorstCases runs each hostile registry.
func TestRegistryWorstCases(t *testing.T) {
	t.Parallel()
	for _, w := range registryWorstCases() {
		t.Run(w.name, func(t *testing.T) {
			t.Parallel()
			w.run(t)
		})
	}
}

// TestRegistryWorstCasesCoverEveryClass: every class of registry response
// the client handles has a worst case (a new class without one fails here:
// add a hostile registry to registryWorstCases), and every worst case
// names a class that exists.
func TestRegistryWorstCasesCoverEveryClass(t *testing.T) {
	t.Parallel()
	known := map[string]bool{}
	for _, c := range remote.ResponseClasses {
		known[c] = true
	}
	covered := map[string]bool{}
	for _, w := range registryWorstCases() {
		if !strings.HasPrefix(w.name, "registry-cost-") {
			t.Errorf("%s: worst-case names start with registry-cost-", w.name)
		}
		if !known[w.class] {
			t.Errorf("%s: class %q is not in remote's responseClasses", w.name, w.class)
		}
		covered[w.class] = true
	}
	for _, c := range remote.ResponseClasses {
		if !covered[c] {
			t.Errorf("response class %q has no worst case in registryWorstCases", c)
		}
	}
}
