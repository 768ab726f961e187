package httpd

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
)

// Paths served (docs/http.md §1).
const (
	// MCPPath is the endpoint of the default agent; an agent's own is
	// MCPPath + "/" + slug.
	MCPPath = "/mcp"
	// HealthPath answers probes without authentication or agent data.
	HealthPath = "/healthz"
)

// Endpoints maps agent slugs to their MCP handlers: /mcp/<slug> for each,
// and /mcp for Default, or for the only agent when there is one.
type Endpoints struct {
	Agents  map[string]http.Handler
	Default string // a key of Agents, or "" for the only agent's
}

// route is Endpoints checked and resolved.
type route struct {
	agents  map[string]http.Handler
	def     http.Handler // nil: /mcp is not served
	defSlug string       // the slug def serves
	paths   []string     // every served MCP path, sorted, for the 404 body
}

// newRoute checks e: at least one agent, slugs that fit in one path
// segment, a Default that exists.
func newRoute(e Endpoints) (*route, error) {
	if len(e.Agents) == 0 {
		return nil, fmt.Errorf("no agent to serve: give at least one agent file")
	}
	rt := &route{agents: map[string]http.Handler{}}
	for slug, h := range e.Agents {
		if slug == "" || strings.ContainsAny(slug, "/?#%") || h == nil {
			return nil, fmt.Errorf("agent slug %q: use a non-empty name without / ? # or %%, with a handler", slug)
		}
		rt.agents[slug] = h
		rt.paths = append(rt.paths, MCPPath+"/"+slug)
	}
	switch {
	case e.Default != "":
		h, ok := rt.agents[e.Default]
		if !ok {
			return nil, fmt.Errorf("default agent %q is not served; served: %s", e.Default, strings.Join(slugs(rt.agents), ", "))
		}
		rt.def, rt.defSlug = h, e.Default
	case len(rt.agents) == 1:
		for slug, h := range rt.agents {
			rt.def, rt.defSlug = h, slug
		}
	}
	if rt.def != nil {
		rt.paths = append(rt.paths, MCPPath)
	}
	sort.Strings(rt.paths)
	return rt, nil
}

func slugs(m map[string]http.Handler) []string {
	var s []string
	for k := range m {
		s = append(s, k)
	}
	sort.Strings(s)
	return s
}

// handler finds the endpoint of path. One trailing slash is forgiven:
// some clients join a base URL and "/mcp" with one.
func (rt *route) handler(path string) http.Handler {
	if len(path) > 1 {
		path = strings.TrimSuffix(path, "/")
	}
	if path == MCPPath {
		return rt.def
	}
	if slug, ok := strings.CutPrefix(path, MCPPath+"/"); ok {
		return rt.agents[slug]
	}
	return nil
}

// slugOf is the slug of the agent path serves, or "" (handler's rules).
func (rt *route) slugOf(path string) string {
	if len(path) > 1 {
		path = strings.TrimSuffix(path, "/")
	}
	if path == MCPPath {
		return rt.defSlug
	}
	if slug, ok := strings.CutPrefix(path, MCPPath+"/"); ok && rt.agents[slug] != nil {
		return slug
	}
	return ""
}

// notFound answers 404 naming the served endpoints. It runs after the
// token check, so only a client allowed in learns the agents' names.
func (rt *route) notFound(w http.ResponseWriter, r *http.Request) {
	writeError(w, http.StatusNotFound, codeInvalidRequest,
		"Not found: "+loggable(r.URL.Path, maxLoggedPath)+" is not an MCP endpoint; served: "+strings.Join(rt.paths, ", "),
		map[string]any{"endpoints": rt.paths})
}
