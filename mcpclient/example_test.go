package mcpclient_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/agent3md/agent3md/mcpclient"
)

// skillServer is a stand-in for any Streamable HTTP skill server: one
// skill, listed by skills/list and read by resources/read.
func skillServer() *httptest.Server {
	const skill = "---\nname: deploy\n---\nShip it.\n"
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m mcpclient.Message
		json.NewDecoder(r.Body).Decode(&m)
		var result any
		switch m.Method {
		case "skills/list":
			result = map[string]any{"skills": []any{map[string]any{
				"uri": "skill://deploy/SKILL.md", "frontmatter": map[string]any{"name": "deploy"},
				"resources": []any{map[string]any{"uri": "skill://deploy/SKILL.md", "digest": "sha256:…", "size": len(skill)}},
			}}}
		case "resources/read":
			result = map[string]any{"contents": []any{map[string]any{"uri": "skill://deploy/SKILL.md", "text": skill}}}
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": result})
	}))
}

// Reading every file of every skill a server lists, in the stateless
// 2026-07-28 revision.
func Example() {
	srv := skillServer()
	defer srv.Close()
	ctx := context.Background()
	c, err := mcpclient.Dial(srv.URL+"/mcp", &mcpclient.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	s := &mcpclient.Session{Conn: c, Modern: true, Info: mcpclient.Implementation{Name: "example", Version: "1"}}
	for cursor := ""; ; {
		page, err := s.ListSkills(ctx, cursor)
		if err != nil {
			log.Fatal(err)
		}
		for _, e := range page.Skills {
			files, _, err := e.Files()
			if err != nil {
				log.Fatal(err)
			}
			for _, f := range files {
				contents, err := s.ReadResource(ctx, f.URI)
				if err != nil {
					log.Fatal(err)
				}
				b, _ := contents[0].Bytes()
				fmt.Printf("%s: %d bytes\n", f.URI, len(b))
			}
		}
		if cursor = page.NextCursor; cursor == "" {
			break
		}
	}
	// Output: skill://deploy/SKILL.md: 30 bytes
}

// Pipelining over stdio: every request written at once, each answer
// matched to its request, and the time from the write to the last
// answer's arrival read from the requests' timings.
func ExampleConn_StartAll() {
	c, err := mcpclient.Spawn([]string{"agent3md", "mcp", "agent.3md"}, &mcpclient.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := c.Initialize(ctx, mcpclient.LatestLegacy, mcpclient.Implementation{Name: "example", Version: "1"}); err != nil {
		log.Fatal(err)
	}
	reqs := make([]mcpclient.Request, 1000)
	for i := range reqs {
		reqs[i] = mcpclient.Request{Method: "ping"}
	}
	ps, err := c.StartAll(ctx, reqs)
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range ps {
		if _, err := p.WaitResult(ctx); err != nil {
			log.Fatal(err)
		}
	}
	fmt.Printf("%v per ping\n", mcpclient.Span(ps)/time.Duration(len(ps)))
	// At EOF a stdio server finishes its requests and exits 0.
	if code, exited := c.Process().CloseInput(5 * time.Second); !exited || code != 0 {
		log.Fatalf("the server did not exit cleanly: exited %v, code %d", exited, code)
	}
}
