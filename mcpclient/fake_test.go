package mcpclient_test

// A small stdio server the tests run as a subprocess (the test binary
// re-executed with fakeEnv set). Its methods each misbehave or behave in
// one way, so one server covers every case; it shares no code with the
// client.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
)

const fakeEnv = "AGENT3MD_CLIENT_FAKE_SERVER"

func TestMain(m *testing.M) {
	switch os.Getenv(fakeEnv) {
	case "":
		os.Exit(m.Run())
	case "echo":
		io.Copy(os.Stdout, os.Stdin)
		os.Exit(0)
	default:
		os.Exit(serveFake(os.Stdin, os.Stdout))
	}
}

// fakeCommand is the argv and environment of the fake server.
func fakeArgv(t *testing.T) []string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return []string{self, "-test.run=^$"}
}

type fakeMsg struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
}

// serveFake answers, by method:
//
//   - ping: {} at once;
//   - hold: nothing yet; flush answers every held request in reverse
//     order, a notifications/message before each, then itself;
//   - garbage: a line that is not JSON, then {"ok":true};
//   - long: a line of 4,096 bytes, then {"ok":true};
//   - die: half an answer, then exits;
//   - ask: roots/list to the client, then the answer's result;
//   - tools/call: three progress notifications for the call's token,
//     then a result;
//   - subscriptions/listen: an acknowledgement and two notifications
//     tagged with the request's id, one untagged, and the answer once
//     notifications/cancelled names it.
func serveFake(in io.Reader, out io.Writer) int {
	w := bufio.NewWriter(out)
	send := func(v any) {
		b, _ := json.Marshal(v)
		w.Write(append(b, '\n'))
		w.Flush()
	}
	answer := func(id json.RawMessage, result any) {
		send(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(nil, 1<<20)
	var held []fakeMsg
	listens := map[string]json.RawMessage{}
	for sc.Scan() {
		var m fakeMsg
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		switch m.Method {
		case "ping":
			answer(m.ID, map[string]any{})
		case "hold":
			held = append(held, m)
		case "flush":
			for i := len(held) - 1; i >= 0; i-- {
				send(map[string]any{"jsonrpc": "2.0", "method": "notifications/message", "params": map[string]any{"data": string(held[i].ID)}})
				answer(held[i].ID, map[string]any{"id": held[i].ID})
			}
			held = nil
			answer(m.ID, map[string]any{})
		case "garbage":
			w.WriteString("this is not JSON\n")
			answer(m.ID, map[string]any{"ok": true})
		case "long":
			w.WriteString(`{"jsonrpc":"2.0","method":"x","params":"` + strings.Repeat("y", 4096) + "\"}\n")
			answer(m.ID, map[string]any{"ok": true})
		case "die":
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"res`, m.ID)
			w.Flush()
			return 0
		case "ask":
			send(map[string]any{"jsonrpc": "2.0", "id": "srv-1", "method": "roots/list"})
			if !sc.Scan() {
				return 1
			}
			var got fakeMsg
			json.Unmarshal(sc.Bytes(), &got)
			answer(m.ID, map[string]any{"asked": got.Result})
		case "tools/call":
			var p struct {
				Meta struct {
					Token json.RawMessage `json:"progressToken"`
				} `json:"_meta"`
			}
			json.Unmarshal(m.Params, &p)
			for i := 1; i <= 3; i++ {
				send(map[string]any{"jsonrpc": "2.0", "method": "notifications/progress", "params": map[string]any{"progressToken": p.Meta.Token, "progress": i}})
			}
			answer(m.ID, map[string]any{"content": []any{map[string]any{"type": "text", "text": "done"}}})
		case "subscriptions/listen":
			listens[string(m.ID)] = m.ID
			tag := map[string]any{"io.modelcontextprotocol/subscriptionId": m.ID}
			send(map[string]any{"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged", "params": map[string]any{"_meta": tag}})
			send(map[string]any{"jsonrpc": "2.0", "method": "notifications/message", "params": map[string]any{"data": "untagged"}})
			send(map[string]any{"jsonrpc": "2.0", "method": "notifications/resources/list_changed", "params": map[string]any{"_meta": tag}})
			send(map[string]any{"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": map[string]any{"_meta": tag}})
		case "notifications/cancelled":
			var p struct {
				RequestID json.RawMessage `json:"requestId"`
			}
			json.Unmarshal(m.Params, &p)
			if id, ok := listens[string(p.RequestID)]; ok {
				answer(id, map[string]any{})
			}
		}
	}
	return 0
}
