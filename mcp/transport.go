package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tidwall/gjson"
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
}

// Connect implements sdk.Transport.
func (t *stdioTransport) Connect(context.Context) (sdk.Connection, error) {
	c := &stdioConn{
		t:        t,
		msgs:     make(chan jsonrpc.Message),
		done:     make(chan struct{}),
		inflight: map[any]bool{},
	}
	c.idle = sync.NewCond(&c.mu)
	go c.readLoop()
	return c, nil
}

type stdioConn struct {
	t    *stdioTransport
	msgs chan jsonrpc.Message
	done chan struct{} // closed by Close

	writeMu sync.Mutex

	mu        sync.Mutex
	idle      *sync.Cond
	inflight  map[any]bool // ids of calls accepted and not yet answered
	initID    any          // id of the initialize request, once seen
	readErr   error        // why reading stopped
	closeOnce sync.Once
}

// maxLine bounds one message; a longer line is answered with -32700.
const maxLine = 64 << 20

func (c *stdioConn) readLoop() {
	defer close(c.msgs)
	r := bufio.NewReaderSize(c.t.in, 64<<10)
	for {
		line, err := r.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			if msg := c.decode(line); msg != nil {
				select {
				case c.msgs <- msg:
				case <-c.done:
					return
				}
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

// decode turns one line into a message for the SDK, or answers it directly
// with an error and returns nil.
func (c *stdioConn) decode(line []byte) jsonrpc.Message {
	line = bytes.TrimSpace(line)
	if len(line) > maxLine || !json.Valid(line) {
		c.writeError(nil, jsonrpc.CodeParseError, "Parse error")
		return nil
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		// Valid JSON but not a JSON-RPC 2.0 message: a batch array, a
		// wrong or missing "jsonrpc", a bad id.
		var id any
		if v := gjson.GetBytes(line, "id"); v.Exists() && (v.Type == gjson.String || v.Type == gjson.Number) {
			id = v.Value()
		}
		c.writeError(id, jsonrpc.CodeInvalidRequest, "Invalid Request: "+err.Error())
		return nil
	}
	if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
		c.mu.Lock()
		c.inflight[req.ID.Raw()] = true
		if req.Method == "initialize" {
			c.initID = req.ID.Raw()
		}
		c.mu.Unlock()
	}
	return msg
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
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	if resp, ok := msg.(*jsonrpc.Response); ok {
		id := resp.ID.Raw()
		c.mu.Lock()
		isInit := c.initID != nil && id == c.initID
		c.mu.Unlock()
		if isInit && resp.Error == nil && c.t.initializeExtras != nil {
			data = spliceResult(data, c.t.initializeExtras())
		}
		defer c.answered(id)
	}
	return c.writeLine(data)
}

func (c *stdioConn) answered(id any) {
	c.mu.Lock()
	delete(c.inflight, id)
	if len(c.inflight) == 0 {
		c.idle.Broadcast()
	}
	c.mu.Unlock()
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

func (c *stdioConn) writeError(id any, code int64, message string) {
	resp := map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": message}}
	data, _ := json.Marshal(resp)
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
