package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/xpkgkit/xpkgkit/internal/hostile"
	"github.com/xpkgkit/xpkgkit/internal/signtest"
	"github.com/xpkgkit/xpkgkit/internal/testbudget"
	"github.com/xpkgkit/xpkgkit/limit"
)

// The hostile bounds (the README's, as xpkg-lint's hostile tests hold
// them): peak RSS and CPU time of the whole server run.
const (
	hostileRSSBound = 256 << 20
	hostileCPUBound = 10 * time.Second
)

var (
	maxRSSRE   = regexp.MustCompile(`Maximum resident set size \(kbytes\): (\d+)`)
	userTimeRE = regexp.MustCompile(`User time \(seconds\): ([0-9.]+)`)
	sysTimeRE  = regexp.MustCompile(`System time \(seconds\): ([0-9.]+)`)
)

// TestServerCasesCoverEveryEndpoint: every endpoint the server answers
// has a worst case in hostile.ServerCases, and every case names one.
func TestServerCasesCoverEveryEndpoint(t *testing.T) {
	t.Parallel()
	covered := map[string]bool{}
	for _, c := range hostile.ServerCases() {
		if !slices.Contains(endpoints, c.Endpoint) {
			t.Errorf("%s: %q is no endpoint of verify-upload (%v)", c.Name, c.Endpoint, endpoints)
		}
		if !strings.HasPrefix(c.Name, "server-") {
			t.Errorf("%s: a server case's name starts with server-", c.Name)
		}
		covered[c.Endpoint] = true
	}
	for _, e := range endpoints {
		if !covered[e] {
			t.Errorf("endpoint %s has no worst case in hostile.ServerCases: add the requests that give it the most to hold", e)
		}
	}
}

// TestHostileServer runs verify-upload under /usr/bin/time -v against each
// server case: the case's requests at once, for packages of a registry
// that holds its answers until every request the server did not admit has
// been answered (and a second more), then releases them. The server must
// answer 503 to at least the requests beyond its admitted and queued
// ones, never 200 (nothing verifies), and stay within the hostile bounds.
// Its verdicts (503 past the admitted and queued requests, never 200) are
// asserted in every run; peak RSS and CPU time are a measurement, asserted
// only with testbudget.Env set, as CI's hostile step sets it. Skipped
// under -short and -race.
func TestHostileServer(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("measures a server under load: skipped under -short and -race (.ci/run's hostile step runs it)")
	}
	timeBin, err := exec.LookPath("/usr/bin/time")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("/usr/bin/time is not installed (CI is set: .ci/run must install it): %v", err)
		}
		t.Skipf("/usr/bin/time is not installed: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "verify-upload")
	if out, err := exec.CommandContext(t.Context(), "go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, c := range hostile.ServerCases() {
		t.Run(c.Name, func(t *testing.T) {
			release := make(chan struct{})
			var once sync.Once
			open := func() { once.Do(func() { close(release) }) }
			reg := httptest.NewServer(c.Registry(release))
			t.Cleanup(reg.Close)
			t.Cleanup(open)
			host := strings.TrimPrefix(reg.URL, "http://")

			dir := t.TempDir()
			_, pub := signtest.NewKey(t)
			keyFile, icFile, ready := filepath.Join(dir, "cosign.pub"), filepath.Join(dir, "ic.yaml"), filepath.Join(dir, "ready")
			if err := os.WriteFile(keyFile, pub, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(icFile, fmt.Appendf(nil, `apiVersion: pkg.crossplane.io/v1beta1
kind: ImageConfig
metadata: {name: acme}
spec:
  matchImages: [{prefix: %s/acme/}]
  verification:
    provider: Cosign
    cosign:
      authorities:
      - name: release
        key: {secretRef: {name: cosign, key: cosign.pub}, hashAlgorithm: sha256}
`, host), 0o600); err != nil {
				t.Fatal(err)
			}
			timeOut := filepath.Join(dir, "time.txt")
			cmd := exec.Command(timeBin, "-v", "-o", timeOut, bin, "--image-config", icFile,
				"--verify-key", "cosign/cosign.pub="+keyFile, "--listen", "127.0.0.1:0")
			home := t.TempDir()
			cmd.Env = append(os.Environ(), readyFileEnv+"="+ready, "HOME="+home, "DOCKER_CONFIG="+filepath.Join(home, ".docker"))
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			stopped := false
			stop := func() {
				if !stopped {
					stopped = true
					_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGINT)
					_ = cmd.Wait()
				}
			}
			t.Cleanup(stop)
			addr := waitFile(t, ready)

			lim := limit.DefaultGateLimits()
			mustRefuse := c.Requests - lim.MaxActive - lim.MaxQueued
			codes := make(chan int, c.Requests)
			var refused, answered sync.WaitGroup
			refused.Add(max(mustRefuse, 0))
			var nRefused sync.Mutex
			left := mustRefuse
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: c.Requests}}
			for i := range c.Requests {
				answered.Add(1)
				go func() {
					defer answered.Done()
					code := 0
					resp, err := client.Post("http://"+addr+"/verify?ref="+url.QueryEscape(c.Ref(host, i)), "", nil)
					if err == nil {
						code = resp.StatusCode
						resp.Body.Close()
					}
					codes <- code
					if code == http.StatusServiceUnavailable {
						nRefused.Lock()
						if left > 0 {
							left--
							refused.Done()
						}
						nRefused.Unlock()
					}
				}()
			}
			waitGroup(t, &refused, 30*time.Second, "the requests beyond the admitted and queued ones to be refused")
			time.Sleep(time.Second) // the admitted verifications hold what they hold
			open()
			waitGroup(t, &answered, time.Minute, "every request to be answered")
			close(codes)
			count := map[int]int{}
			for code := range codes {
				count[code]++
			}
			stop()
			t.Logf("answers by status: %v", count)
			if count[http.StatusServiceUnavailable] < mustRefuse {
				t.Errorf("%d answered 503, want at least %d (%d requests, %d admitted and %d queued at most)",
					count[http.StatusServiceUnavailable], mustRefuse, c.Requests, lim.MaxActive, lim.MaxQueued)
			}
			if count[http.StatusOK] != 0 || count[0] != 0 {
				t.Errorf("%d verified and %d got no answer, want none", count[http.StatusOK], count[0])
			}
			tv, err := os.ReadFile(timeOut)
			if err != nil {
				t.Fatalf("%v (stderr: %s)", err, stderr.String())
			}
			rss := timeNumber(t, tv, maxRSSRE) << 10
			cpu := time.Duration(float64(time.Second) * (timeFloat(t, tv, userTimeRE) + timeFloat(t, tv, sysTimeRE)))
			t.Logf("peak RSS %d MiB, CPU %v user+sys", rss>>20, cpu)
			if rss > hostileRSSBound {
				testbudget.Errorf(t, "peak RSS %d MiB, want at most %d MiB", rss>>20, hostileRSSBound>>20)
			}
			if cpu > hostileCPUBound {
				testbudget.Errorf(t, "CPU time %v, want at most %v", cpu, hostileCPUBound)
			}
		})
	}
}

// waitFile waits for the server to write its address to path.
func waitFile(t *testing.T, path string) string {
	t.Helper()
	for range 3000 {
		if b, err := os.ReadFile(path); err == nil && len(b) > 0 {
			return string(b)
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("the server wrote no address to %s within 30 s", path)
	return ""
}

// waitGroup waits for wg, failing t after d.
func waitGroup(t *testing.T, wg *sync.WaitGroup, d time.Duration, what string) {
	t.Helper()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	ctx, cancel := context.WithTimeout(t.Context(), d)
	defer cancel()
	select {
	case <-done:
	case <-ctx.Done():
		t.Fatalf("waited %v for %s", d, what)
	}
}

func timeNumber(t *testing.T, report []byte, re *regexp.Regexp) int64 {
	t.Helper()
	m := re.FindSubmatch(report)
	if m == nil {
		t.Fatalf("no %s in /usr/bin/time's report:\n%s", re, report)
	}
	n, err := strconv.ParseInt(string(m[1]), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func timeFloat(t *testing.T, report []byte, re *regexp.Regexp) float64 {
	t.Helper()
	m := re.FindSubmatch(report)
	if m == nil {
		t.Fatalf("no %s in /usr/bin/time's report:\n%s", re, report)
	}
	f, err := strconv.ParseFloat(string(m[1]), 64)
	if err != nil {
		t.Fatal(err)
	}
	return f
}
