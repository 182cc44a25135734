package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/xpkgkit/xpkgkit/lintcmd"
	"github.com/xpkgkit/xpkgkit/linter"
)

// Defaults of a Server.
const (
	// defaultMaxMessageSize caps one JSON-RPC message: a larger one (a
	// document of more than 16 MiB sent whole) is skipped and logged.
	defaultMaxMessageSize = 16 << 20
	// defaultDebounce is how long the server waits after an edit before it
	// lints: edits within it make one lint.
	defaultDebounce = 150 * time.Millisecond
	// defaultRequestTimeout bounds each request (hover, completion,
	// definition, code actions).
	defaultRequestTimeout = 10 * time.Second
	// defaultRuleDocs is where rule docs are linked from: RULES.md, each
	// rule at the anchor "#xp102-allowed-kind".
	defaultRuleDocs = "https://github.com/xpkgkit/xpkgkit/blob/main/linter/RULES.md"
	// maxInFlight bounds the requests handled at once.
	maxInFlight = 4
	// maxDocuments bounds the documents the server keeps open.
	maxDocuments = 4096
)

// ErrNoShutdown is returned by Serve when the client sent exit without a
// shutdown request first (LSP's exit code 1).
var ErrNoShutdown = errors.New("lsp: exit without shutdown")

// Server is a language server for Crossplane packages: it lints the package
// a file belongs to as xpkg-lint lints it and publishes the diagnostics,
// offers every suggested fix as a quick fix, and answers hover, completion
// and go-to-definition from the schemas that judge the package at its
// target Crossplane release. Build it with New and run it with Serve; one
// Server serves one client.
type Server struct {
	config
	ck *lintcmd.Checker

	out *writer

	mu       sync.Mutex
	docs     map[string]*document          // by URI
	pkgs     map[string]*pkgState          // by package root
	settings settings                      // from initializationOptions and didChangeConfiguration
	inflight map[string]func()             // cancel functions of running requests, by ID
	ctx      context.Context               // Serve's
	cancel   context.CancelFunc            // ends Serve
	wg       sync.WaitGroup                // lints and requests running
	lintSem  chan struct{}                 // one lint at a time
	reqSem   chan struct{}                 // maxInFlight requests at a time
	schemas  *schemaCache                  // kinds' schemas, by validator and kind
	initDone bool                          // initialize answered
	shutdown bool                          // shutdown received
	onLint   func(root string, gen uint64) // tests: a lint was published
}

// Option configures a Server.
type Option func(*config)

// config is what the options set.
type config struct {
	rules          []*linter.Rule
	maxMessage     int64
	debounce       time.Duration
	requestTimeout time.Duration
	ruleDocs       string
}

// WithRules adds rules to the server's rule set, beside the built-in
// rules, as lintcmd.WithRules adds them to xpkg-lint: they run, may be
// disabled, and their docs are shown on hover.
func WithRules(rules ...*linter.Rule) Option {
	return func(s *config) {
		for _, r := range rules {
			if r != nil {
				s.rules = append(s.rules, r)
			}
		}
	}
}

// WithMaxMessageSize caps the size of one JSON-RPC message the server
// reads (16 MiB by default). A larger message is skipped without being
// held in memory; a larger document is therefore not linted.
func WithMaxMessageSize(n int64) Option {
	return func(s *config) {
		if n > 0 {
			s.maxMessage = n
		}
	}
}

// withDebounce sets how long the server waits after an edit before it
// lints (150 ms by default); zero lints at once. For the tests.
func withDebounce(d time.Duration) Option {
	return func(s *config) {
		if d >= 0 {
			s.debounce = d
		}
	}
}

// withRequestTimeout bounds each request (hover, completion, definition,
// code actions; 10 s by default). For the tests.
func withRequestTimeout(d time.Duration) Option {
	return func(s *config) {
		if d > 0 {
			s.requestTimeout = d
		}
	}
}

// WithRuleDocs sets the page rule docs are linked from (by default
// linter/RULES.md on the repository's main branch):
// each diagnostic's link is the page with the anchor of its rule
// ("#xp102-allowed-kind").
func WithRuleDocs(url string) Option {
	return func(s *config) {
		if url = strings.TrimSpace(url); url != "" {
			s.ruleDocs = url
		}
	}
}

// New returns a server with the built-in rules (linter/rules.Builtin and the
// API server's, as xpkg-lint runs them) and the options applied.
func New(opts ...Option) *Server {
	s := &Server{config: config{
		maxMessage:     defaultMaxMessageSize,
		debounce:       defaultDebounce,
		requestTimeout: defaultRequestTimeout,
		ruleDocs:       defaultRuleDocs,
	}}
	for _, o := range opts {
		o(&s.config)
	}
	s.ck = lintcmd.New(lintcmd.WithName("xpkg-lsp"), lintcmd.WithRules(s.rules...))
	return s
}

// Serve reads requests and notifications from r and writes responses and
// notifications to w until the client sends exit, r ends, or ctx is done;
// it waits for the work it started before it returns. It returns nil after
// shutdown and exit, ErrNoShutdown after an exit without shutdown, ctx's
// error, the error of r (io.EOF when r ends), or an error wrapping
// ErrFraming when the stream's framing is broken. An error inside a request
// becomes that request's error response and a logged message: it never ends
// Serve. A Server serves one stream: Serve must not be called twice. When
// Serve returns for another reason than the end of r, a read of r may still
// be in flight: a caller that goes on using r closes it first.
func (s *Server) Serve(ctx context.Context, r io.Reader, w io.Writer) error {
	if ctx == nil || r == nil || w == nil {
		return errors.New("lsp: Serve: nil context, reader or writer")
	}
	ctx, cancel := context.WithCancel(ctx)
	s.mu.Lock()
	if s.ctx != nil {
		s.mu.Unlock()
		cancel()
		return errors.New("lsp: Serve called twice")
	}
	s.ctx, s.cancel = ctx, cancel
	s.out = &writer{w: w}
	s.docs = map[string]*document{}
	s.pkgs = map[string]*pkgState{}
	s.inflight = map[string]func(){}
	s.lintSem = make(chan struct{}, 1)
	s.reqSem = make(chan struct{}, maxInFlight)
	s.schemas = newSchemaCache()
	s.mu.Unlock()
	defer func() {
		cancel()
		s.mu.Lock()
		for _, st := range s.pkgs {
			if st.timer != nil && st.timer.Stop() {
				s.wg.Done() // its function will not run
			}
		}
		s.mu.Unlock()
		s.wg.Wait()
	}()

	msgs := make(chan []byte)
	errc := make(chan error, 1)
	go func() {
		rd := newReader(r, s.maxMessage)
		for {
			body, err := rd.read()
			if errors.Is(err, errMessageTooLarge) {
				s.logf(msgWarning, "%v: message skipped", err)
				continue
			}
			if err != nil {
				errc <- err
				return
			}
			select {
			case msgs <- body:
			case <-ctx.Done():
				errc <- ctx.Err()
				return
			}
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-errc:
			return err
		case body := <-msgs:
			if done, err := s.handle(ctx, body); done {
				return err
			}
		}
	}
}

// handle dispatches one message; done is true when the client sent exit.
func (s *Server) handle(ctx context.Context, body []byte) (done bool, err error) {
	defer func() {
		if r := recover(); r != nil {
			s.logf(msgError, "internal error handling a message: %v\n%s", r, debug.Stack())
		}
	}()
	var m message
	if err := json.Unmarshal(body, &m); err != nil {
		s.replyError(json.RawMessage("null"), codeParseError, "invalid JSON: "+shorten(err.Error()))
		return false, nil
	}
	isRequest := len(m.ID) > 0 && string(m.ID) != "null"
	if m.Method == "" {
		if !isRequest {
			s.replyError(json.RawMessage("null"), codeInvalidRequest, "a message with no method")
		}
		return false, nil // a response to a request of ours, or nothing
	}
	if isRequest && !validID(m.ID) {
		s.replyError(json.RawMessage("null"), codeInvalidRequest, "an id must be a number or a string")
		return false, nil
	}
	s.mu.Lock()
	initDone, shut := s.initDone, s.shutdown
	s.mu.Unlock()
	switch {
	case m.Method == "exit":
		if !shut {
			return true, ErrNoShutdown
		}
		return true, nil
	case !isRequest:
		if initDone && !shut || m.Method == "initialized" {
			s.notify(m.Method, m.Params)
		}
		return false, nil
	case m.Method == "initialize":
		s.initialize(m.ID, m.Params)
		return false, nil
	case !initDone:
		s.replyError(m.ID, codeServerNotInitialized, "initialize first")
		return false, nil
	case m.Method == "shutdown":
		s.mu.Lock()
		s.shutdown = true
		s.mu.Unlock()
		s.reply(m.ID, nil)
		return false, nil
	case shut:
		s.replyError(m.ID, codeInvalidRequest, "the server is shutting down")
		return false, nil
	}
	s.request(ctx, m)
	return false, nil
}

// validID reports whether id is a JSON number or string.
func validID(id json.RawMessage) bool {
	var v any
	if json.Unmarshal(id, &v) != nil {
		return false
	}
	switch v.(type) {
	case float64, string:
		return true
	}
	return false
}

// request runs a request in its own goroutine, at most maxInFlight at once,
// under the request timeout, cancellable by $/cancelRequest.
func (s *Server) request(ctx context.Context, m message) {
	handler, ok := requestHandlers[m.Method]
	if !ok {
		s.replyError(m.ID, codeMethodNotFound, "method not supported: "+shorten(m.Method))
		return
	}
	rctx, cancel := context.WithTimeout(ctx, s.requestTimeout)
	key := string(m.ID)
	s.mu.Lock()
	s.inflight[key] = cancel
	s.wg.Add(1)
	s.mu.Unlock()
	go func() {
		defer s.wg.Done()
		defer func() {
			s.mu.Lock()
			delete(s.inflight, key)
			s.mu.Unlock()
			cancel()
		}()
		select {
		case s.reqSem <- struct{}{}:
			defer func() { <-s.reqSem }()
		case <-rctx.Done():
			s.replyError(m.ID, codeRequestCancelled, "request cancelled")
			return
		}
		result, err := s.safely(rctx, handler, m.Params)
		switch {
		case rctx.Err() != nil && err != nil:
			s.replyError(m.ID, codeRequestCancelled, "request cancelled")
		case errors.Is(err, errInvalidParams):
			s.replyError(m.ID, codeInvalidParams, err.Error())
		case err != nil:
			s.logf(msgError, "%s: %v", m.Method, err)
			s.replyError(m.ID, codeInternalError, err.Error())
		default:
			s.reply(m.ID, result)
		}
	}()
}

// errInvalidParams marks a request's parameters as unreadable.
var errInvalidParams = errors.New("invalid params")

// requestHandler answers a request.
type requestHandler func(s *Server, ctx context.Context, params json.RawMessage) (any, error)

// requestHandlers are the requests the server answers, besides initialize
// and shutdown.
var requestHandlers = map[string]requestHandler{
	"textDocument/hover":      (*Server).hover,
	"textDocument/completion": (*Server).completion,
	"textDocument/definition": (*Server).definition,
	"textDocument/codeAction": (*Server).codeActions,
}

// safely runs h, turning a panic into an error.
func (s *Server) safely(ctx context.Context, h requestHandler, params json.RawMessage) (result any, err error) {
	defer func() {
		if r := recover(); r != nil {
			s.logf(msgError, "internal error: %v\n%s", r, debug.Stack())
			result, err = nil, fmt.Errorf("internal error: %v", r)
		}
	}()
	return h(s, ctx, params)
}

// decodeParams decodes a request's or notification's parameters.
func decodeParams(params json.RawMessage, v any) error {
	if len(params) == 0 {
		return fmt.Errorf("%w: none given", errInvalidParams)
	}
	if err := json.Unmarshal(params, v); err != nil {
		return fmt.Errorf("%w: %s", errInvalidParams, shorten(err.Error()))
	}
	return nil
}

// initialize answers the initialize request with the server's
// capabilities and reads the settings in initializationOptions.
func (s *Server) initialize(id json.RawMessage, params json.RawMessage) {
	var p initializeParams
	if len(params) > 0 {
		if err := json.Unmarshal(params, &p); err != nil {
			s.replyError(id, codeInvalidParams, "initialize: "+shorten(err.Error()))
			return
		}
	}
	if len(p.InitializationOptions) > 0 {
		if err := s.applySettings(p.InitializationOptions); err != nil {
			s.logf(msgWarning, "initializationOptions: %v", err)
		}
	}
	s.mu.Lock()
	s.initDone = true
	s.mu.Unlock()
	s.reply(id, map[string]any{
		"capabilities": map[string]any{
			"positionEncoding": "utf-16",
			"textDocumentSync": map[string]any{
				"openClose": true,
				"change":    1, // full
				"save":      map[string]any{"includeText": false},
			},
			"hoverProvider":      true,
			"definitionProvider": true,
			"completionProvider": map[string]any{"triggerCharacters": []string{":", " ", "-"}},
			"codeActionProvider": map[string]any{"codeActionKinds": []string{"quickfix"}},
		},
		"serverInfo": map[string]any{"name": "xpkg-lsp"},
	})
}

// notify handles a notification, in the order received.
func (s *Server) notify(method string, params json.RawMessage) {
	var err error
	switch method {
	case "initialized", "$/setTrace", "$/progress", "workspace/didChangeWatchedFiles":
	case "textDocument/didOpen":
		var p didOpenParams
		if err = decodeParams(params, &p); err == nil {
			err = s.open(p.TextDocument)
		}
	case "textDocument/didChange":
		var p didChangeParams
		if err = decodeParams(params, &p); err == nil {
			err = s.change(p)
		}
	case "textDocument/didSave":
		var p didSaveParams
		if err = decodeParams(params, &p); err == nil {
			s.saved(p.TextDocument.URI)
		}
	case "textDocument/didClose":
		var p didCloseParams
		if err = decodeParams(params, &p); err == nil {
			s.close(p.TextDocument.URI)
		}
	case "workspace/didChangeConfiguration":
		var p didChangeConfigurationParams
		if err = decodeParams(params, &p); err == nil {
			if err = s.applySettings(p.Settings); err == nil {
				s.relintAll()
			}
		}
	case "$/cancelRequest":
		var p cancelParams
		if err = decodeParams(params, &p); err == nil {
			s.mu.Lock()
			if cancel := s.inflight[string(p.ID)]; cancel != nil {
				cancel()
			}
			s.mu.Unlock()
		}
	default:
		if !strings.HasPrefix(method, "$/") {
			s.logf(msgLog, "notification not handled: %s", shorten(method))
		}
	}
	if err != nil {
		s.logf(msgWarning, "%s: %v", method, err)
	}
}

// reply sends a response.
func (s *Server) reply(id json.RawMessage, result any) {
	if err := s.out.write(response{JSONRPC: "2.0", ID: id, Result: result}); err != nil {
		s.writeFailed(err)
	}
}

// replyError sends an error response.
func (s *Server) replyError(id json.RawMessage, code int, msg string) {
	if err := s.out.write(errorResponse{JSONRPC: "2.0", ID: id, Error: rpcError{Code: code, Message: msg}}); err != nil {
		s.writeFailed(err)
	}
}

// send sends a notification.
func (s *Server) send(method string, params any) {
	if err := s.out.write(notification{JSONRPC: "2.0", Method: method, Params: params}); err != nil {
		s.writeFailed(err)
	}
}

// writeFailed ends the session: the client is gone.
func (s *Server) writeFailed(error) {
	s.mu.Lock()
	cancel := s.cancel
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// Message types of window/logMessage.
const (
	msgError   = 1
	msgWarning = 2
	msgLog     = 4
)

// logf sends a window/logMessage, bounded in length.
func (s *Server) logf(typ int, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	const max = 8 << 10
	if len(msg) > max {
		msg = msg[:max] + "..."
	}
	s.send("window/logMessage", logMessageParams{Type: typ, Message: msg})
}
