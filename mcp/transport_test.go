package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// The wire tests drive each SDK error a client can provoke; an uncoded
// error from anywhere else must still leave with a valid code.
func TestUncodedErrorsGetAValidCode(t *testing.T) {
	for _, tc := range []struct {
		err  error
		code int64
	}{
		{errors.New("something broke"), jsonrpc.CodeInternalError},
		{fmt.Errorf(`method "tools/list" is invalid during session initialization`), CodeServerNotInitialized},
		{&jsonrpc.Error{Code: 0, Message: "zero"}, jsonrpc.CodeInternalError},
		{fmt.Errorf("wrapped: %w", &jsonrpc.Error{Code: -32601, Message: "nope"}), -32601},
	} {
		resp := withValidCode(&jsonrpc.Response{Error: tc.err})
		var wire *jsonrpc.Error
		if !errors.As(resp.Error, &wire) || wire.Code != tc.code {
			t.Errorf("%v: code %v, want %d", tc.err, resp.Error, tc.code)
		}
	}
}

// A cancellation names the call by the client's id; the SDK knows the
// call by the transport's wire id, so the transport translates.
func TestCancellationNamesTheWireID(t *testing.T) {
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1.5,"method":"tools/call","params":{"name":"x","arguments":{}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1.5,"reason":"enough"}}` + "\n")
	tr := &stdioTransport{in: in, out: io.Discard, drainTimeout: time.Second}
	conn, err := tr.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	call, err := conn.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	wireID := call.(*jsonrpc.Request).ID.Raw()
	cancel, err := conn.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		RequestID any    `json:"requestId"`
		Reason    string `json:"reason"`
	}
	if err := json.Unmarshal(cancel.(*jsonrpc.Request).Params, &p); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(p.RequestID) != fmt.Sprint(wireID) || p.Reason != "enough" {
		t.Errorf("cancellation names %v (%q), want the wire id %v", p.RequestID, p.Reason, wireID)
	}
}
