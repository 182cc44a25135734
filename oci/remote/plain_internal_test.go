package remote

import (
	"context"
	"testing"
)

// TestPlainHTTPPolicy: a host that is not loopback is never reached over
// plain HTTP unless asked; the decision needs no request.
func TestPlainHTTPPolicy(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // any request would fail
	def, _ := New()
	forced, _ := New(WithPlainHTTP(true))
	for _, tc := range []struct {
		c    *Client
		host string
		want bool
	}{
		{def, "xpkg.crossplane.io", false},
		{def, "registry.example.org:5000", false},
		{def, "10.0.0.1:5000", false},
		{forced, "registry.example.org:5000", true},
	} {
		got, err := tc.c.usePlainHTTP(ctx, tc.host)
		if err != nil || got != tc.want {
			t.Errorf("%s: plain %v, %v; want %v", tc.host, got, err, tc.want)
		}
	}
	for host, want := range map[string]bool{
		"localhost": true, "localhost:5000": true, "127.0.0.1:5000": true, "127.1.2.3": true,
		"[::1]:5000": true, "::1": true, "10.0.0.1": false, "localhost.example.org": false, "xpkg.crossplane.io": false,
	} {
		if got := isLoopback(host); got != want {
			t.Errorf("isLoopback(%q) = %v", host, got)
		}
	}
}
