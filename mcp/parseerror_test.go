package mcp

import (
	"strings"
	"testing"
)

// TestParseErrorSaysWhere checks the -32700 answer names the byte and the
// reason, and tells JSON nested past the decoder's limit (valid, but
// refused) from a syntax error. Both were "Parse error: invalid JSON".
func TestParseErrorSaysWhere(t *testing.T) {
	deep := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":` + strings.Repeat("[", maxJSONDepth+1) + strings.Repeat("]", maxJSONDepth+1) + "}}"
	for _, c := range []struct{ in, want string }{
		{`{"jsonrpc":"2.0","id":1,"method":"ping",}`, `Parse error: invalid JSON at byte 41: invalid character '}' looking for beginning of object key string`},
		{`{"jsonrpc":"2.0"`, "Parse error: invalid JSON at byte 16: unexpected end of JSON input"},
		{deep, "Parse error: JSON nested deeper than 10000 arrays and objects (at byte "},
	} {
		_, line := decodeMessage([]byte(c.in))
		if !strings.Contains(string(line), `"code":-32700`) || !strings.Contains(string(line), c.want) {
			t.Errorf("%.60s: got %s, want %q", c.in, line, c.want)
		}
	}
	// Just under the limit is an ordinary request.
	ok := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":` + strings.Repeat("[", maxJSONDepth-2) + strings.Repeat("]", maxJSONDepth-2) + "}}"
	if _, line := decodeMessage([]byte(ok)); line != nil {
		t.Errorf("nesting within the limit refused: %s", line)
	}
}
