package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent3md/agent3md/loader"
)

// agentText is a small agent whose skills and bodies name version k; from
// version 2 on it has a third skill, gamma.
func agentText(k int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "---\n3md: 1.0\ntitle: Reloader\n---\n@plane z=0 label=\"id\" kind=identity\nIdentity of version %d.\n\n", k)
	fmt.Fprintf(&b, "@plane z=1 label=\"alpha\" kind=skill triggers=\"alpha task\" inputs=\"target\" tool=\"echo {target}\"\nAlpha body of version %d. See [[z=2]].\n\n", k)
	fmt.Fprintf(&b, "@plane z=2 label=\"beta\" kind=skill triggers=\"beta task\"\nBeta body of version %d.\n\n", k)
	if k >= 2 {
		fmt.Fprintf(&b, "@plane z=3 label=\"gamma\" kind=skill triggers=\"gamma task\"\nGamma body of version %d.\n", k)
	}
	return b.String()
}

// writeByRename replaces path's content the way editors that save by
// rename do.
func writeByRename(t testing.TB, path, text string) {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

type reloadRig struct {
	*harness
	path    string
	changes chan struct{}
	logs    *syncBuffer
}

func startReloadRig(t *testing.T) *reloadRig {
	dir := t.TempDir()
	path := filepath.Join(dir, "agent.3md")
	writeByRename(t, path, agentText(1))
	r := &reloadRig{path: path, changes: make(chan struct{}, 1), logs: &syncBuffer{}}
	open := func(context.Context) (*loader.Agent, error) { return openVersion(path) }
	r.harness = serveHarness(t, &Options{
		Source: changing(open, r.changes),
		Logger: slog.New(slog.NewTextHandler(r.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	return r
}

func (r *reloadRig) send(line string) {
	r.t.Helper()
	if _, err := r.in.Write([]byte(line + "\n")); err != nil {
		r.t.Fatal(err)
	}
}

// collect reads lines until every want substring has been seen in some
// line, or fails after a timeout.
func (r *reloadRig) collect(want ...string) []string {
	r.t.Helper()
	var got []string
	deadline := time.Now().Add(10 * time.Second)
	for {
		missing := ""
		for _, w := range want {
			found := false
			for _, l := range got {
				if strings.Contains(l, w) {
					found = true
					break
				}
			}
			if !found {
				missing = w
				break
			}
		}
		if missing == "" {
			return got
		}
		l, ok := r.next(time.Until(deadline))
		if !ok {
			r.t.Fatalf("never saw %q; got:\n%s", missing, strings.Join(got, "\n"))
		}
		got = append(got, l)
	}
}

// TestReloadSwapsAndNotifies: a watched agent declares listChanged and
// subscribe; a change swaps the whole version in (route, get, list and
// fill all see it) and each legacy session hears list_changed and
// resources/updated for what it subscribed to.
func TestReloadSwapsAndNotifies(t *testing.T) {
	r := startReloadRig(t)
	r.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	r.collect(`"listChanged":true,"subscribe":true`, `"tools":{"listChanged":true}`)
	r.send(`{"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":"skill://alpha/SKILL.md"}}`)
	r.send(`{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"skill://beta/_manifest"}}`)
	r.collect(`"id":1,"result":{}`, `"id":2,"result":{}`)
	r.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"route_skill","arguments":{"text":"gamma task"}}}`)
	// Before the change no skill is gamma: the answer holds at most
	// guesses by the shared word "task".
	for _, l := range r.collect(`"id":3`) {
		if strings.Contains(l, `"id":3`) && strings.Contains(l, "gamma") {
			t.Errorf("route before the change: %s, want no gamma", l)
		}
	}

	writeByRename(t, r.path, agentText(2))
	r.changes <- struct{}{}
	got := r.collect(methodToolsChanged, methodResChanged, methodPromptsChanged,
		`"method":"notifications/resources/updated","params":{"uri":"skill://alpha/SKILL.md"}`,
		`"method":"notifications/resources/updated","params":{"uri":"skill://beta/_manifest"}`)
	for _, l := range got {
		if strings.Contains(l, "resources/updated") && !strings.Contains(l, "alpha") && !strings.Contains(l, "beta/_manifest") {
			t.Errorf("updated sent for an unsubscribed URI: %s", l)
		}
	}
	r.send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"route_skill","arguments":{"text":"gamma task"}}}`)
	r.send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"get_skill","arguments":{"name":"alpha"}}}`)
	r.send(`{"jsonrpc":"2.0","id":6,"method":"resources/read","params":{"uri":"skill://gamma/SKILL.md"}}`)
	r.send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"fill_skill","arguments":{"name":"gamma","values":{}}}}`)
	r.collect(`"id":4,"result":{"content":[{"type":"text","text":"gamma`, `Alpha body of version 2`, `Gamma body of version 2`, `"id":7`)

	// A touch with the same bytes changes nothing and tells no one.
	writeByRename(t, r.path, agentText(2))
	r.changes <- struct{}{}
	// A broken edit keeps version 2 serving and says why on stderr.
	writeByRename(t, r.path, "---\n3md: 1.0\n---\n@plane z=1 label=\"x\" kind=skill triggers=\"a\" inputs=\"\"\"\n")
	r.changes <- struct{}{}
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(r.logs.String(), "last good version keeps serving") {
		if time.Now().After(deadline) {
			t.Fatalf("no log line for the broken edit; log:\n%s", r.logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	r.send(`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"get_skill","arguments":{"name":"gamma"}}}`)
	got = r.collect(`"id":8`)
	for _, l := range got {
		if strings.Contains(l, "list_changed") || strings.Contains(l, "resources/updated") {
			t.Errorf("a touch or a broken edit was announced: %s", l)
		}
	}
	if !strings.Contains(got[len(got)-1], "Gamma body of version 2") {
		t.Errorf("after a broken edit, get_skill gamma = %s, want version 2", got[len(got)-1])
	}
	r.finish()
}

// TestListenStream: a 2026-07-28 client opens subscriptions/listen, is
// acknowledged with what is honoured, hears only what it opted into with
// its subscription id, and a cancelled listen is never answered.
func TestListenStream(t *testing.T) {
	r := startReloadRig(t)
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	r.send(`{"jsonrpc":"2.0","id":"L","method":"subscriptions/listen","params":{` + meta + `,"notifications":{"toolsListChanged":true,"resourceSubscriptions":["skill://beta/SKILL.md"]}}}`)
	ack := r.collect(methodListenAcked)
	r.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_skill","arguments":{"name":"alpha"}}}`)
	r.collect(`Alpha body of version 1`) // version 1 is loaded before it is replaced
	if !strings.Contains(ack[0], `"io.modelcontextprotocol/subscriptionId":"L"`) || strings.Contains(ack[0], "promptsListChanged") {
		t.Errorf("acknowledgement %s", ack[0])
	}
	writeByRename(t, r.path, agentText(2))
	r.changes <- struct{}{}
	defer func() {
		if t.Failed() {
			t.Log(r.logs.String())
		}
	}()
	got := r.collect(methodToolsChanged, `"uri":"skill://beta/SKILL.md"`)
	for _, l := range got {
		if !strings.Contains(l, `"io.modelcontextprotocol/subscriptionId":"L"`) {
			t.Errorf("a listen notification without its subscription id: %s", l)
		}
		if strings.Contains(l, methodPromptsChanged) || strings.Contains(l, methodResChanged) {
			t.Errorf("a notification the client did not opt into: %s", l)
		}
	}
	r.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"L"}}`)
	r.send(`{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{` + meta + `}}`)
	for _, l := range r.collect(`"id":9`) {
		if strings.Contains(l, `"id":"L"`) {
			t.Errorf("a cancelled listen was answered: %s", l)
		}
	}
	r.finish()
}

// rewriting calls write(k) for k = 1, 2, … in a goroutine, announcing
// each rewrite on changes (one already pending absorbs it) and pausing
// between, until the returned stop is called; stop returns once the
// goroutine has ended.
func rewriting(changes chan<- struct{}, pause time.Duration, write func(k int)) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for k := 1; ; k++ {
			select {
			case <-done:
				return
			default:
			}
			write(k)
			select {
			case changes <- struct{}{}:
			default:
			}
			time.Sleep(pause)
		}
	})
	return func() {
		close(done)
		wg.Wait()
	}
}

// TestVersionsNeverMix: while the file is rewritten and reloaded in a
// loop, every skills/list entry's digests match the bytes read in the
// same request's version, and every body read is one some version wrote.
func TestVersionsNeverMix(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "agent.3md")
	writeByRename(t, path, agentText(1))
	open := func(context.Context) (*loader.Agent, error) { return loader.Open(path, nil) }
	changes := make(chan struct{}, 1)
	S, err := NewServer(context.Background(), &Options{Source: changing(open, changes), Router: testRouterOptions(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer S.Close()
	stop := rewriting(changes, 2*time.Millisecond, func(k int) { writeByRename(t, path, agentText(2+k%5)) })
	// As in TestDigestsMatchWithinAVersion: on past the time until one
	// read has succeeded, up to a hang guard.
	deadline, giveUp := time.Now().Add(400*time.Millisecond), time.Now().Add(30*time.Second)
	reads := 0
	for now := time.Now(); now.Before(deadline) || reads == 0 && now.Before(giveUp); now = time.Now() {
		rep := S.Exchange(context.Background(), &Exchange{Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_skill","arguments":{"name":"alpha"}}}`)})
		var res struct {
			Result struct {
				Content []struct{ Text string }
			}
		}
		json.Unmarshal(rep.Line, &res)
		if len(res.Result.Content) == 1 {
			text := res.Result.Content[0].Text
			if !strings.HasPrefix(text, "Alpha body of version ") && !strings.Contains(text, "changed") {
				t.Errorf("get_skill alpha answered %q", text)
			}
			reads++
		}
		rep = S.Exchange(context.Background(), &Exchange{Body: []byte(`{"jsonrpc":"2.0","id":2,"method":"skills/get","params":{"uri":"skill://alpha/SKILL.md"}}`)})
		var sk struct {
			Result struct {
				Skill struct {
					Resources []struct {
						URI, Digest string
					}
				}
			}
		}
		json.Unmarshal(rep.Line, &sk)
		for _, res := range sk.Result.Skill.Resources {
			if !strings.HasPrefix(res.Digest, "sha256:") {
				t.Errorf("digest %q", res.Digest)
			}
		}
	}
	stop()
	if reads == 0 {
		t.Fatal("no read succeeded while the file was rewritten")
	}
}

// TestDigestsMatchWithinAVersion: while the file is rewritten (by rename
// and in place) and reloaded in a loop, a request pinned to one version
// reads every file skills/get lists for it and finds the listed digest;
// a read may fail (the version's bytes are gone), never disagree.
func TestDigestsMatchWithinAVersion(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "agent.3md")
	writeByRename(t, path, agentText(1))
	open := func(context.Context) (*loader.Agent, error) { return openVersion(path) }
	changes := make(chan struct{}, 1)
	S, err := NewServer(context.Background(), &Options{Source: changing(open, changes), Router: testRouterOptions(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer S.Close()
	s := S.srv
	stop := rewriting(changes, time.Millisecond, func(k int) {
		if k%2 == 0 {
			writeByRename(t, path, agentText(2+k%7))
		} else {
			os.WriteFile(path, []byte(agentText(2+k%7)), 0o644) // in place
		}
	})
	// Half a second of reads, and on past it until one file has been
	// read whole (a loaded machine under -race can lose every read of
	// the first half second to the rewrites), up to a hang guard.
	deadline, giveUp := time.Now().Add(500*time.Millisecond), time.Now().Add(30*time.Second)
	checked := 0
	for now := time.Now(); now.Before(deadline) || checked == 0 && now.Before(giveUp); now = time.Now() {
		c := &call{srv: s, sess: newSession(nil), version: version20251125, params: map[string]json.RawMessage{"uri": json.RawMessage(`"skill://alpha/SKILL.md"`)}}
		res, err := s.skillsGet(context.Background(), c)
		if err != nil {
			c.done()
			continue
		}
		for _, r := range res.(*skillsGetResult).Skill.Resources {
			text, _, err := s.readResource(context.Background(), c.v, r.URI)
			if err != nil {
				continue
			}
			if digest(text) != r.Digest {
				t.Errorf("version %v: %s listed %s, read %s (%q)", c.v, r.URI, r.Digest, digest(text), text)
			}
			checked++
		}
		c.done()
	}
	stop()
	if checked == 0 {
		t.Fatal("no file was read while the agent was rewritten")
	}
}

// openVersion opens one version of an agent file, as cmd does for a
// watched file.
func openVersion(path string) (*loader.Agent, error) {
	return loader.OpenStable(path, &loader.Options{NoRescan: true, Settle: 5 * time.Millisecond})
}

// TestStartDuringASave: a server whose first load fails (the file was
// being written) serves the file once a change makes it good, instead of
// failing every request until it is restarted.
func TestStartDuringASave(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "agent.3md")
	writeByRename(t, path, "---\n3md: 1.0\n---\n@plane z=1 label=\"x\" kind=skill triggers=\"a\" inputs=\"\"\"\n")
	open := func(context.Context) (*loader.Agent, error) { return openVersion(path) }
	changes := make(chan struct{}, 1)
	h := serveHarness(t, &Options{Source: changing(open, changes)})
	r := &reloadRig{harness: h, path: path, changes: changes}
	r.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_skill","arguments":{"name":"beta"}}}`)
	r.collect(`"id":1`, `could not be loaded`)
	writeByRename(t, path, agentText(1))
	changes <- struct{}{}
	deadline := time.Now().Add(10 * time.Second)
	for id := 2; ; id++ {
		r.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"get_skill","arguments":{"name":"beta"}}}`, id))
		got := r.collect(fmt.Sprintf(`"id":%d`, id))
		if strings.Contains(got[len(got)-1], "Beta body of version 1") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the fixed file is not served: %s", got[len(got)-1])
		}
		time.Sleep(20 * time.Millisecond)
	}
	r.in.Close()
	if err := <-r.done; err != nil {
		t.Errorf("Serve returned %v after the file was fixed, want nil", err)
	}
}

// TestSkillPastExtensionLimits: a skill whose resolve chain passes the
// skills extension's 512 files is left out of skills/list (with a warning)
// and skills/get says why; its resources still read.
func TestSkillPastExtensionLimits(t *testing.T) {
	var b strings.Builder
	b.WriteString("---\n3md: 1.0\ntitle: Big\n---\n@plane z=0 label=\"id\" kind=identity\nBig.\n\n@plane z=1 label=\"hub\" kind=skill triggers=\"hub\"\nHub:")
	for z := 2; z <= 600; z++ {
		fmt.Fprintf(&b, " [[z=%d]]", z)
	}
	b.WriteString("\n\n")
	for z := 2; z <= 600; z++ {
		fmt.Fprintf(&b, "@plane z=%d label=\"leaf-%d\" kind=skill triggers=\"leaf %d\"\nLeaf %d.\n\n", z, z, z, z)
	}
	path := filepath.Join(t.TempDir(), "big.3md")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := loader.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	logs := &syncBuffer{}
	s := newServer(&Options{Source: Loaded(a), Logger: slog.New(slog.NewTextHandler(logs, nil))})
	sess := newSession(nil)
	var page struct {
		Skills []testSkillEntry
	}
	mustRPC(t, s, sess, methodSkillsList, nil, &page)
	for _, sk := range page.Skills {
		if sk.URI == "skill://hub/SKILL.md" {
			t.Errorf("hub (600 files) is listed")
		}
	}
	if len(page.Skills) != skillsPageSize-1 || !strings.Contains(logs.String(), "skill left out of skills/list") {
		t.Errorf("%d skills on the first page, log %q", len(page.Skills), logs.String())
	}
	_, err = rpc(t, s, sess, methodSkillsGet, map[string]any{"uri": "skill://hub/SKILL.md"})
	if err == nil || !strings.Contains(err.Error(), "more than the 512") {
		t.Errorf("skills/get hub: %v", err)
	}
	if got := readText(t, s, sess, "skill://hub/references/leaf-600.md"); !strings.Contains(got, "Leaf 600.") {
		t.Errorf("reference read %q", got)
	}
}

func openPathFunc(path string) func(context.Context) (*loader.Agent, error) {
	return func(context.Context) (*loader.Agent, error) { return openVersion(path) }
}

// TestListenEndsAtEOF: a listen still open when stdin closes is answered
// with its graceful end, not held for the grace period or cut off.
func TestListenEndsAtEOF(t *testing.T) {
	r := startReloadRig(t)
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	r.send(`{"jsonrpc":"2.0","id":7,"method":"subscriptions/listen","params":{` + meta + `,"notifications":{"toolsListChanged":true}}}`)
	r.collect(methodListenAcked)
	r.in.Close()
	got := r.collect(`"id":7,"result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo"`)
	if !strings.Contains(got[len(got)-1], `"io.modelcontextprotocol/subscriptionId":7`) {
		t.Errorf("final answer %s lacks the subscription id", got[len(got)-1])
	}
	if err := <-r.done; err != nil {
		t.Errorf("Serve: %v", err)
	}
}

// TestSubscriptionsBounded: a session cannot make every reload compare an
// unbounded set of URIs, through resources/subscribe or a listen.
func TestSubscriptionsBounded(t *testing.T) {
	sess := newSession(nil)
	for i := range maxSubscriptions {
		if !sess.subscribe(fmt.Sprintf("skill://s%d/SKILL.md", i)) {
			t.Fatalf("subscription %d refused", i)
		}
	}
	if sess.subscribe("skill://one-more/SKILL.md") {
		t.Error("a subscription past the bound was taken")
	}
	if !sess.subscribe("skill://s0/SKILL.md") {
		t.Error("renewing a held subscription was refused")
	}
	s := newServer(&Options{Source: Loaded(openAda(t))})
	uris := make([]string, maxSubscriptions+1)
	for i := range uris {
		uris[i] = fmt.Sprintf("skill://s%d/SKILL.md", i)
	}
	params := map[string]any{
		"_meta":         map[string]any{metaProtocolVersion: version20260728, metaClientCapabilities: map[string]any{}},
		"notifications": map[string]any{"resourceSubscriptions": uris},
	}
	_, err := rpc(t, s, newSession(nil), methodListen, params)
	if err == nil || !strings.Contains(err.Error(), "resourceSubscriptions has 1025 URIs") {
		t.Errorf("listen with %d URIs: %v", len(uris), err)
	}
}

// TestListenHoldsNoHandlerSlot: an open subscriptions/listen does not
// hold one of the connection's handler slots, so with a single slot a
// later request that needs a handler is still answered; and a session
// holds at most maxListens open listens.
func TestListenHoldsNoHandlerSlot(t *testing.T) {
	r := &reloadRig{harness: serveHarness(t, &Options{Source: Loaded(openAda(t)), MaxInFlight: 1})}
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	for i := 0; i < maxListens; i++ {
		r.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":"L%d","method":"subscriptions/listen","params":{%s,"notifications":{"toolsListChanged":true}}}`, i, meta))
		r.collect(fmt.Sprintf(`"io.modelcontextprotocol/subscriptionId":"L%d"`, i))
	}
	// prompts/list is never answered inline: it needs a handler slot.
	r.send(`{"jsonrpc":"2.0","id":1,"method":"prompts/list"}`)
	r.collect(`"id":1,"result"`)
	r.send(`{"jsonrpc":"2.0","id":"over","method":"subscriptions/listen","params":{` + meta + `,"notifications":{"toolsListChanged":true}}}`)
	if got := r.collect(`"id":"over"`); !strings.Contains(got[len(got)-1], "open subscriptions/listen requests") {
		t.Errorf("a listen past the bound: %s", got[len(got)-1])
	}
	for i := 0; i < maxListens; i++ { // a cancelled listen is never answered
		r.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"L%d"}}`, i))
	}
	r.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	r.collect(`"id":2`)
	r.finish()
}

// TestListenHonoursOnlyDeclaredChanges: a server that does not watch its
// agent declares no listChanged (its lists never change), so its
// acknowledgement must not claim to honour list-change notifications it
// will never send (docs/protocol.md §12): a client would wait for them.
func TestListenHonoursOnlyDeclaredChanges(t *testing.T) {
	h := startServer(t, "ada.3md", nil)
	r := &reloadRig{harness: h}
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	r.send(`{"jsonrpc":"2.0","id":"L","method":"subscriptions/listen","params":{` + meta + `,"notifications":{"toolsListChanged":true,"promptsListChanged":true,"resourcesListChanged":true,"resourceSubscriptions":["skill://x/SKILL.md"]}}}`)
	ack := r.collect(methodListenAcked)[0]
	for _, flag := range []string{"toolsListChanged", "promptsListChanged", "resourcesListChanged", "resourceSubscriptions"} {
		if strings.Contains(ack, flag) {
			t.Errorf("an unwatched server acknowledged %s: %s", flag, ack)
		}
	}
	if !strings.Contains(ack, `"notifications":{}`) {
		t.Errorf("acknowledgement %s: want an empty honoured set", ack)
	}
	r.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"L"}}`)
	r.finish()
}
