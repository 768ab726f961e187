package httpd

import (
	"bufio"
	"net/http"
	"strings"
	"testing"
)

// TestStreamsLeaveTheRequestCap: a request turned into a stream with
// StartStream gives its MaxConcurrent slot back, so open streams (one per
// connected 2026-07-28 client) never starve ordinary requests; streams
// have their own bound, past which StartStream answers 503 naming the
// flag; a closed stream frees its slot.
func TestStreamsLeaveTheRequestCap(t *testing.T) {
	release := make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Stream") == "" {
			w.Write([]byte(`{"ok":true}`))
			return
		}
		if !StartStream(w, r) {
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write([]byte("event: message\ndata: {}\n\n"))
		http.NewResponseController(w).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	r := start(t, Options{MaxConcurrent: 1, MaxStreams: 1}, Endpoints{Agents: map[string]http.Handler{"ada": h}})
	openStream := func() *http.Response {
		t.Helper()
		hr, _ := http.NewRequest("POST", r.url+"/mcp", strings.NewReader(postBody))
		hr.Header.Set("X-Stream", "1")
		resp, err := http.DefaultClient.Do(hr)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	stream := openStream()
	defer stream.Body.Close()
	if line, err := bufio.NewReader(stream.Body).ReadString('\n'); err != nil || stream.StatusCode != 200 {
		t.Fatalf("stream: status %d, first line %q, %v", stream.StatusCode, line, err)
	}
	runCases(t, r, []statusCase{
		{name: "a request beside an open stream", req: req{path: "/mcp", body: postBody}, status: 200},
		{name: "a stream past MaxStreams", req: req{path: "/mcp", body: postBody, headers: map[string]string{"X-Stream": "1"}}, status: 503,
			header: map[string]string{"Retry-After": "1"}, bodyHas: []string{"1 streams already open", "--max-streams"}},
		{name: "requests still served", req: req{path: "/mcp", body: postBody}, status: 200},
	})
	close(release)
	stream.Body.Close()
	// The slot comes back once the handler returns; a new stream may have
	// to wait for that, so it is retried until it is accepted.
	for i := 0; ; i++ {
		resp := openStream()
		resp.Body.Close()
		if resp.StatusCode == 200 {
			break
		}
		if i == 1000 {
			t.Fatalf("a closed stream's slot never came back: %d", resp.StatusCode)
		}
	}
}
