package registrytest

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base32"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

const (
	issuerService = "registrytest"
	issuerName    = "registrytest-issuer"
)

// issuer is a token server as the distribution token specification
// describes: GET /token?service=...&scope=repository:NAME:ACTIONS returns a
// JWT (ES256) the registry verifies with the issuer's certificate.
type issuer struct {
	url     string
	certPEM []byte
	key     *ecdsa.PrivateKey
	kid     string
	n       atomic.Int64
}

func (i *issuer) count() int { return int(i.n.Load()) }

func startIssuer(t testing.TB) *issuer {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()),
		Subject:      pkix.Name{CommonName: issuerName},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	iss := &issuer{
		certPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		key:     key,
		kid:     keyID(t, &key.PublicKey),
	}
	srv := httptest.NewServer(http.HandlerFunc(iss.serve))
	t.Cleanup(srv.Close)
	iss.url = srv.URL
	return iss
}

// keyID is the key ID the registry (through docker/libtrust) derives from a
// public key: the first 240 bits of the SHA-256 of its DER encoding, in
// base32, in twelve groups of four joined by ':'.
func keyID(t testing.TB, pub crypto.PublicKey) string {
	t.Helper()
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(der)
	s := strings.TrimRight(base32.StdEncoding.EncodeToString(sum[:30]), "=")
	var groups []string
	for i := 0; i+4 <= len(s); i += 4 {
		groups = append(groups, s[i:i+4])
	}
	return strings.Join(groups, ":")
}

type access struct {
	Type    string   `json:"type"`
	Name    string   `json:"name"`
	Actions []string `json:"actions"`
}

func (i *issuer) serve(w http.ResponseWriter, r *http.Request) {
	i.n.Add(1)
	if r.URL.Path != "/token" {
		http.NotFound(w, r)
		return
	}
	user, pass, hasAuth := r.BasicAuth()
	authed := hasAuth && user == Username && pass == Password
	if hasAuth && !authed {
		http.Error(w, `{"errors":[{"code":"UNAUTHORIZED","message":"bad credentials"}]}`, http.StatusUnauthorized)
		return
	}
	var grants []access
	for _, scope := range r.URL.Query()["scope"] {
		parts := strings.Split(scope, ":")
		if len(parts) < 3 || parts[0] != "repository" {
			continue
		}
		name := strings.Join(parts[1:len(parts)-1], ":")
		var actions []string
		for _, a := range strings.Split(parts[len(parts)-1], ",") {
			if a == "pull" || authed && (a == "push" || a == "delete") {
				actions = append(actions, a)
			}
		}
		grants = append(grants, access{Type: "repository", Name: name, Actions: actions})
	}
	sub := ""
	if authed {
		sub = user
	}
	now := time.Now()
	claims := map[string]any{
		"iss":    issuerName,
		"sub":    sub,
		"aud":    r.URL.Query().Get("service"),
		"exp":    now.Add(5 * time.Minute).Unix(),
		"nbf":    now.Add(-time.Minute).Unix(),
		"iat":    now.Unix(),
		"jti":    big.NewInt(now.UnixNano()).String(),
		"access": grants,
	}
	tok, err := i.sign(claims)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"token": tok, "access_token": tok, "expires_in": 300, "issued_at": now.UTC().Format(time.RFC3339)})
}

// sign returns the JWT (ES256) of claims.
func (i *issuer) sign(claims map[string]any) (string, error) {
	enc := base64.RawURLEncoding
	h, _ := json.Marshal(map[string]string{"typ": "JWT", "alg": "ES256", "kid": i.kid})
	c, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	input := enc.EncodeToString(h) + "." + enc.EncodeToString(c)
	sum := sha256.Sum256([]byte(input))
	r, s, err := ecdsa.Sign(rand.Reader, i.key, sum[:])
	if err != nil {
		return "", err
	}
	sig := make([]byte, 64)
	r.FillBytes(sig[:32])
	s.FillBytes(sig[32:])
	return input + "." + enc.EncodeToString(sig), nil
}
