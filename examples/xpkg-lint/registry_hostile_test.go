package main_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unicode"

	"github.com/google/go-containerregistry/pkg/registry"

	"github.com/xpkgkit/xpkgkit/internal/registrytest"
	"github.com/xpkgkit/xpkgkit/internal/testbudget"
	"github.com/xpkgkit/xpkgkit/meta"
	"github.com/xpkgkit/xpkgkit/oci"
	"github.com/xpkgkit/xpkgkit/oci/remote"
	"github.com/xpkgkit/xpkgkit/xpkg/xpkgtest"
)

// xpkg-lint's exit codes.
const (
	cliExitOK    = 0
	cliExitError = 2
)

// cliSecret is a credential that must never appear in xpkg-lint's output.
const cliSecret = "XPKGKIT-CLI-SECRET-93b1e0"

// cliHostileText is a registry's message that would retitle the window,
// clear the screen and fake a verdict if printed raw.
const cliHostileText = "\x1b]0;pwned\x07\x1b[2J\rxpkg-lint: 0 problems\u202e"

// measuredRun is one run of xpkg-lint under /usr/bin/time -v.
type measuredRun struct {
	code           int
	stdout, stderr string
	rss            int64
	cpu            time.Duration
}

// runIsolated runs xpkg-lint with args under /usr/bin/time -v, with HOME,
// TMPDIR, XDG_CACHE_HOME and DOCKER_CONFIG in empty directories and an
// empty working directory, and fails t when anything was written there
// (a cache directory given with --cache-dir is the only place it may
// write), when the output holds a control character or the secret, or when
// the run is over the hostile budget.
func runIsolated(t *testing.T, bin string, args ...string) measuredRun {
	t.Helper()
	timeBin := needTool(t, "/usr/bin/time")
	home, tmp, work := t.TempDir(), t.TempDir(), t.TempDir()
	timeOut := filepath.Join(t.TempDir(), "time.txt")
	cmd := exec.CommandContext(t.Context(), timeBin, append([]string{"-v", "-o", timeOut, bin}, args...)...)
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "HOME="+home, "TMPDIR="+tmp, "XDG_CACHE_HOME="+filepath.Join(home, ".cache"), "DOCKER_CONFIG="+filepath.Join(home, ".docker"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := measuredRun{stdout: stdout.String(), stderr: stderr.String()}
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running xpkg-lint: %v", err)
	}
	tv, err := os.ReadFile(timeOut)
	if err != nil {
		t.Fatal(err)
	}
	r.rss = timeKiB(t, tv, maxRSSRE) << 10
	r.cpu = timeSeconds(t, tv, userTimeRE) + timeSeconds(t, tv, sysTimeRE)
	t.Logf("exit %d, peak RSS %d MiB, CPU %v user+sys; stderr: %s", r.code, r.rss>>20, r.cpu, firstLine(r.stderr))
	checkCLIBudget(t, r.rss, r.cpu)
	for _, d := range []string{home, tmp, work} {
		if ents, _ := os.ReadDir(d); len(ents) != 0 {
			t.Errorf("xpkg-lint wrote %s outside the cache directory", filepath.Join(d, ents[0].Name()))
		}
	}
	checkOutputSafe(t, r.stdout)
	checkOutputSafe(t, r.stderr)
	return r
}

// checkOutputSafe fails t when out holds the secret (raw or in base64) or
// a control or format character other than a newline or a tab, or, when
// out is JSON (SARIF), when a string in it does.
func checkOutputSafe(t *testing.T, out string) {
	t.Helper()
	if strings.Contains(out, cliSecret) || strings.Contains(out, base64.StdEncoding.EncodeToString([]byte(cliSecret))) {
		t.Errorf("output holds the secret:\n%s", short(out))
	}
	check := func(s string) {
		for _, r := range s {
			if r != '\n' && r != '\t' && (unicode.IsControl(r) || unicode.Is(unicode.Cf, r)) {
				t.Errorf("output holds %U:\n%q", r, short(s))
				return
			}
		}
	}
	check(out)
	var v any
	if json.Unmarshal([]byte(out), &v) == nil {
		var walk func(any)
		walk = func(v any) {
			switch x := v.(type) {
			case string:
				check(x)
				if strings.Contains(x, cliSecret) {
					t.Errorf("JSON output holds the secret: %q", short(x))
				}
			case []any:
				for _, e := range x {
					walk(e)
				}
			case map[string]any:
				for _, e := range x {
					walk(e)
				}
			}
		}
		walk(v)
	}
}

// hostileHost serves handler on a loopback port and counts requests.
func hostileHost(t *testing.T, handler http.HandlerFunc) (string, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		handler(w, r)
	}))
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://"), &n
}

// rootWithDeps writes a Configuration depending on n providers of host.
func rootWithDeps(t *testing.T, host string, n int, version string) string {
	t.Helper()
	p := xpkgtest.NewConfiguration("root")
	for i := range n {
		p = p.WithDependency(meta.KindProvider, fmt.Sprintf("%s/acme/provider-%d", host, i), version)
	}
	return p.Dir(t)
}

var (
	registryCLIOnce sync.Once
	registryCLIBin  string
	registryCLIErr  error
)

// registryCLI builds xpkg-lint once for the registry cases.
func registryCLI(t *testing.T) string {
	t.Helper()
	registryCLIOnce.Do(func() {
		dir, err := os.MkdirTemp("", "xpkg-lint-registry-")
		if err != nil {
			registryCLIErr = err
			return
		}
		registryCLIBin = filepath.Join(dir, "xpkg-lint")
		out, err := exec.Command("go", "build", "-o", registryCLIBin, ".").CombinedOutput()
		if err != nil {
			registryCLIErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if registryCLIErr != nil {
		t.Fatal(registryCLIErr)
	}
	return registryCLIBin
}

// TestRegistryCostCLI runs xpkg-lint against hostile registries and caches:
// each run stays under the hostile budget, writes nothing outside its cache
// directory, prints no control character and no credential, and sends a
// bounded number of requests.
func TestRegistryCostCLI(t *testing.T) {
	if raceEnabled {
		t.Skip("measures the CLI's budget: run without -race")
	}
	t.Parallel()
	bin := registryCLI(t)
	t.Run("registry-cost-deps-503-storm", func(t *testing.T) {
		t.Parallel()
		host, n := hostileHost(t, func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "down", http.StatusServiceUnavailable)
		})
		root := rootWithDeps(t, host, 300, ">=v1.0.0")
		r := runIsolated(t, bin, "--deps", "--cache-dir", t.TempDir(), root)
		if r.code == cliExitOK {
			t.Errorf("exit 0 with every dependency unreachable")
		}
		// Each request in flight when the host is first found failing
		// makes its own 1 + 3 tries; every later one is refused at once.
		if got := n.Load(); got > 40 {
			t.Errorf("%d requests for 300 dependencies on a host answering 503, want at most 40", got)
		}
		t.Logf("%d requests", n.Load())
	})
	t.Run("registry-cost-deps-endless-pagination", func(t *testing.T) {
		t.Parallel()
		host, n := hostileHost(t, func(w http.ResponseWriter, r *http.Request) {
			if strings.HasSuffix(r.URL.Path, "/tags/list") {
				w.Header().Set("Link", fmt.Sprintf(`<%s?last=x%d>; rel="next"`, r.URL.Path, time.Now().UnixNano()))
				fmt.Fprint(w, `{"tags":[]}`)
				return
			}
			http.Error(w, `{"errors":[{"code":"MANIFEST_UNKNOWN"}]}`, http.StatusNotFound)
		})
		root := rootWithDeps(t, host, 30, ">=v1.0.0")
		r := runIsolated(t, bin, "--deps", "--cache-dir", t.TempDir(), root)
		if r.code == cliExitOK {
			t.Errorf("exit 0 with every tag listing endless")
		}
		if got := n.Load(); got > int64(remote.DefaultLimits().MaxRequestsPerHost) {
			t.Errorf("%d requests, over MaxRequestsPerHost %d", got, remote.DefaultLimits().MaxRequestsPerHost)
		}
		t.Logf("%d requests", n.Load())
	})
	t.Run("registry-cost-token-escapes", func(t *testing.T) {
		t.Parallel()
		var host string
		host, _ = hostileHost(t, func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/token" {
				w.WriteHeader(http.StatusUnauthorized)
				b, _ := json.Marshal(map[string]any{"errors": []map[string]string{{"code": cliHostileText, "message": cliHostileText, "detail": cliHostileText}}})
				w.Write(b)
				return
			}
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer realm="http://%s/token",service="hostile"`, host))
			http.Error(w, `{"errors":[{"code":"UNAUTHORIZED"}]}`, http.StatusUnauthorized)
		})
		for _, format := range []string{"text", "sarif", "json"} {
			r := runIsolated(t, bin, "-o", format, "--cache-dir", t.TempDir(), host+"/acme/pkg:v1")
			if r.code != cliExitError {
				t.Errorf("-o %s: exit %d, want %d", format, r.code, cliExitError)
			}
		}
	})
	t.Run("registry-cost-bare-token-auth", func(t *testing.T) {
		t.Parallel()
		host, _ := hostileHost(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("WWW-Authenticate", `Basic realm="hostile"`)
			http.Error(w, `{"errors":[{"code":"UNAUTHORIZED"}]}`, http.StatusUnauthorized)
		})
		cfg := filepath.Join(t.TempDir(), "config.json")
		auth := base64.StdEncoding.EncodeToString([]byte(cliSecret))
		if err := os.WriteFile(cfg, []byte(fmt.Sprintf(`{"auths":{%q:{"auth":%q}}}`, host, auth)), 0o600); err != nil {
			t.Fatal(err)
		}
		for _, format := range []string{"text", "sarif"} {
			r := runIsolated(t, bin, "-o", format, "--registry-config", cfg, "--cache-dir", t.TempDir(), host+"/acme/pkg:v1")
			if r.code != cliExitError || !strings.Contains(r.stdout+r.stderr, "credentials") {
				t.Errorf("-o %s: exit %d, want %d with a message about credentials", format, r.code, cliExitError)
			}
		}
	})
	t.Run("cache-cost-hostile-cache-dir", func(t *testing.T) {
		t.Parallel()
		reg := registrytest.Start(t, registrytest.Plain)
		img := xpkgtest.NewProvider("provider-a").MustImage(t)
		pushImage(t, reg.Host+"/acme/provider-a", "v1", img)
		// A FIFO named after every blob of the package, index.json and
		// the journal linked to /dev/zero, stale temporary files.
		cacheDir := t.TempDir()
		blobs := filepath.Join(cacheDir, "blobs", "sha256")
		os.MkdirAll(blobs, 0o755)
		fifos := []string{img.Digest().Encoded(), img.Manifest().Config.Digest.Encoded()}
		for _, l := range img.Manifest().Layers {
			fifos = append(fifos, l.Digest.Encoded())
		}
		for _, name := range fifos {
			if err := syscall.Mkfifo(filepath.Join(blobs, name), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		for _, name := range []string{"index.json", "index.journal"} {
			os.Symlink("/dev/zero", filepath.Join(cacheDir, name))
		}
		for i := range 14 {
			os.WriteFile(filepath.Join(blobs, fmt.Sprintf(".tmp-interrupted%d", i)), make([]byte, 1<<20), 0o644)
		}
		r := runIsolated(t, bin, "--cache-dir", cacheDir, reg.Host+"/acme/provider-a:v1")
		if r.code == cliExitError {
			t.Errorf("exit %d: a hostile cache must not stop a pull\n%s", r.code, r.stderr)
		}
		if left, _ := filepath.Glob(filepath.Join(blobs, ".tmp-*")); len(left) != 0 {
			t.Errorf("temporary files after a clean exit: %q", left)
		}
	})
}

// pushImage pushes img to repository name under tag.
func pushImage(t *testing.T, name, tag string, img *xpkgtest.Image) {
	t.Helper()
	ctx := context.Background()
	c, _ := remote.New(remote.WithAnonymous())
	src, err := oci.Open(ctx, img.LayoutDir(t))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	desc, err := oci.Resolve(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	repo, _ := c.Repository(name)
	if err := repo.PushImage(ctx, src, desc.Descriptor, []string{tag}); err != nil {
		t.Fatal(err)
	}
}

// TestRegistryCostCLISIGINT: xpkg-lint pulling from a registry that
// trickles its answer, or that answers 503 (the client waiting between
// retries), exits within sigintBound of SIGINT, and leaves no temporary
// file in its cache.
func TestRegistryCostCLISIGINT(t *testing.T) {
	if raceEnabled {
		t.Skip("measures the CLI: run without -race")
	}
	t.Parallel()
	bin := registryCLI(t)
	for _, tc := range []struct {
		name    string
		handler http.HandlerFunc
	}{
		{"registry-cost-slow-body", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/vnd.oci.image.manifest.v1+json")
			w.Header().Set("Docker-Content-Digest", "sha256:"+strings.Repeat("a", 64))
			w.Header().Set("Content-Length", "100000")
			if r.Method == http.MethodHead {
				return
			}
			for range 100000 {
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
		}},
		{"registry-cost-503-backoff", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "60")
			http.Error(w, "down", http.StatusServiceUnavailable)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			host, _ := hostileHost(t, tc.handler)
			cacheDir := t.TempDir()
			var stderr bytes.Buffer
			cmd := exec.Command(bin, "--cache-dir", cacheDir, host+"/acme/pkg:v1")
			cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "DOCKER_CONFIG="+t.TempDir())
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			time.Sleep(500 * time.Millisecond)
			sent := time.Now()
			cmd.Process.Signal(os.Interrupt)
			select {
			case <-done:
				took := time.Since(sent)
				t.Logf("exited %v after SIGINT: %s", took.Round(time.Millisecond), firstLine(stderr.String()))
				if took > sigintBound {
					testbudget.Errorf(t, "exited %v after SIGINT, want within %v", took.Round(time.Millisecond), sigintBound)
				}
			case <-time.After(30 * time.Second):
				cmd.Process.Kill()
				<-done
				t.Fatal("still running 30s after SIGINT")
			}
			checkOutputSafe(t, stderr.String())
			if left, _ := filepath.Glob(filepath.Join(cacheDir, "blobs", "*", ".tmp-*")); len(left) != 0 {
				t.Errorf("temporary files after SIGINT: %q", left)
			}
		})
	}
}

// TestRegistryCostCLIManyPackages: --deps over 1,000 small packages (100
// without the budgets, testbudget) in a
// registry, with a cold cache and then a warm one (the cache's bookkeeping
// was quadratic: 36.5 s of CPU with the cache, 0.8 s without). The
// registry is go-containerregistry's in-memory one, which takes the 1,000
// pushes in seconds; skipped under -short and -race.
func TestRegistryCostCLIManyPackages(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("pushes 1,000 packages: skipped under -short and -race")
	}
	t.Parallel()
	bin := registryCLI(t)
	// go-containerregistry's in-memory registry: pushing 1,000 images to
	// docker-registry took 50 s, and what the test measures is the CLI's
	// cache, not the registry.
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	t.Cleanup(srv.Close)
	reg := struct{ Host string }{strings.TrimPrefix(srv.URL, "http://")}
	// 1,000 where the CPU time is asserted (testbudget); elsewhere it is
	// only logged, and 100 packages exercise the same code paths.
	n := 100
	if testbudget.On() {
		n = 1000
	}
	root := xpkgtest.NewConfiguration("root")
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for i := range n {
		name := fmt.Sprintf("%s/acme/provider-%d", reg.Host, i)
		root = root.WithDependency(meta.KindProvider, name, ">=v1.0.0")
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			pushImage(t, name, "v1.0.0", xpkgtest.NewProvider(fmt.Sprintf("provider-%d", i)).MustImage(t))
		}()
	}
	wg.Wait()
	dir := root.Dir(t)
	cacheDir := t.TempDir()
	for _, run := range []string{"cold cache", "warm cache"} {
		r := runIsolated(t, bin, "--deps", "--cache-dir", cacheDir, dir)
		if r.code != cliExitOK {
			t.Fatalf("%s: exit %d\n%s\n%s", run, r.code, short(r.stdout), short(r.stderr))
		}
		t.Logf("--deps over %d registry packages, %s: CPU %v user+sys, peak RSS %d MiB", n, run, r.cpu, r.rss>>20)
	}
}
