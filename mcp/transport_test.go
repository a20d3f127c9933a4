package mcp

import (
	"errors"
	"fmt"
	"testing"

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
