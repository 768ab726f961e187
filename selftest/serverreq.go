package selftest

import (
	"encoding/json"
	"fmt"
)

// maxServerRequests caps how many server-initiated request methods a conn
// remembers for the report.
const maxServerRequests = 16

// noteMessage handles a message that is not the answer being waited for:
// a response goes to strays, a request from the server is answered at
// once (a server that asks something and waits must never stall the run),
// and a notification is ignored. The error is a failure to write the
// answer.
func (c *conn) noteMessage(m *message) error {
	switch {
	case m.isResponse():
		if len(c.strays) < maxStrays {
			c.strays = append(c.strays, m)
		}
		return nil
	case m.idIsNull():
		return nil // a notification
	case c.awaited.method != "" && m.Method == c.awaited.method && sameID(m.ID, c.awaited.id):
		// Our own request, back as it went: a program that copies its
		// input (cat, tee) rather than a server. Answering it would only
		// have the copy of our answer read as the server's.
		err := fmt.Errorf("the server sent our %s request (id %s) back instead of answering it: is it an MCP server? A program that copies its input, such as cat, does this", m.Method, c.awaited.id)
		c.fail(err)
		return err
	}
	if len(c.asked) < maxServerRequests {
		c.asked = append(c.asked, m.Method)
	}
	b, err := json.Marshal(answerServerRequest(m))
	if err != nil {
		return fmt.Errorf("encode the answer to the server's %s request: %w", m.Method, err)
	}
	return c.writeLine(b)
}

// answerServerRequest is the harness's reply to a request the server sent.
// The harness initializes with empty client capabilities, so it owns no
// roots and offers neither sampling nor elicitation: roots/list gets an
// empty list (a harmless, well-formed answer servers that ask regardless
// can use), ping gets {}, and everything else gets "method not found",
// which is what a client without the capability answers.
func answerServerRequest(m *message) map[string]any {
	resp := map[string]any{"jsonrpc": "2.0", "id": m.ID}
	switch m.Method {
	case "ping":
		resp["result"] = map[string]any{}
	case "roots/list":
		resp["result"] = map[string]any{"roots": []any{}}
	default:
		resp["error"] = map[string]any{
			"code":    codeMethodNotFound,
			"message": fmt.Sprintf("the selftest client does not offer %s (it declared no client capabilities)", m.Method),
		}
	}
	return resp
}
