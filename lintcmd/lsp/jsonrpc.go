package lsp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
)

// JSON-RPC 2.0 error codes the server answers with.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
	codeInternalError  = -32603
	// LSP's: a request before initialize, a cancelled request.
	codeServerNotInitialized = -32002
	codeRequestCancelled     = -32800
)

// Bounds of the framing: a header line, the headers of one message.
const (
	maxHeaderLine  = 4 << 10
	maxHeaderLines = 32
)

// errMessageTooLarge is wrapped by the error the server logs when a
// message's Content-Length is above the cap (WithMaxMessageSize): its body
// is skipped, never held.
var errMessageTooLarge = errors.New("lsp: message larger than the cap")

// ErrFraming is wrapped by the errors of a message whose headers are
// malformed (no Content-Length, a header line too long): the stream cannot
// be resynchronised, and Serve returns it.
var ErrFraming = errors.New("lsp: malformed message framing")

// message is one JSON-RPC message: a request (ID and Method), a
// notification (Method only) or a response (ID, Result or Error).
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// response is a response to a request; Result is encoded even when nil
// (JSON-RPC wants "result": null on success).
type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result"`
}

// errorResponse is a response carrying an error.
type errorResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   rpcError        `json:"error"`
}

// notification is a message from the server that wants no answer, or a
// request from the server (with an ID).
type notification struct {
	JSONRPC string `json:"jsonrpc"`
	ID      *int64 `json:"id,omitempty"`
	Method  string `json:"method"`
	Params  any    `json:"params"`
}

// reader reads framed messages: headers ("Content-Length: N", optionally
// "Content-Type"), a blank line, and N bytes of JSON.
type reader struct {
	r   *bufio.Reader
	max int64
}

func newReader(r io.Reader, max int64) *reader {
	return &reader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// read returns the next message's body. A body over the cap is skipped
// (streamed to io.Discard) and read returns errMessageTooLarge, after which
// the next call reads the following message; ErrFraming and I/O errors end
// the stream.
func (rd *reader) read() ([]byte, error) {
	length := int64(-1)
	for i := 0; ; i++ {
		if i >= maxHeaderLines {
			return nil, fmt.Errorf("%w: more than %d header lines", ErrFraming, maxHeaderLines)
		}
		line, err := rd.line()
		if err != nil {
			return nil, err
		}
		if line == "" {
			if i == 0 {
				i = -1 // blank lines between messages are tolerated
				continue
			}
			break
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			return nil, fmt.Errorf("%w: header line %q", ErrFraming, shorten(line))
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
			if err != nil || n < 0 {
				return nil, fmt.Errorf("%w: Content-Length %q", ErrFraming, shorten(value))
			}
			length = n
		}
	}
	if length < 0 {
		return nil, fmt.Errorf("%w: no Content-Length", ErrFraming)
	}
	if length > rd.max {
		if _, err := io.CopyN(io.Discard, rd.r, length); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%w: %d bytes, cap %d", errMessageTooLarge, length, rd.max)
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(rd.r, body); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return body, nil
}

// line reads one header line without its CRLF (or LF), at most
// maxHeaderLine bytes.
func (rd *reader) line() (string, error) {
	var buf []byte
	for {
		frag, err := rd.r.ReadSlice('\n')
		buf = append(buf, frag...)
		if len(buf) > maxHeaderLine {
			return "", fmt.Errorf("%w: header line longer than %d bytes", ErrFraming, maxHeaderLine)
		}
		if err == nil {
			break
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if errors.Is(err, io.EOF) && len(buf) > 0 {
			return "", io.ErrUnexpectedEOF
		}
		return "", err
	}
	return string(bytes.TrimRight(buf, "\r\n")), nil
}

// shorten bounds a text from the stream for an error message.
func shorten(s string) string {
	const max = 64
	if len(s) > max {
		s = s[:max] + "..."
	}
	return strconv.Quote(s)
}

// writer writes framed messages, one at a time.
type writer struct {
	mu sync.Mutex
	w  io.Writer
}

// write encodes v and writes it with its header.
func (wr *writer) write(v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("lsp: encoding a message: %w", err)
	}
	wr.mu.Lock()
	defer wr.mu.Unlock()
	if _, err := fmt.Fprintf(wr.w, "Content-Length: %d\r\n\r\n", len(body)); err != nil {
		return err
	}
	_, err = wr.w.Write(body)
	return err
}
