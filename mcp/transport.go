package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tidwall/gjson"

	"github.com/gloss-dev/gloss/runenv"
)

// stdioTransport is gloss's own newline-delimited JSON-RPC transport. The
// SDK's StdioTransport ends the session on a malformed line or invalid
// bytes, and drops answers to requests still running when stdin closes
// (go-sdk #1209, #1061). This one reads line by line, answers what it
// cannot decode with the JSON-RPC error the spec asks for and keeps
// serving, and at EOF waits for every accepted call to be answered before
// reporting the end of input.
type stdioTransport struct {
	in  io.Reader
	out io.Writer

	// initializeExtras are top-level fields spliced into the result of
	// initialize (schemaNote, projectNote), which the SDK's fixed result
	// type cannot carry.
	initializeExtras func() map[string]string

	// drainTimeout bounds the wait for in-flight calls at EOF.
	drainTimeout time.Duration

	// maxLine bounds one message in bytes; 0 means GLOSS_MCP_MAX_LINE or
	// DefaultMaxLine.
	maxLine int
}

// Connect implements sdk.Transport.
func (t *stdioTransport) Connect(context.Context) (sdk.Connection, error) {
	c := &stdioConn{
		t:        t,
		msgs:     make(chan jsonrpc.Message),
		done:     make(chan struct{}),
		inflight: map[int64]bool{},
		rawIDs:   map[int64][]byte{},
		byRawID:  map[string]int64{},
		maxLine:  t.maxLine,
	}
	if c.maxLine <= 0 {
		c.maxLine = maxLineFromEnv()
	}
	c.idle = sync.NewCond(&c.mu)
	go c.readLoop()
	return c, nil
}

type stdioConn struct {
	t       *stdioTransport
	msgs    chan jsonrpc.Message
	done    chan struct{} // closed by Close
	maxLine int

	writeMu sync.Mutex

	mu       sync.Mutex
	idle     *sync.Cond
	inflight map[int64]bool // wire ids of calls accepted and not yet answered
	// The SDK sees every call under a wire id of the transport's own
	// (an int64), because it decodes ids into float64 or int64 and would
	// answer 1.5 as 1, change large integers and choke on 1e400. rawIDs
	// keeps the client's id bytes to write back verbatim; byRawID finds
	// the wire id again for notifications/cancelled.
	rawIDs    map[int64][]byte
	byRawID   map[string]int64
	nextID    int64
	initID    int64 // wire id of the initialize request, 0 before it
	readErr   error // why reading stopped
	closeOnce sync.Once
}

// DefaultMaxLine bounds one message (one line) unless GLOSS_MCP_MAX_LINE
// says otherwise. A longer line is answered with -32600 and skipped in
// bounded memory; the server keeps serving.
const DefaultMaxLine = 4 << 20

// EnvMaxLine names the environment variable that sets the line limit in
// bytes.
const EnvMaxLine = runenv.MCPMaxLine

func maxLineFromEnv() int {
	v := strings.TrimSpace(os.Getenv(EnvMaxLine))
	if v == "" {
		return DefaultMaxLine
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		slog.Warn("mcp: ignoring invalid "+EnvMaxLine+"; want a positive number of bytes", "value", v, "using", DefaultMaxLine)
		return DefaultMaxLine
	}
	return n
}

func (c *stdioConn) readLoop() {
	defer close(c.msgs)
	r := bufio.NewReaderSize(c.t.in, 64<<10)
	for {
		line, oversized, err := readLine(r, c.maxLine)
		var msg jsonrpc.Message
		switch {
		case oversized:
			c.rejectOversized(line)
		case len(bytes.TrimSpace(line)) > 0:
			msg = c.decode(line)
		}
		line = nil // an oversized prefix must not outlive its line
		if msg != nil {
			select {
			case c.msgs <- msg:
			case <-c.done:
				return
			}
		}
		if err != nil {
			c.mu.Lock()
			c.readErr = err
			c.mu.Unlock()
			return
		}
	}
}

// readLine reads up to and including the next newline. A line longer than
// limit is read to its end but only its first limit bytes are kept, so a
// huge line costs at most limit bytes of memory; oversized reports it.
func readLine(r *bufio.Reader, limit int) (line []byte, oversized bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		content := bytes.TrimRight(chunk, "\r\n")
		switch {
		case oversized:
		case len(line)+len(content) > limit:
			oversized = true
			line = append(line, content[:limit-len(line)]...)
		default:
			line = append(line, chunk...)
		}
		if err != bufio.ErrBufferFull {
			return line, oversized, err
		}
	}
}

// rejectOversized answers a line over the limit. The id is taken from the
// kept prefix when it is complete there (it usually comes first), so the
// caller waiting on it is not left hanging.
func (c *stdioConn) rejectOversized(prefix []byte) {
	var id []byte
	if v := gjson.GetBytes(prefix, "id"); v.Type == gjson.String || v.Type == gjson.Number {
		if json.Valid([]byte(v.Raw)) && utf8.ValidString(v.Raw) {
			id = []byte(v.Raw)
		}
	}
	c.writeError(id, jsonrpc.CodeInvalidRequest, fmt.Sprintf(
		"Invalid Request: message longer than the limit of %d bytes (set %s to change it)", c.maxLine, EnvMaxLine))
}

// decode turns one line into a message for the SDK, or answers it directly
// with an error and returns nil.
func (c *stdioConn) decode(line []byte) jsonrpc.Message {
	line = bytes.TrimSpace(line)
	if !json.Valid(line) {
		c.writeError(nil, jsonrpc.CodeParseError, "Parse error")
		return nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(line, &fields); err != nil {
		// A batch array or a bare value: not a request object.
		c.writeError(nil, jsonrpc.CodeInvalidRequest, "Invalid Request: a message must be a JSON object")
		return nil
	}
	rawID, hasID := fields["id"]
	if hasID && !validID(rawID) {
		// JSON-RPC 2.0: an id that cannot be used is answered with id
		// null. Echoing it is not an option when it is not valid UTF-8:
		// the reply line would not be JSON.
		c.writeError(nil, jsonrpc.CodeInvalidRequest, "Invalid Request: id must be a string (valid UTF-8) or a number")
		return nil
	}
	if _, isRequest := fields["method"]; isRequest {
		return c.decodeRequest(fields, rawID)
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		c.writeError(rawID, jsonrpc.CodeInvalidRequest, "Invalid Request: "+err.Error())
		return nil
	}
	return msg
}

// validID reports whether a raw id is a JSON string, number or null
// that can be echoed back as it came: its bytes are valid UTF-8 (json.Valid
// lets invalid bytes inside a string pass, and the answer repeats them).
func validID(raw json.RawMessage) bool {
	switch {
	case len(raw) == 0 || !utf8.Valid(raw):
		return false
	case raw[0] == '"', raw[0] == '-', raw[0] >= '0' && raw[0] <= '9':
		return true
	}
	return string(raw) == "null"
}

// decodeRequest hands a request to the SDK under a wire id of the
// transport's own, remembering the client's id bytes for the answer.
func (c *stdioConn) decodeRequest(fields map[string]json.RawMessage, rawID json.RawMessage) jsonrpc.Message {
	if string(rawID) == "null" {
		// JSON-RPC allows a null id; MCP does not, and a null-id answer
		// would be indistinguishable from a parse error's.
		c.writeError(rawID, jsonrpc.CodeInvalidRequest, "Invalid Request: id must not be null")
		return nil
	}
	var wireID int64
	c.mu.Lock()
	if rawID != nil {
		c.nextID++
		wireID = c.nextID
		fields["id"] = json.RawMessage(strconv.FormatInt(wireID, 10))
	}
	if method := fields["method"]; string(method) == `"notifications/cancelled"` {
		fields["params"] = c.mapCancelled(fields["params"])
	}
	c.mu.Unlock()
	data, err := json.Marshal(fields)
	if err == nil {
		var msg jsonrpc.Message
		if msg, err = jsonrpc.DecodeMessage(data); err == nil {
			c.accept(msg, wireID, rawID)
			return msg
		}
	}
	c.writeError(rawID, jsonrpc.CodeInvalidRequest, "Invalid Request: "+err.Error())
	return nil
}

// accept records a call the SDK will answer.
func (c *stdioConn) accept(msg jsonrpc.Message, wireID int64, rawID []byte) {
	req, ok := msg.(*jsonrpc.Request)
	if !ok || wireID == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.inflight[wireID] = true
	c.rawIDs[wireID] = rawID
	c.byRawID[string(rawID)] = wireID
	if req.Method == "initialize" {
		c.initID = wireID
	}
}

// mapCancelled points a cancellation's requestId at the wire id the SDK
// knows the call by. Called with c.mu held.
func (c *stdioConn) mapCancelled(params json.RawMessage) json.RawMessage {
	var p map[string]json.RawMessage
	if json.Unmarshal(params, &p) != nil {
		return params
	}
	wireID, ok := c.byRawID[string(p["requestId"])]
	if !ok {
		return params
	}
	p["requestId"] = json.RawMessage(strconv.FormatInt(wireID, 10))
	out, err := json.Marshal(p)
	if err != nil {
		return params
	}
	return out
}

// Read implements sdk.Connection. At the end of input it first waits for
// the calls already accepted to be answered.
func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case msg, ok := <-c.msgs:
		if ok {
			return msg, nil
		}
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.done:
		return nil, io.EOF
	}
	c.drain()
	c.mu.Lock()
	err := c.readErr
	c.mu.Unlock()
	if err == nil || errors.Is(err, io.EOF) {
		return nil, io.EOF
	}
	return nil, err
}

// drain waits, up to drainTimeout, until no accepted call is unanswered.
func (c *stdioConn) drain() {
	deadline := time.Now().Add(c.t.drainTimeout)
	timer := time.AfterFunc(c.t.drainTimeout, func() {
		c.mu.Lock()
		c.idle.Broadcast()
		c.mu.Unlock()
	})
	defer timer.Stop()
	c.mu.Lock()
	defer c.mu.Unlock()
	for len(c.inflight) > 0 && time.Now().Before(deadline) {
		c.idle.Wait()
	}
	if n := len(c.inflight); n > 0 {
		slog.Warn("mcp: input closed with calls still running; giving up on them", "calls", n)
	}
}

// Write implements sdk.Connection.
func (c *stdioConn) Write(_ context.Context, msg jsonrpc.Message) error {
	resp, ok := msg.(*jsonrpc.Response)
	if !ok {
		data, err := jsonrpc.EncodeMessage(msg)
		if err != nil {
			return err
		}
		return c.writeLine(data)
	}
	resp = withValidCode(resp)
	data, err := jsonrpc.EncodeMessage(resp)
	if err != nil {
		return err
	}
	wireID, _ := resp.ID.Raw().(int64)
	c.mu.Lock()
	rawID, known := c.rawIDs[wireID]
	isInit := known && wireID == c.initID
	c.mu.Unlock()
	if !known {
		return c.writeLine(data)
	}
	if isInit && resp.Error == nil && c.t.initializeExtras != nil {
		data = spliceResult(data, c.t.initializeExtras())
	}
	defer c.answered(wireID, rawID)
	return c.writeLine(replaceID(data, rawID))
}

// replaceID puts the client's id bytes in place of the wire id.
func replaceID(data, rawID []byte) []byte {
	v := gjson.GetBytes(data, "id")
	if v.Index <= 0 {
		return data
	}
	out := make([]byte, 0, len(data)+len(rawID))
	out = append(out, data[:v.Index]...)
	out = append(out, rawID...)
	return append(out, data[v.Index+len(v.Raw):]...)
}

func (c *stdioConn) answered(wireID int64, rawID []byte) {
	c.mu.Lock()
	delete(c.inflight, wireID)
	delete(c.rawIDs, wireID)
	if c.byRawID[string(rawID)] == wireID {
		delete(c.byRawID, string(rawID))
	}
	if len(c.inflight) == 0 {
		c.idle.Broadcast()
	}
	c.mu.Unlock()
}

// CodeServerNotInitialized answers a request sent before initialize (the
// code LSP uses for the same case, in JSON-RPC's server-error range).
const CodeServerNotInitialized = -32002

// withValidCode gives an error response a JSON-RPC code. The SDK sends
// some errors as plain Go errors, which go out with code 0, a code no
// client can branch on.
func withValidCode(resp *jsonrpc.Response) *jsonrpc.Response {
	if resp.Error == nil {
		return resp
	}
	var wire *jsonrpc.Error
	if errors.As(resp.Error, &wire) && wire.Code != 0 {
		return resp
	}
	fixed := *resp
	code, message := codeFor(resp.Error.Error())
	fixed.Error = &jsonrpc.Error{Code: code, Message: message}
	return &fixed
}

// codeFor classifies the SDK's uncoded errors by their text (the SDK
// version is pinned, and wire tests cover each case).
func codeFor(message string) (int64, string) {
	switch {
	case strings.Contains(message, "invalid during session initialization"):
		return CodeServerNotInitialized, "Server not initialized: " + message + "; send initialize first"
	case strings.Contains(message, `duplicate "initialize"`):
		return jsonrpc.CodeInvalidRequest, "Invalid Request: " + message
	case strings.Contains(message, `missing required "params"`),
		strings.Contains(message, "unmarshaling"),
		strings.Contains(message, "cursor"),
		strings.Contains(message, "page token"):
		return jsonrpc.CodeInvalidParams, "Invalid params: " + message
	}
	return jsonrpc.CodeInternalError, "Internal error: " + message
}

// spliceResult adds top-level fields to a response's result object.
func spliceResult(data []byte, extras map[string]string) []byte {
	if len(extras) == 0 {
		return data
	}
	var env map[string]json.RawMessage
	if json.Unmarshal(data, &env) != nil {
		return data
	}
	var result map[string]json.RawMessage
	if json.Unmarshal(env["result"], &result) != nil {
		return data
	}
	for k, v := range extras {
		if v == "" {
			continue
		}
		raw, _ := json.Marshal(v)
		result[k] = raw
	}
	env["result"], _ = json.Marshal(result)
	out, err := json.Marshal(env)
	if err != nil {
		return data
	}
	return out
}

// writeError answers with an error; rawID nil means a null id.
func (c *stdioConn) writeError(rawID []byte, code int64, message string) {
	if rawID == nil {
		rawID = []byte("null")
	}
	body, _ := json.Marshal(map[string]any{"code": code, "message": message})
	data := make([]byte, 0, len(body)+len(rawID)+40)
	data = append(data, `{"jsonrpc":"2.0","id":`...)
	data = append(data, rawID...)
	data = append(data, `,"error":`...)
	data = append(append(data, body...), '}')
	_ = c.writeLine(data)
}

func (c *stdioConn) writeLine(data []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	buf := make([]byte, 0, len(data)+1)
	buf = append(append(buf, data...), '\n')
	_, err := c.t.out.Write(buf)
	return err
}

// Close implements sdk.Connection.
func (c *stdioConn) Close() error {
	c.closeOnce.Do(func() { close(c.done) })
	return nil
}

// SessionID implements sdk.Connection; stdio has one session.
func (c *stdioConn) SessionID() string { return "" }
