// Command verify-upload is the signature check of a package registry's
// upload handler: an HTTP service that, for each package pushed to a
// staging registry, verifies its cosign signatures against the
// ImageConfig policies the registry enforces, before the package is
// indexed. It answers POST /verify?ref=HOST/REPO:TAG with the digest that
// verified, which is the only digest the registry may then read and
// publish (the tag may move in the meantime: that is the point).
//
// Usage:
//
//	verify-upload --image-config FILE... [--verify-key SECRET/KEY=FILE]... [--trusted-root FILE] [--listen ADDR]
//	              [--max-active N] [--max-queued N] [--max-bytes-in-flight BYTES]
//
// Answers: 200 with {"ref", "digest", "imageConfig", "authority",
// "signatures"} when the package verifies; 403 with {"error", "class"}
// when it does not (class: no-signature, no-matching-authority,
// identity-mismatch, untrusted-root, digest-mismatch, invalid-signature,
// missing-attestation, malformed), or when no ImageConfig states a
// verification for it (class: no-policy); 400 for a malformed request, 502
// when the registry cannot be read; 503 when the server is full. Each
// request uses a registry client of its own, so one upload's requests are
// bounded on their own (oci/remote's per-client bounds), and a deadline.
//
// The server bounds its load with a limit.Gate: at most --max-active
// verifications run at once, each charged the bytes its verify.Limits let
// it read (the package's manifest and its signature artefacts), within
// --max-bytes-in-flight between them; at most --max-queued more wait for
// their turn within their deadline, and any other is answered 503 at once
// with a Retry-After, so that a burst of uploads (or of requests held open
// by a slow registry) costs the server its admitted verifications, not one
// verification per request.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/sigstore/sigstore-go/pkg/root"

	"github.com/xpkgkit/xpkgkit/internal/safefile"
	"github.com/xpkgkit/xpkgkit/limit"
	"github.com/xpkgkit/xpkgkit/oci/remote"
	"github.com/xpkgkit/xpkgkit/xpkg/imageconfig"
	"github.com/xpkgkit/xpkgkit/xpkg/verify"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stderr))
}

type list []string

func (l *list) String() string     { return strings.Join(*l, ",") }
func (l *list) Set(v string) error { *l = append(*l, v); return nil }

func run(ctx context.Context, args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("verify-upload", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var icFiles, keys list
	fs.Var(&icFiles, "image-config", "a file of Crossplane ImageConfig objects (repeatable)")
	fs.Var(&keys, "verify-key", "SECRET/KEY=FILE: the public key of a key authority (repeatable)")
	trustedRoot := fs.String("trusted-root", "", "the Sigstore trusted-root JSON of keyless authorities")
	listen := fs.String("listen", "127.0.0.1:8080", "address to listen on")
	d := limit.DefaultGateLimits()
	var gl limit.GateLimits
	fs.IntVar(&gl.MaxActive, "max-active", d.MaxActive, "verifications run at once")
	fs.IntVar(&gl.MaxQueued, "max-queued", d.MaxQueued, "verifications waiting for their turn; past them, 503")
	fs.Int64Var(&gl.MaxBytesInFlight, "max-bytes-in-flight", d.MaxBytesInFlight, "bytes the running verifications may read between them")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	h, err := newHandler(icFiles, keys, *trustedRoot, nil)
	if err != nil {
		fmt.Fprintf(stderr, "verify-upload: %v\n", err)
		return 2
	}
	h.gate = limit.NewGate(gl)
	if ready := os.Getenv(readyFileEnv); ready != "" {
		// The hostile measurement's cue that the server listens.
		defer os.Remove(ready)
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintf(stderr, "verify-upload: %v\n", err)
		return 2
	}
	if ready := os.Getenv(readyFileEnv); ready != "" {
		if err := safefile.Write(ctx, ready, []byte(ln.Addr().String()), safefile.WriteOptions{}); err != nil {
			fmt.Fprintf(stderr, "verify-upload: %v\n", err)
			return 2
		}
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: time.Minute, MaxHeaderBytes: maxHeaderBytes}
	go func() { <-ctx.Done(); srv.Close() }()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintf(stderr, "verify-upload: %v\n", err)
		return 2
	}
	return 0
}

// readyFileEnv names the environment variable through which a test asks
// for the address the server listens on, written to that file once it
// does (--listen 127.0.0.1:0 picks a free port).
const readyFileEnv = "VERIFY_UPLOAD_READY_FILE"

// maxHeaderBytes bounds a request's header: a request is a line with a
// reference of at most 1 KiB.
const maxHeaderBytes = 16 << 10

// endpoints are the requests the server answers; each has a worst case in
// internal/hostile (ServerCases), which TestServerCasesCoverEveryEndpoint
// checks.
var endpoints = []string{"POST /verify"}

// handler verifies uploads.
type handler struct {
	images    *imageconfig.Set
	opts      []verify.Option
	newClient func() (*remote.Client, error)
	// gate admits the verifications; cost is what one is charged.
	gate *limit.Gate
	cost int64
}

// newHandler reads the policies, keys and trusted root once, at start-up
// (a request reads no file); newClient makes each request's registry
// client (nil: Docker's credentials).
// Bounds of the files the flags name: a PEM public key, and a Sigstore
// trusted root (a few KiB in practice).
const (
	maxKeyFile         = 1 << 20
	maxTrustedRootFile = 16 << 20
)

func newHandler(icFiles, keys []string, trustedRoot string, newClient func() (*remote.Client, error)) (*handler, error) {
	if len(icFiles) == 0 {
		return nil, errors.New("give the ImageConfig policies (--image-config)")
	}
	var inputs []imageconfig.Input
	for _, f := range icFiles {
		fh, err := safefile.Open(f) // a regular file, never a FIFO
		if err != nil {
			return nil, err
		}
		defer fh.Close()
		inputs = append(inputs, imageconfig.Input{Name: f, Reader: fh})
	}
	set, err := imageconfig.ParseAll(context.Background(), inputs)
	if err != nil {
		return nil, err
	}
	vl := verify.DefaultLimits()
	h := &handler{images: set, newClient: newClient, gate: limit.NewGate(limit.GateLimits{}), cost: vl.MaxTotalBytes + vl.MaxManifestBytes}
	for _, k := range keys {
		ref, file, ok := strings.Cut(k, "=")
		i := strings.LastIndex(ref, "/")
		if !ok || i < 0 {
			return nil, fmt.Errorf("--verify-key %q is not SECRET/KEY=FILE", k)
		}
		pem, err := safefile.Read(context.Background(), file, maxKeyFile)
		if err != nil {
			return nil, fmt.Errorf("--verify-key: %w", err)
		}
		h.opts = append(h.opts, verify.WithPublicKey(ref[:i], ref[i+1:], pem))
	}
	if trustedRoot != "" {
		data, err := safefile.Read(context.Background(), trustedRoot, maxTrustedRootFile)
		if err != nil {
			return nil, fmt.Errorf("--trusted-root: %w", err)
		}
		tr, err := root.NewTrustedRootFromJSON(data)
		if err != nil {
			return nil, fmt.Errorf("--trusted-root: %w", err)
		}
		h.opts = append(h.opts, verify.WithTrustedMaterial(tr))
	}
	if h.newClient == nil {
		h.newClient = func() (*remote.Client, error) { return remote.New(remote.WithUserAgent("verify-upload")) }
	}
	// Fail at start-up, not per request, on an unreadable key or root.
	if _, err := verify.New(h.opts...); err != nil {
		return nil, err
	}
	return h, nil
}

// classes maps the failure classes to the answer's "class".
var classes = []struct {
	err  error
	name string
}{
	{verify.ErrNoSignature, "no-signature"},
	{verify.ErrIdentityMismatch, "identity-mismatch"},
	{verify.ErrUntrustedRoot, "untrusted-root"},
	{verify.ErrSubjectMismatch, "digest-mismatch"},
	{verify.ErrInvalidSignature, "invalid-signature"},
	{verify.ErrMissingAttestation, "missing-attestation"},
	{verify.ErrMalformedSignature, "malformed"},
	{verify.ErrNoMatchingAuthority, "no-matching-authority"},
	{verify.ErrPolicy, "policy"},
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/verify" {
		http.NotFound(w, r)
		return
	}
	ref := r.URL.Query().Get("ref")
	if ref == "" || len(ref) > 1024 {
		answer(w, http.StatusBadRequest, map[string]string{"error": "give ref=HOST/REPO:TAG"})
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), time.Minute)
	defer cancel()
	// Admitted before anything is allocated for the request: the wait
	// counts against its deadline.
	release, err := h.gate.Enter(ctx, h.cost)
	if err != nil {
		if errors.Is(err, limit.ErrExceeded) {
			w.Header().Set("Retry-After", "1")
			answer(w, http.StatusServiceUnavailable, map[string]string{"error": "the server is full: " + err.Error(), "class": "busy"})
			return
		}
		answer(w, http.StatusServiceUnavailable, map[string]string{"error": "no turn within the request's deadline: " + err.Error(), "class": "busy"})
		return
	}
	defer release()
	client, err := h.newClient()
	if err != nil {
		answer(w, http.StatusInternalServerError, map[string]string{"error": err.Error()})
		return
	}
	v, err := verify.New(append([]verify.Option{verify.WithClient(client)}, h.opts...)...)
	if err != nil {
		answer(w, http.StatusInternalServerError, map[string]string{"error": err.Error()})
		return
	}
	res, applied, err := v.VerifyWithSet(ctx, ref, h.images)
	switch {
	case err == nil && !applied:
		answer(w, http.StatusForbidden, map[string]string{"error": "no ImageConfig states a verification for " + ref, "class": "no-policy"})
	case err != nil:
		for _, c := range classes {
			if errors.Is(err, c.err) {
				answer(w, http.StatusForbidden, map[string]string{"error": err.Error(), "class": c.name})
				return
			}
		}
		answer(w, http.StatusBadGateway, map[string]string{"error": err.Error()})
	default:
		answer(w, http.StatusOK, map[string]any{"ref": ref, "digest": res.Descriptor.Digest, "pinned": res.PinnedReference(),
			"imageConfig": res.ImageConfig, "authority": res.Authority, "signatures": res.Signatures})
	}
}

func answer(w http.ResponseWriter, code int, body any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(body)
}
