package mcp

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent3md/agent3md/loader"
)

// chainAgent writes an agent of n skills in which skill-1 links to
// skill-2, and so on up to skill-chain.
func chainAgent(t *testing.T, n, chain int) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("---\n3md: 1.0\ntitle: Chains\nagent: chains\n---\nAn agent with a long dependency chain.\n\n@plane z=0 label=\"chains\" kind=identity\n# chains\n\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "@plane z=%d label=\"skill-%d\" kind=skill triggers=\"do thing %d\"\n# Skill %d\n\nStep %d of the job.", i, i, i, i, i)
		if i < chain {
			fmt.Fprintf(&b, " Then [[z=%d]].", i+1)
		}
		b.WriteString("\n\n")
	}
	path := filepath.Join(t.TempDir(), "chains.3md")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestOneSkillCallsInline: on an agent past inlineSkills, a call about
// one skill (get_skill, fill_skill, resolve_skill of a short chain) is
// answered on the reading goroutine, so it needs no handler slot, while a
// catalog-wide call (list_skills) and a long chain wait for one. With the
// only slot held, the first three answer at once and the others only
// once it is freed.
func TestOneSkillCallsInline(t *testing.T) {
	const n, chain = inlineSkills + 100, 2 * inlineChain
	a, err := loader.Open(chainAgent(t, n, chain), &loader.Options{NoRescan: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	h := serveHarness(t, &Options{Source: Loaded(a), MaxInFlight: 1})
	send := func(line string) {
		t.Helper()
		if _, err := h.in.Write([]byte(line + "\n")); err != nil {
			t.Fatal(err)
		}
	}
	call := func(id int, tool, args string) {
		send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, tool, args))
	}
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	h.byID(1, 30*time.Second)
	send(`{"jsonrpc":"2.0","id":1,"method":"test/wait"}`)                  // holds the slot
	call(2, toolListSkills, `{"query":"thing"}`)                           // catalog-wide: waits
	call(3, toolResolveSkill, `{"name":"skill-1"}`)                        // 32-skill chain: waits
	call(4, toolGetSkill, `{"name":"skill-7"}`)                            // inline
	call(5, toolFillSkill, `{"name":"skill-8","values":{}}`)               // inline
	call(6, toolResolveSkill, fmt.Sprintf(`{"name":"skill-%d"}`, chain-3)) // 4-skill chain: inline
	call(7, toolResolveSkill, fmt.Sprintf(`{"name":"\u0073kill-%d"}`, 1))  // escaped name, long chain: waits
	send(`{"jsonrpc":"2.0","id":8,"method":"ping"}`)
	first := h.byID(4, 30*time.Second)
	for _, id := range []string{"4", "5", "6", "8"} {
		if _, ok := first[id]; !ok {
			t.Fatalf("answers while the only slot is held: %v; want ids 4, 5, 6 and 8", first)
		}
	}
	if !strings.Contains(first["6"], `skill-`+fmt.Sprint(chain)) {
		t.Errorf("resolve of a short chain: %.300s", first["6"])
	}
	// Cancelling the holder frees the slot for the three that wait; a
	// cancelled request is not answered.
	send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`)
	rest := h.byID(3, 30*time.Second)
	for _, id := range []string{"2", "3", "7"} {
		if _, ok := rest[id]; !ok {
			t.Fatalf("answers after the slot is freed: %v; want ids 2, 3 and 7", rest)
		}
	}
	h.finish()
}
