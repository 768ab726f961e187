package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestReplayFloor records the fake server's answers, checks the replay
// server gives them back in turn under each request's own id, then times
// a session against the replay server run as a contender.
func TestReplayFloor(t *testing.T) {
	t.Setenv(fakeEnv, "ok")
	p := &cmpProbe{agent: "unused.3md", size: 2, timeout: 10 * time.Second, exitWait: 10 * time.Second, kinds: requestKinds,
		requests: 200, budget: 20 * time.Millisecond,
		words: words{Verbs: []string{"search", "render"}, Nouns: []string{"report"}}}
	fake := contender{label: "ours", argv: func(string, string) []string { return []string{os.Args[0]} }}
	file := filepath.Join(t.TempDir(), "answers.json")
	if err := p.recordAnswers(fake, t.TempDir(), file); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var rec replayAnswers
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	// get_skill_again files its answers under get_skill, and the session's
	// first route under route_skill.
	for key, want := range map[string]int{"ping": replaySample, "tools/list": replaySample, "list_skills": replaySample,
		"get_skill": 2 * replaySample, "resolve_skill": replaySample, "route_skill": replaySample + 1} {
		if got := len(rec.Answers[key]); got != want {
			t.Errorf("%d answers recorded for %s, want %d", got, key, want)
		}
	}

	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":"a","method":"initialize","params":{}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"get_skill","arguments":{"name":"x"}}}`,
		`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"get_skill","arguments":{"name":"y"}}}`,
		`{"jsonrpc":"2.0","id":9,"method":"resources/list"}`,
	}, "\n")
	var out bytes.Buffer
	if status := replayServer(file, strings.NewReader(in), &out); status != 0 {
		t.Fatalf("replay server exit status %d", status)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d answers to 4 requests and a notification:\n%s", len(lines), out.String())
	}
	want := []struct {
		id  string
		res json.RawMessage
	}{{`"a"`, rec.Initialize}, {`7`, rec.Answers["get_skill"][0]}, {`8`, rec.Answers["get_skill"][1]}}
	for i, w := range want {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal([]byte(lines[i]), &m); err != nil {
			t.Fatalf("answer %d is not JSON: %v", i, err)
		}
		if string(m.ID) != w.id || !bytes.Equal(m.Result, w.res) {
			t.Errorf("answer %d = %.200s, want id %s and the recorded result %.100s", i, lines[i], w.id, w.res)
		}
	}
	if !strings.Contains(lines[3], `"id":9,"error"`) || !strings.Contains(lines[3], "resources/list") {
		t.Errorf("a request with no recorded answer: %s", lines[3])
	}

	floor, err := replayFloor()
	if err != nil {
		t.Fatal(err)
	}
	floor.replay[p.agent] = file
	r := &cmpResult{Size: 2, Samples: samples{}, Misses: map[string]int{}}
	if err := p.session(floor, t.TempDir(), 0, r); err != nil {
		t.Fatalf("a session against the replay floor: %v", err)
	}
	for _, key := range requestKinds {
		if s := r.Samples["floor"][key]; len(s) != 1 || s[0] <= 0 {
			t.Errorf("floor %s samples = %v, want one positive", key, s)
		}
	}
}

func TestReplayServerBadFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "answers.json")
	os.WriteFile(file, []byte(`{}`), 0o644)
	if status := replayServer(file, strings.NewReader(""), &bytes.Buffer{}); status != 2 {
		t.Errorf("exit status %d for a file without answers, want 2", status)
	}
}
