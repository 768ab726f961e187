package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent3md/agent3md/router"
)

// fakeNotifier records notifications and signals each one.
type fakeNotifier struct {
	mu   sync.Mutex
	sent []progressParams
	ch   chan struct{}
}

func (f *fakeNotifier) Notify(_ context.Context, method string, params any) error {
	if method != methodProgress {
		return fmt.Errorf("unexpected notification %s", method)
	}
	f.mu.Lock()
	f.sent = append(f.sent, params.(progressParams))
	f.mu.Unlock()
	f.ch <- struct{}{}
	return nil
}

// TestRouteWaitSendsProgress: a route_skill that waits on the index build
// and carries a progress token gets one notifications/progress per build
// report, with its token, then its answer; without a token it gets none.
func TestRouteWaitSendsProgress(t *testing.T) {
	a := openAda(t)
	for _, token := range []string{`"tok-1"`, `7`, ``} {
		s := newServer(&Options{Source: Loaded(a)})
		report := s.firstRouting.reporter(nil)
		fake := &fakeNotifier{ch: make(chan struct{}, 8)}
		params := map[string]json.RawMessage{}
		if token != "" {
			params["_meta"] = json.RawMessage(`{"progressToken":` + token + `}`)
		}
		ctx := withNotifier(withProgressToken(context.Background(), params), fake)
		done := make(chan *toolOutcome, 1)
		go func() {
			out, err := routeSkillTool.run(s, ctx, s.cur.Load(), map[string]json.RawMessage{"text": json.RawMessage(`"commit"`)})
			if err != nil {
				t.Error(err)
			}
			done <- out
		}()
		prev := 0
		for _, n := range []int{1000, 2000, 2000, 3000} {
			report(n, 3000)
			if token != "" && n > prev {
				prev = n
				select {
				case <-fake.ch:
				case <-time.After(10 * time.Second):
					t.Fatalf("token %s: no progress after report %d", token, n)
				}
			}
		}
		r, err := router.ForAgent(context.Background(), a, testRouterOptions(t))
		if err != nil {
			t.Fatal(err)
		}
		s.firstRouting.publish(r, nil)
		out := <-done
		r.Close()
		if out == nil || !strings.HasPrefix(out.text, "commit") {
			t.Fatalf("token %s: route answered %+v", token, out)
		}
		fake.mu.Lock()
		b, _ := json.Marshal(fake.sent)
		fake.mu.Unlock()
		got, want := string(b), "null"
		if token != "" {
			var parts []string
			for _, n := range []int{1000, 2000, 3000} {
				parts = append(parts, fmt.Sprintf(`{"progressToken":%s,"progress":%d,"total":3000,"message":"building the routing index, skills indexed: %d of 3000"}`, token, n, n))
			}
			want = "[" + strings.Join(parts, ",") + "]"
		}
		if got != want {
			t.Errorf("token %s: sent %s\nwant %s", token, got, want)
		}
	}
}

// TestProgressTokenKinds: only a string or an integer token is kept.
func TestProgressTokenKinds(t *testing.T) {
	for meta, keep := range map[string]bool{
		`{"progressToken":"a"}`: true, `{"progressToken":12}`: true, `{"progressToken":1.5}`: false,
		`{"progressToken":null}`: false, `{"progressToken":{}}`: false, `{}`: false, `"x"`: false,
	} {
		ctx := withProgressToken(context.Background(), map[string]json.RawMessage{"_meta": json.RawMessage(meta)})
		if got := ctx.Value(progressTokenKey{}) != nil; got != keep {
			t.Errorf("_meta %s: token kept = %v, want %v", meta, got, keep)
		}
	}
}

// TestServeSendsBuildProgress drives Serve on a cold 20,000-skill agent:
// a route_skill sent with a progress token right after initialize gets
// notifications/progress for the index build before its answer.
func TestServeSendsBuildProgress(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 20,000-skill index")
	}
	a := openSynth(t, 20000)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- Serve(context.Background(), inR, outW, &Options{Source: Loaded(a), Router: &router.Options{CacheDir: t.TempDir()}})
		outW.Close()
	}()
	out := bufio.NewReader(outR)
	io.WriteString(inW, benchInit+"\n")
	if _, err := out.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	io.WriteString(inW, `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"route_skill","arguments":{"text":"report"},"_meta":{"progressToken":"p9"}}}`+"\n")
	last, notes := 0, 0
	for {
		line, err := out.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		var m struct {
			ID     *int
			Method string
			Params progressParams
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		if m.ID != nil {
			break
		}
		if m.Method != methodProgress || string(m.Params.Token) != `"p9"` || m.Params.Progress <= last || m.Params.Total != 20000 {
			t.Fatalf("unexpected notification after %d: %s", last, line)
		}
		last, notes = m.Params.Progress, notes+1
	}
	inW.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if notes == 0 {
		t.Fatal("no progress notification before the answer")
	}
	t.Logf("%d progress notifications, last %d of 20000", notes, last)
}
