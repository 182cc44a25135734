// Package registrytest starts the distribution reference registry
// (Debian's docker-registry package, /usr/bin/docker-registry) on a loopback
// port with temporary storage, for tests: plain HTTP without
// authentication, HTTPS with htpasswd basic authentication, or plain HTTP
// with token authentication by a token issuer the test runs.
//
// Start skips the test with a message saying what to install when the
// binary is absent, and fails it instead when the CI environment variable is
// set (CI installs the package).
package registrytest

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Binary is the registry executable Start runs; XPKGKIT_REGISTRY overrides
// it.
const Binary = "docker-registry"

// The credentials of the basic and token modes.
const (
	Username = "xpkgkit"
	Password = "xpkgkit-test-password"
	// htpasswdLine is Username with a bcrypt hash (cost 4) of Password.
	htpasswdLine = "xpkgkit:$2b$04$l028o/PmptOqfPYPi/Mys.3jZRIE0cBefGO6Vk84VOT.p8i7PMOn.\n"
)

// Mode is how the registry is set up.
type Mode int

// The modes.
const (
	// Plain: plain HTTP, no authentication.
	Plain Mode = iota
	// TLSBasic: HTTPS with a certificate the test generates, and htpasswd
	// basic authentication (Username, Password).
	TLSBasic
	// Token: plain HTTP, bearer tokens from an issuer the test runs. The
	// issuer gives anonymous callers pull access and callers with Username
	// and Password pull and push access.
	Token
)

// Registry is a running registry.
type Registry struct {
	// Host is "127.0.0.1:PORT".
	Host string
	// Mode is the mode it runs in.
	Mode Mode
	// RootCAs trusts the registry's certificate (TLSBasic); nil otherwise.
	RootCAs *x509.CertPool
	// TokenRequests counts the token issuer's requests (Token mode).
	TokenRequests func() int
}

// HTTPClient returns a client that trusts the registry's certificate.
func (r *Registry) HTTPClient() *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if r.RootCAs != nil {
		tr.TLSClientConfig = &tls.Config{RootCAs: r.RootCAs, MinVersion: tls.VersionTLS12}
	}
	return &http.Client{Transport: tr}
}

// Path returns the registry's binary, or "" when it is not installed.
func Path() string {
	if p := os.Getenv("XPKGKIT_REGISTRY"); p != "" {
		return p
	}
	p, err := exec.LookPath(Binary)
	if err != nil {
		return ""
	}
	return p
}

// Require skips t (fails it under CI) when the registry is not installed,
// and returns its path.
func Require(t testing.TB) string {
	t.Helper()
	p := Path()
	if p == "" {
		msg := "the distribution registry (" + Binary + ") is not installed: apt-get install docker-registry"
		if os.Getenv("CI") != "" {
			t.Fatal(msg + " (CI must install it: see .ci/run)")
		}
		t.Skip(msg)
	}
	return p
}

// Start starts a registry in mode and stops it when the test ends.
func Start(t testing.TB, mode Mode) *Registry {
	t.Helper()
	bin := Require(t)
	dir := t.TempDir()
	port := freePort(t)
	host := fmt.Sprintf("127.0.0.1:%d", port)
	reg := &Registry{Host: host, Mode: mode}

	var cfg strings.Builder
	fmt.Fprintf(&cfg, `version: 0.1
log:
  level: error
  accesslog:
    disabled: true
storage:
  filesystem:
    rootdirectory: %s
  delete:
    enabled: true
http:
  addr: %s
  secret: registrytest
`, filepath.Join(dir, "storage"), host)
	scheme := "http"
	switch mode {
	case TLSBasic:
		certPEM, keyPEM := selfSigned(t)
		write(t, filepath.Join(dir, "cert.pem"), certPEM)
		write(t, filepath.Join(dir, "key.pem"), keyPEM)
		write(t, filepath.Join(dir, "htpasswd"), []byte(htpasswdLine))
		fmt.Fprintf(&cfg, `  tls:
    certificate: %s
    key: %s
auth:
  htpasswd:
    realm: registrytest
    path: %s
`, filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem"), filepath.Join(dir, "htpasswd"))
		pool := x509.NewCertPool()
		pool.AppendCertsFromPEM(certPEM)
		reg.RootCAs = pool
		scheme = "https"
	case Token:
		iss := startIssuer(t)
		write(t, filepath.Join(dir, "issuer.pem"), iss.certPEM)
		fmt.Fprintf(&cfg, `auth:
  token:
    realm: %s/token
    service: %s
    issuer: %s
    rootcertbundle: %s
`, iss.url, issuerService, issuerName, filepath.Join(dir, "issuer.pem"))
		reg.TokenRequests = iss.count
	}
	cfgPath := filepath.Join(dir, "config.yml")
	write(t, cfgPath, []byte(cfg.String()))

	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "serve", cfgPath)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	cmd.Env = append(os.Environ(), "OTEL_TRACES_EXPORTER=none")
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatalf("registrytest: starting %s: %v", bin, err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		cancel()
		<-exited
	})

	client := reg.HTTPClient()
	client.Timeout = time.Second
	deadline := time.Now().Add(20 * time.Second)
	for {
		select {
		case <-exited:
			t.Fatalf("registrytest: %s exited: %s", bin, out.String())
		default:
		}
		resp, err := client.Get(scheme + "://" + host + "/v2/")
		if err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("registrytest: %s did not answer on %s: %v\n%s", bin, host, err, out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	return reg
}

// freePort returns a loopback TCP port that was free a moment ago.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("registrytest: %v", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func write(t testing.TB, name string, data []byte) {
	t.Helper()
	if err := os.WriteFile(name, data, 0o600); err != nil {
		t.Fatalf("registrytest: %v", err)
	}
}

// selfSigned returns a certificate (PEM) for 127.0.0.1, ::1 and localhost,
// valid for a day, and its key (PEM).
func selfSigned(t testing.TB) (certPEM, keyPEM []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(time.Now().UnixNano()),
		Subject:               pkix.Name{CommonName: "registrytest"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1"), net.IPv6loopback},
		DNSNames:              []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb})
}
