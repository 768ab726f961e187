package mcp

import (
	"fmt"
	"strings"
	"testing"
)

// TestPooledToolBuffersNotShared: tool results are encoded into pooled
// buffers that the stdio connection recycles once an answer is copied
// out. A result the answer cache keeps must never go back to the pool,
// or the next answer encoded would overwrite it: every cached get_skill
// answer, read again among routes and first reads of other skills (each
// encoded into a recycled buffer), must still be byte for byte what it
// was.
func TestPooledToolBuffersNotShared(t *testing.T) {
	a := openSynth(t, 1000)
	skills := a.Skills()
	c := newPipeClient(t, a)
	defer c.close(t)
	c.roundTrip(t, benchInit)
	first := map[string]string{} // skill -> its answer after the id
	var read []string
	get := func(id int, name string) {
		t.Helper()
		got := c.roundTrip(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"get_skill","arguments":{"name":%q}}}`, id, name))
		prefix := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"content"`, id)
		if !strings.HasPrefix(got, prefix) {
			t.Fatalf("get_skill %s: %.300s", name, got)
		}
		rest := got[len(prefix):]
		if was, ok := first[name]; !ok {
			first[name] = rest
			read = append(read, name)
		} else if rest != was {
			t.Fatalf("the cached answer for %s changed:\nwas %.300s\nnow %.300s", name, was, rest)
		}
	}
	for i := 0; i < 600; i++ {
		id := 100 + i
		switch i % 3 {
		case 0: // a route: a bigger answer
			got := c.roundTrip(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"route_skill","arguments":{"text":"please deploy the nightly report %d"}}}`, id, i))
			if !strings.HasPrefix(got, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"content"`, id)) {
				t.Fatalf("route %d: %.300s", i, got)
			}
		case 1: // a skill read for the first time: encoded now
			get(id, skills[(i*7)%len(skills)].Name)
		case 2: // a skill read before: served from the answer cache
			get(id, read[(i*13)%len(read)])
		}
	}
}
