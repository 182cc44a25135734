//go:build linux

package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime/debug"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/xpkgkit/xpkgkit/internal/hostile"
	"github.com/xpkgkit/xpkgkit/internal/testbudget"
)

// The language server's hostile budget: the README's, for the CLI and
// xpkg-lsp alike.
const (
	hostileRSSBound = 256 << 20
	hostileCPUBound = 10 * time.Second
	raceCPUFactor   = 10
	// hostileQuiet is how long the server says nothing before the child
	// ends the session.
	hostileQuiet = 3 * time.Second
)

// Environment of the child that runs one case.
const (
	hostileCaseEnv = "XPKG_LSP_HOSTILE_CASE"
	hostileDirEnv  = "XPKG_LSP_HOSTILE_DIR"
)

// hostileResult is what the child reports.
type hostileResult struct {
	RSS      uint64        `json:"rss"`
	CPU      time.Duration `json:"cpu"`
	Messages int           `json:"messages"`
	Err      string        `json:"err,omitempty"`
}

func init() {
	if name := os.Getenv(hostileCaseEnv); name != "" {
		res := runHostileChild(name, os.Getenv(hostileDirEnv))
		_ = json.NewEncoder(os.Stdout).Encode(res)
		os.Exit(0)
	}
}

// TestHostileLSP runs each session of hostile.LSPCases against the server
// in a child process (the test binary, with xpkg-lsp's soft memory limit)
// and holds it to the hostile budget: peak RSS (VmHWM) and CPU time, and
// the server answering to the end. The budget is asserted only with
// testbudget.Env set, as CI's hostile step (without -race) sets it;
// elsewhere it is measured and logged.
func TestHostileLSP(t *testing.T) {
	for _, c := range hostile.LSPCases() {
		t.Run(c.Name, func(t *testing.T) {
			if testing.Short() || raceEnabled {
				t.Skip("sessions of 100 MiB, measured: not under -short or -race (.ci/run's hostile step runs them)")
			}
			ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), hostileCaseEnv+"="+c.Name, hostileDirEnv+"="+t.TempDir())
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("child: %v\n%s", err, stderr.String())
			}
			var res hostileResult
			if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
				t.Fatalf("child's report %q: %v", stdout.String(), err)
			}
			t.Logf("peak RSS %d MiB, CPU %v, %d messages from the server", res.RSS>>20, res.CPU.Round(time.Millisecond), res.Messages)
			if res.Err != "" {
				t.Errorf("session: %s", res.Err)
			}
			if res.Messages == 0 {
				t.Error("the server sent nothing")
			}
			if !raceEnabled && res.RSS > hostileRSSBound {
				testbudget.Errorf(t, "peak RSS %d MiB, want at most %d MiB", res.RSS>>20, hostileRSSBound>>20)
			}
			bound := hostileCPUBound
			if raceEnabled {
				bound *= raceCPUFactor
			}
			if res.CPU > bound {
				testbudget.Errorf(t, "CPU %v, want at most %v", res.CPU, bound)
			}
		})
	}
}

// runHostileChild serves one case's session and measures it.
func runHostileChild(name, dir string) (res hostileResult) {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(192 << 20) // xpkg-lsp's
	}
	var c *hostile.LSPCase
	for _, lc := range hostile.LSPCases() {
		if lc.Name == name {
			c = &lc
		}
	}
	if c == nil {
		return hostileResult{Err: "no case " + name}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	sr, cw := io.Pipe()
	cr, sw := io.Pipe()
	served := make(chan error, 1)
	go func() { served <- New().Serve(ctx, sr, sw); sw.Close() }()
	heard := make(chan struct{}, 1)
	var messages, published atomic.Int64
	go func() {
		rd := newReader(cr, 1<<30)
		for {
			body, err := rd.read()
			if err != nil {
				return
			}
			messages.Add(1)
			var m struct{ Method string }
			if json.Unmarshal(body, &m) == nil && m.Method == "textDocument/publishDiagnostics" {
				published.Add(1)
			}
			select {
			case heard <- struct{}{}:
			default:
			}
		}
	}()
	frame := func(body string) { fmt.Fprintf(cw, "Content-Length: %d\r\n\r\n%s", len(body), body) }
	frame(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)
	frame(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)
	if err := c.Write(ctx, dir, cw); err != nil {
		res.Err = "writing the session: " + err.Error()
	}
	// Wait for the server to go quiet after its diagnostics (a lint
	// publishes; a session whose documents are all skipped gets a minute).
	waitLint := time.After(time.Minute)
	for quiet := false; !quiet; {
		select {
		case <-heard:
		case <-time.After(hostileQuiet):
			select {
			case <-waitLint:
				quiet = true
			default:
				quiet = published.Load() > 0
			}
		case <-ctx.Done():
			quiet = true
		}
	}
	frame(`{"jsonrpc":"2.0","id":999999,"method":"shutdown"}`)
	frame(`{"jsonrpc":"2.0","method":"exit"}`)
	cw.Close()
	if err := <-served; err != nil && res.Err == "" {
		res.Err = "Serve: " + err.Error()
	}
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		res.CPU = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	res.RSS = vmHWM()
	res.Messages = int(messages.Load())
	return res
}

// vmHWM returns this process's peak resident set, in bytes.
func vmHWM() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range bytes.Split(b, []byte("\n")) {
		if v, ok := bytes.CutPrefix(line, []byte("VmHWM:")); ok {
			kb, _ := strconv.ParseUint(string(bytes.TrimSpace(bytes.TrimSuffix(bytes.TrimSpace(v), []byte("kB")))), 10, 64)
			return kb << 10
		}
	}
	return 0
}
