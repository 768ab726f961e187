package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/agent3md/agent3md/loader"
	"github.com/agent3md/agent3md/router"
)

// TestServeColdRouteLikeWarm serves a 1,000-skill agent with an empty
// cache and a router that builds bleve in the background (as cmd's
// servers do), sends every route_skill at once after initialize, and
// checks each answer (text and structuredContent, relevance included) is
// byte for byte the one a warm start over the cache entry it built gives.
func TestServeColdRouteLikeWarm(t *testing.T) {
	a := openSynth(t, 1000)
	dir := t.TempDir()
	var reqs []string
	for i, v := range []string{"deploy", "summarize", "render", "merge", "classify", "backup"} {
		for j, n := range []string{"report", "invoice", "cluster", "pipeline"} {
			reqs = append(reqs, fmt.Sprintf("please %s the latest %s for the team", v, n))
			if (i+j)%3 == 0 {
				reqs = append(reqs, n+" "+v) // short: names and stems
			}
		}
	}
	reqs = append(reqs, "rotate zebra quux", "nothing matches here at all") // the relaxed tier
	cold, coldLog := serveRoutes(t, a, &router.Options{CacheDir: dir, Background: true}, reqs)
	warm, warmLog := serveRoutes(t, a, &router.Options{CacheDir: dir, Background: true}, reqs)
	if !strings.Contains(coldLog, "index=building") {
		t.Errorf("the cold start did not build in the background:\n%s", coldLog)
	}
	if !strings.Contains(warmLog, "index=cache-hit") {
		t.Errorf("the warm start did not open the cache entry:\n%s", warmLog)
	}
	for i := range reqs {
		if cold[i] != warm[i] {
			t.Errorf("%q: cold start answered\n %s\nwarm start answers\n %s", reqs[i], cold[i], warm[i])
		}
	}
}

// serveRoutes runs Serve on a, sends initialize and a route_skill for
// each text without waiting, and returns each answer's result, by text,
// and the server's log once it has returned.
func serveRoutes(t *testing.T, a *loader.Agent, ro *router.Options, texts []string) ([]string, string) {
	t.Helper()
	var logs strings.Builder
	var mu sync.Mutex
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- Serve(context.Background(), inR, outW, &Options{Source: Loaded(a), Router: ro,
			Logger: slog.New(slog.NewTextHandler(&lockedWriter{w: &logs, mu: &mu}, nil))})
		outW.Close()
	}()
	var b strings.Builder
	b.WriteString(benchInit + "\n")
	for i, text := range texts {
		args, _ := json.Marshal(map[string]any{"text": text})
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"route_skill","arguments":%s}}`+"\n", i+1, args)
	}
	go io.WriteString(inW, b.String())
	out := bufio.NewReaderSize(outR, 1<<20)
	got := make([]string, len(texts))
	for seen := 0; seen <= len(texts); {
		line, err := out.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		var m struct {
			ID     *int
			Result json.RawMessage
			Error  json.RawMessage
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		if m.ID == nil {
			continue
		}
		if m.Error != nil {
			t.Fatalf("request %d: %s", *m.ID, m.Error)
		}
		if *m.ID > 0 {
			got[*m.ID-1] = string(m.Result)
		}
		seen++
	}
	inW.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	return got, logs.String()
}
